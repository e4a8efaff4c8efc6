// Random and malformed GCP providerSpecs: decoding accepts them or answers InvalidMachineConfiguration naming a
// providerSpec field; it never throws anything else and never pollutes a prototype.
import { expect } from 'chai';
import { decodeProviderSpec } from '../../providers/gcp/index.js';
import { gcpSpec } from '../providers/gcp/fixtures.js';
import { SPEC_FUZZ_RUNS, checkDecodeProperty, providerSpecTexts } from './provider-spec-fuzz.js';

const FIELD_PATHS: Array<Array<string | number>> = [
  ['machineType'],
  ['region'],
  ['zone'],
  ['projectID'],
  ['canIPForward'],
  ['deletionProtection'],
  ['preemptible'],
  ['provisioningModel'],
  ['onHostMaintenance'],
  ['restartPolicy'],
  ['confidentialCompute'],
  ['disks'],
  ['disks', 0],
  ['disks', 0, 'sizeGb'],
  ['disks', 0, 'type'],
  ['disks', 0, 'image'],
  ['disks', 0, 'boot'],
  ['disks', 0, 'labels'],
  ['disks', 0, 'labels', '__proto__'],
  ['disks', 0, 'encryptionKey'],
  ['disks', 0, 'encryptionKey', 'kmsKey', 'projectID'],
  ['disks', 0, 'encryptionKey', 'kmsKey', 'keyRing'],
  ['labels'],
  ['labels', 'team'],
  ['labels', '__proto__'],
  ['labels', 'constructor'],
  ['gcpMetadata'],
  ['gcpMetadata', 0, 'value'],
  ['networkInterfaces'],
  ['networkInterfaces', 0, 'projectID'],
  ['networkInterfaces', 0, 'network'],
  ['serviceAccounts'],
  ['serviceAccounts', 0, 'scopes'],
  ['tags'],
  ['tags', 0],
  ['targetPools'],
  ['gpus'],
  ['gpus', 0, 'count'],
  ['gpus', 0, 'type'],
  ['shieldedInstanceConfig'],
  ['shieldedInstanceConfig', 'secureBoot'],
  ['resourceManagerTags'],
  ['resourceManagerTags', 0, 'parentID'],
  ['resourceManagerTags', 0, 'value'],
  ['userDataSecret'],
  ['credentialsSecret', 'name'],
  ['metadata'],
  ['apiVersion'],
  ['kind'],
  ['__proto__'],
  ['constructor'],
  ['unknownField'],
];

describe('property: GCP providerSpec decoding on random and malformed input', function () {
  this.timeout(120_000);

  it(`turns ${SPEC_FUZZ_RUNS} generated specs (wrong types, 10,000-deep nesting, 5 MB strings, __proto__ keys) into a spec or InvalidMachineConfiguration, polluting nothing`, () => {
    const decode = (v: unknown) => decodeProviderSpec(v, { clusterId: 'c1' });
    const { accepted, rejected } = checkDecodeProperty(
      decode,
      providerSpecTexts(gcpSpec, FIELD_PATHS),
      'spec.providerSpec.value',
      23,
    );
    expect(accepted).to.be.greaterThan(100);
    expect(rejected).to.be.greaterThan(1000);
  });
});
