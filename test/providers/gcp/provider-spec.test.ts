import { expect } from 'chai';
import { InvalidMachineConfigurationError } from '../../../lib/index.js';
import {
  decodeProviderSpec,
  decodeProviderStatus,
  encodeProviderStatus,
  readProviderSpec,
} from '../../../providers/gcp/index.js';
import { gcpSpec } from './fixtures.js';

const P = 'spec.providerSpec.value';

function invalid(value: unknown): InvalidMachineConfigurationError {
  try {
    decodeProviderSpec(value, { clusterId: 'c1' });
  } catch (err) {
    expect(err).to.be.instanceOf(InvalidMachineConfigurationError);
    return err as InvalidMachineConfigurationError;
  }
  throw new Error('expected the spec to be rejected');
}

describe('GCP providerSpec decoding', () => {
  it('decodes every field of a full spec', () => {
    const { spec, unknownFields } = decodeProviderSpec(
      gcpSpec({
        projectID: 'other-project',
        gcpMetadata: [{ key: 'k', value: 'v' }],
        targetPools: ['c1-api'],
        preemptible: true,
        onHostMaintenance: 'Terminate',
        restartPolicy: 'Never',
        shieldedInstanceConfig: {
          secureBoot: 'Enabled',
          virtualizedTrustedPlatformModule: 'Enabled',
          integrityMonitoring: 'Enabled',
        },
        confidentialCompute: 'Disabled',
        resourceManagerTags: [{ parentID: 'my-project', key: 'env', value: 'prod' }],
        canIPForward: true,
        deletionProtection: true,
      }),
    );
    expect(unknownFields).to.deep.equal([]);
    expect(spec).to.include({
      machineType: 'n2-standard-4',
      region: 'us-central1',
      zone: 'us-central1-a',
      projectID: 'other-project',
      preemptible: true,
      canIPForward: true,
      deletionProtection: true,
    });
    expect(spec.gcpMetadata).to.deep.equal([{ key: 'k', value: 'v' }]);
    expect(spec.targetPools).to.deep.equal(['c1-api']);
    expect(spec.shieldedInstanceConfig.secureBoot).to.equal('Enabled');
    expect(spec.resourceManagerTags).to.deep.equal([{ parentID: 'my-project', key: 'env', value: 'prod' }]);
    expect(spec.disks[0]).to.include({ boot: true, autoDelete: true, sizeGb: 128, type: 'pd-ssd' });
  });

  it('applies the webhook defaults: machine type, secrets, network, tags, disk type and a GPU count of 1', () => {
    const { spec, warnings } = decodeProviderSpec(
      {
        region: 'us-central1',
        zone: 'us-central1-b',
        disks: [{ boot: true, image: 'img' }],
        gpus: [{ type: 'nvidia-tesla-t4' }],
        onHostMaintenance: 'Terminate',
      },
      { clusterId: 'c1' },
    );
    expect(spec.machineType).to.equal('n1-standard-4');
    expect(warnings.join()).to.contain('n1-standard-4');
    expect(spec.userDataSecret).to.deep.equal({ name: 'worker-user-data' });
    expect(spec.credentialsSecret).to.deep.equal({ name: 'gcp-cloud-credentials' });
    expect(spec.networkInterfaces).to.deep.equal([{ network: 'c1-network', subnetwork: 'c1-worker-subnet' }]);
    expect(spec.tags).to.deep.equal(['c1-worker']);
    expect(spec.disks[0]?.type).to.equal('pd-standard');
    expect(spec.gpus?.[0]?.count).to.equal(1);
  });

  it('defaults the disk list to one boot disk with the cluster image, and arm64 control planes to t2a', () => {
    const { spec } = decodeProviderSpec(
      { region: 'us-central1', zone: 'us-central1-b' },
      { clusterId: 'c1', defaultImage: 'rhcos', defaultArchitecture: 'arm64' },
    );
    expect(spec.disks).to.deep.equal([
      { autoDelete: true, boot: true, sizeGb: 128, type: 'pd-standard', image: 'rhcos' },
    ]);
    expect(spec.machineType).to.equal('t2a-standard-4');
  });

  it('reports unknown fields instead of dropping them silently', () => {
    const { unknownFields, warnings } = decodeProviderSpec(gcpSpec({ machineTyp: 'x' }));
    expect(unknownFields).to.deep.equal([`${P}.machineTyp`]);
    expect(warnings.join()).to.contain(`${P}.machineTyp`);
  });

  const cases: Array<[string, Record<string, unknown>, string]> = [
    ['a wrong type', { canIPForward: 'yes' }, `${P}.canIPForward`],
    ['a missing region', { region: '' }, `${P}.region`],
    ['a zone outside the region', { zone: 'europe-west1-b' }, `${P}.zone`],
    ['an unknown provisioning model', { provisioningModel: 'Cheap' }, `${P}.provisioningModel`],
    ['preemptible together with Spot', { preemptible: true, provisioningModel: 'Spot' }, `${P}.preemptible`],
    ['an unknown onHostMaintenance', { onHostMaintenance: 'Sometimes' }, `${P}.onHostMaintenance`],
    [
      'restartPolicy Always on a spot instance',
      { provisioningModel: 'Spot', onHostMaintenance: 'Terminate', restartPolicy: 'Always' },
      `${P}.restartPolicy`,
    ],
    [
      'a shielded setting that is not Enabled/Disabled',
      { shieldedInstanceConfig: { secureBoot: 'On' } },
      `${P}.shieldedInstanceConfig.secureBoot`,
    ],
    [
      'integrity monitoring without vTPM',
      { shieldedInstanceConfig: { virtualizedTrustedPlatformModule: 'Disabled' } },
      `${P}.shieldedInstanceConfig.integrityMonitoring`,
    ],
    ['an unknown confidentialCompute', { confidentialCompute: 'Maybe' }, `${P}.confidentialCompute`],
    [
      'two GPU types',
      {
        machineType: 'n1-standard-4',
        onHostMaintenance: 'Terminate',
        gpus: [
          { type: 'nvidia-tesla-t4', count: 1 },
          { type: 'nvidia-tesla-v100', count: 1 },
        ],
      },
      `${P}.gpus`,
    ],
    [
      'GPUs on an A2 type',
      { machineType: 'a2-highgpu-1g', onHostMaintenance: 'Terminate', gpus: [{ type: 'nvidia-tesla-t4', count: 1 }] },
      `${P}.gpus`,
    ],
    [
      'GPUs that would live-migrate',
      { machineType: 'n1-standard-4', gpus: [{ type: 'nvidia-tesla-t4', count: 1 }] },
      `${P}.onHostMaintenance`,
    ],
    ['a boot disk without an image', { disks: [{ boot: true, sizeGb: 10 }] }, `${P}.disks[0].image`],
    ['an empty target pool name', { targetPools: ['ok', ''] }, `${P}.targetPools[1]`],
    ['an upper-case label key', { labels: { Team: 'x' } }, `${P}.labels.Team`],
    ['a network tag with spaces', { tags: ['a b'] }, `${P}.tags[0]`],
    [
      'a malformed resource manager tag key',
      { resourceManagerTags: [{ parentID: 'my-project', key: '-bad', value: 'v' }] },
      `${P}.resourceManagerTags[0].key`,
    ],
    ['a path in the region', { region: '../us-central1', zone: '../us-central1-a' }, `${P}.region`],
    ['a path in the projectID', { projectID: '../other' }, `${P}.projectID`],
    ['a projectID shorter than 6 characters', { projectID: 'abc' }, `${P}.projectID`],
    ['a projectID longer than 30 characters', { projectID: `p${'x'.repeat(30)}` }, `${P}.projectID`],
    [
      'a network interface projectID ending in "-"',
      { networkInterfaces: [{ network: 'n', projectID: 'host-project-' }] },
      `${P}.networkInterfaces[0].projectID`,
    ],
    ['a 5 MB machineType', { machineType: 'n'.repeat(5 * 1024 * 1024) }, `${P}.machineType`],
    ['a disk beyond 64 TB', { disks: [{ boot: true, image: 'i', sizeGb: 1e12 }] }, `${P}.disks[0].sizeGb`],
    [
      'more GPUs than an instance takes',
      {
        machineType: 'n1-standard-4',
        onHostMaintenance: 'Terminate',
        gpus: [{ type: 'nvidia-tesla-t4', count: 1000 }],
      },
      `${P}.gpus[0].count`,
    ],
    [
      'a "__proto__" label',
      { labels: JSON.parse('{"__proto__":"x"}') as Record<string, string> },
      `${P}.labels.__proto__`,
    ],
    [
      'a KMS key without a key ring',
      { disks: [{ boot: true, image: 'i', encryptionKey: { kmsKey: { name: 'k', location: 'global' } } }] },
      `${P}.disks[0].encryptionKey.kmsKey.keyRing`,
    ],
  ];
  for (const [what, extra, field] of cases) {
    it(`rejects ${what}, naming ${field}`, () => {
      const err = invalid(gcpSpec(extra));
      expect(err.field).to.equal(field);
      expect(err.message).to.contain(field);
    });
  }

  it('lists every problem in one error, the first one as its field', () => {
    const err = invalid(gcpSpec({ region: '', provisioningModel: 'Cheap' }));
    expect(err.message).to.contain(`${P}.region`).and.to.contain(`${P}.provisioningModel`);
  });

  it('reads structurally without validating (for MachineSet templates)', () => {
    const { spec, errors } = readProviderSpec(
      { machineType: 't2a-standard-4', zone: 'us-central1-a', region: 7 },
      { path: 'spec.template.spec.providerSpec.value' },
    );
    expect(spec.machineType).to.equal('t2a-standard-4');
    expect(errors.map((e) => e.field)).to.deep.equal(['spec.template.spec.providerSpec.value.region']);
  });
});

describe('GCP providerStatus', () => {
  it('round-trips in the reference shape, with metadata {} and the instance name as instanceId', () => {
    const encoded = encodeProviderStatus({ instanceId: 'm1', instanceState: 'RUNNING' });
    expect(encoded).to.deep.equal({
      apiVersion: 'machine.openshift.io/v1beta1',
      kind: 'GCPMachineProviderStatus',
      metadata: {},
      instanceId: 'm1',
      instanceState: 'RUNNING',
    });
    expect(decodeProviderStatus(encoded)).to.deep.include({ instanceId: 'm1', instanceState: 'RUNNING' });
  });

  it('reads a malformed status as empty', () => {
    expect(decodeProviderStatus('nonsense')).to.deep.equal({});
    expect(decodeProviderStatus({ instanceId: 7, conditions: [{ nope: 1 }] })).to.deep.equal({ conditions: [] });
  });
});
