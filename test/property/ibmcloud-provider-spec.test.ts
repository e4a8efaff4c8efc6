// Random and malformed IBM Cloud providerSpecs: decoding accepts them or answers InvalidMachineConfiguration
// naming a providerSpec field; it never throws anything else, never pollutes a prototype, and never compiles
// part of the spec as a pattern.
import { expect } from 'chai';
import { decodeProviderSpec } from '../../providers/ibmcloud/index.js';
import { ibmSpec } from '../providers/ibmcloud/fixtures.js';
import { SPEC_FUZZ_RUNS, checkDecodeProperty, providerSpecTexts } from './provider-spec-fuzz.js';

const FIELD_PATHS: Array<Array<string | number>> = [
  ['vpc'],
  ['image'],
  ['profile'],
  ['region'],
  ['zone'],
  ['resourceGroup'],
  ['networkResourceGroup'],
  ['dedicatedHost'],
  ['bootVolume'],
  ['bootVolume', 'profile'],
  ['bootVolume', 'sizeGiB'],
  ['bootVolume', 'iops'],
  ['bootVolume', 'bandwidth'],
  ['bootVolume', 'encryptionKey'],
  ['tags'],
  ['tags', 0],
  ['tags', 0, 'name'],
  ['tags', 0, 'value'],
  ['primaryNetworkInterface'],
  ['primaryNetworkInterface', 'subnet'],
  ['primaryNetworkInterface', 'securityGroups'],
  ['primaryNetworkInterface', 'securityGroups', 0],
  ['userDataSecret'],
  ['credentialsSecret'],
  ['credentialsSecret', 'name'],
  ['metadata'],
  ['apiVersion'],
  ['kind'],
  ['__proto__'],
  ['constructor'],
  ['unknownField'],
];

describe('property: IBM Cloud providerSpec decoding on random and malformed input', function () {
  this.timeout(120_000);

  it(`turns ${SPEC_FUZZ_RUNS} generated specs (wrong types, 10,000-deep nesting, 5 MB strings, __proto__ keys) into a spec or InvalidMachineConfiguration, polluting nothing`, () => {
    const { accepted, rejected } = checkDecodeProperty(
      (v) => decodeProviderSpec(v),
      providerSpecTexts(ibmSpec, FIELD_PATHS),
      'spec.providerSpec.value',
      29,
    );
    expect(accepted).to.be.greaterThan(100);
    expect(rejected).to.be.greaterThan(1000);
  });
});
