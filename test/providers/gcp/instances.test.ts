import { expect } from 'chai';
import { InvalidMachineConfigurationError } from '../../../lib/index.js';
import {
  addressesOf,
  buildInstance,
  buildLabels,
  decodeProviderSpec,
  deleteRequestIdFor,
  machineLabelsFor,
  providerIdOf,
  requestIdFor,
  userDataItem,
  type InstanceInputs,
} from '../../../providers/gcp/index.js';
import { stateToRecord } from '../../../providers/gcp/instances.js';
import { CLUSTER_ID, PROJECT, gcpSpec, machine } from './fixtures.js';

const inputs = (over: Partial<InstanceInputs> = {}): InstanceInputs => ({
  project: PROJECT,
  clusterId: CLUSTER_ID,
  userData: 'ignition',
  ...over,
});
const build = (
  extra: Record<string, unknown> = {},
  over: Partial<InstanceInputs> = {},
  m = machine('m1', gcpSpec(extra)),
) => buildInstance(m, decodeProviderSpec(m.spec?.providerSpec?.value).spec, inputs(over));

describe('GCE instance requests built from a Machine', () => {
  it('names the instance after the Machine and builds the insert body as the reference does', () => {
    const i = build();
    expect(i.name).to.equal('m1');
    expect(i.machineType).to.equal('zones/us-central1-a/machineTypes/n2-standard-4');
    expect(i.labels).to.deep.equal({ team: 'machines', [`kubernetes-io-cluster-${CLUSTER_ID}`]: 'owned' });
    expect(i.tags).to.deep.equal({ items: [`${CLUSTER_ID}-worker`] });
    expect(i.networkInterfaces).to.deep.equal([
      {
        network: `projects/${PROJECT}/global/networks/${CLUSTER_ID}-network`,
        subnetwork: `projects/${PROJECT}/regions/us-central1/subnetworks/${CLUSTER_ID}-worker-subnet`,
        accessConfigs: [],
      },
    ]);
    expect(i.disks?.[0]).to.deep.include({ autoDelete: true, boot: true });
    expect(i.disks?.[0]?.initializeParams).to.deep.include({
      diskSizeGb: '128',
      diskType: 'zones/us-central1-a/diskTypes/pd-ssd',
      sourceImage: 'projects/rhcos-cloud/global/images/rhcos-9-6-20251023-0-gcp-x86-64',
    });
    expect(i.metadata?.items).to.deep.equal([{ key: 'user-data', value: 'ignition' }]);
    expect(i.shieldedInstanceConfig).to.deep.equal({
      enableSecureBoot: false,
      enableVtpm: true,
      enableIntegrityMonitoring: true,
    });
    expect(i.serviceAccounts?.[0]?.email).to.contain('@test-project.iam.gserviceaccount.com');
  });

  it('gives a public NIC one access config and resolves a bare image name in the project', () => {
    const i = build({
      networkInterfaces: [{ network: 'n', publicIP: true, projectID: 'host-project' }],
      disks: [{ boot: true, image: 'my-image', sizeGb: 20 }],
    });
    expect(i.networkInterfaces?.[0]).to.deep.equal({
      network: 'projects/host-project/global/networks/n',
      accessConfigs: [{}],
    });
    expect(i.disks?.[0]?.initializeParams?.sourceImage).to.equal(
      `https://compute.googleapis.com/compute/v1/projects/${PROJECT}/global/images/my-image`,
    );
  });

  it('encrypts a disk with the KMS key, in the VM project unless the key names one', () => {
    const i = build({
      disks: [
        {
          boot: true,
          image: 'i',
          encryptionKey: { kmsKey: { name: 'k', keyRing: 'r', location: 'global' }, kmsKeyServiceAccount: 'sa@x' },
        },
      ],
    });
    expect(i.disks?.[0]?.diskEncryptionKey).to.deep.equal({
      kmsKeyName: `projects/${PROJECT}/locations/global/keyRings/r/cryptoKeys/k`,
      kmsKeyServiceAccount: 'sa@x',
    });
  });

  it('sends GCE enums upper case and turns automatic restart off for spot instances', () => {
    const i = build({ provisioningModel: 'Spot', onHostMaintenance: 'Terminate' });
    expect(i.scheduling).to.deep.equal({
      preemptible: false,
      onHostMaintenance: 'TERMINATE',
      provisioningModel: 'SPOT',
      automaticRestart: false,
    });
    expect(build({ restartPolicy: 'Always' }).scheduling).to.deep.equal({ preemptible: false, automaticRestart: true });
  });

  it('attaches GPUs (forcing TERMINATE) and sets confidential compute types', () => {
    const gpu = build({
      machineType: 'n1-standard-4',
      onHostMaintenance: 'Terminate',
      gpus: [{ type: 'nvidia-tesla-t4', count: 2 }],
    });
    expect(gpu.guestAccelerators).to.deep.equal([
      { acceleratorType: 'zones/us-central1-a/acceleratorTypes/nvidia-tesla-t4', acceleratorCount: 2 },
    ]);
    const snp = build({
      machineType: 'n2d-standard-4',
      onHostMaintenance: 'Terminate',
      confidentialCompute: 'AMDEncryptedVirtualizationNestedPaging',
    });
    expect(snp.confidentialInstanceConfig).to.deep.equal({
      enableConfidentialCompute: true,
      confidentialInstanceType: 'SEV_SNP',
    });
    expect(build({ confidentialCompute: 'Disabled' }).confidentialInstanceConfig).to.equal(undefined);
  });

  it('turns Shielded VM off for a non-UEFI image only when the spec leaves it unset', () => {
    expect(build({}, { uefiCompatible: false }).shieldedInstanceConfig).to.deep.equal({
      enableSecureBoot: false,
      enableVtpm: false,
      enableIntegrityMonitoring: false,
    });
    const explicit = build({ shieldedInstanceConfig: { secureBoot: 'Enabled' } }, { uefiCompatible: false });
    expect(explicit.shieldedInstanceConfig?.enableSecureBoot).to.equal(true);
  });

  it('binds resource manager tags on the instance and its disks', () => {
    const i = build({}, { resourceManagerTags: { 'tagKeys/1': 'tagValues/2' } });
    expect(i.params).to.deep.equal({ resourceManagerTags: { 'tagKeys/1': 'tagValues/2' } });
    expect(i.disks?.[0]?.initializeParams?.resourceManagerTags).to.deep.equal({ 'tagKeys/1': 'tagValues/2' });
    expect(build().params).to.equal(undefined);
  });

  it('lets a gcpMetadata item under the user-data key replace the Secret, and keeps other items once', () => {
    const i = build({
      gcpMetadata: [
        { key: 'user-data', value: 'override' },
        { key: 'a', value: '1' },
        { key: 'a', value: '2' },
      ],
    });
    expect(i.metadata?.items).to.deep.equal([
      { key: 'user-data', value: 'override' },
      { key: 'a', value: '1' },
    ]);
  });

  it('puts Windows user data under the sysprep key without its powershell wrapper', () => {
    const m = machine('w1');
    m.metadata.labels = { ...m.metadata.labels, 'machine.openshift.io/os-id': 'Windows' };
    expect(userDataItem(m, '<powershell>Do-It</powershell>\n<persist>true</persist>')).to.deep.equal({
      key: 'sysprep-specialize-script-ps1',
      value: 'Do-It',
    });
  });
});

describe('GCE labels', () => {
  it('rank infrastructure below the spec and the ownership label above both', () => {
    expect(
      buildLabels('c1', { a: 'spec', 'kubernetes-io-cluster-c1': 'mine' }, { a: 'infra', b: 'infra' }),
    ).to.deep.equal({ a: 'spec', b: 'infra', 'kubernetes-io-cluster-c1': 'owned' });
  });

  it('refuse more than 32 user labels, naming the field', () => {
    const many = Object.fromEntries(Array.from({ length: 33 }, (_, i) => [`k${i}`, 'v']));
    expect(() => buildLabels('c1', many)).to.throw(InvalidMachineConfigurationError, /32/);
  });
});

describe('GCE request ids', () => {
  it('are UUIDs, stable for a Machine and purpose, and change with the attempt', () => {
    const a = requestIdFor('uid-1', 'insert');
    expect(a).to.match(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(requestIdFor('uid-1', 'insert')).to.equal(a);
    expect(requestIdFor('uid-1', 'insert', 1)).to.not.equal(a);
    expect(requestIdFor('uid-2', 'insert')).to.not.equal(a);
  });

  it('use the Machine UID itself for delete when it is a UUID', () => {
    expect(deleteRequestIdFor('2f0c6a1e-8e77-4a3b-9b3a-5f2d3c4b5a69')).to.equal('2f0c6a1e-8e77-4a3b-9b3a-5f2d3c4b5a69');
    expect(deleteRequestIdFor('not-a-uuid')).to.match(/^[0-9a-f-]{36}$/);
  });
});

describe('what a Machine records from its instance', () => {
  it('has a gce:// providerID, the internal and NAT IPs and the three internal DNS names', () => {
    expect(providerIdOf('p', 'z', 'n')).to.equal('gce://p/z/n');
    const addrs = addressesOf(
      {
        name: 'm1',
        networkInterfaces: [{ networkIP: '10.0.0.2', accessConfigs: [{ natIP: '34.1.2.3' }, { natIP: '' }] }],
      },
      'p',
      'us-central1-a',
    );
    expect(addrs).to.deep.equal([
      { type: 'InternalIP', address: '10.0.0.2' },
      { type: 'ExternalIP', address: '34.1.2.3' },
      { type: 'InternalDNS', address: 'm1.us-central1-a.c.p.internal' },
      { type: 'InternalDNS', address: 'm1.c.p.internal' },
      { type: 'InternalDNS', address: 'm1' },
    ]);
  });

  it('labels the Machine with the spec machine type, region and zone', () => {
    const { spec } = decodeProviderSpec(gcpSpec());
    expect(machineLabelsFor(spec)).to.deep.equal({
      'machine.openshift.io/instance-type': 'n2-standard-4',
      'machine.openshift.io/region': 'us-central1',
      'machine.openshift.io/zone': 'us-central1-a',
    });
  });

  it('records every state as it comes, except that a boot moving PROVISIONING to STAGING keeps the booting state on record', () => {
    expect(stateToRecord(undefined, { status: 'PROVISIONING' })).to.equal('PROVISIONING');
    expect(stateToRecord('PROVISIONING', { status: 'STAGING' })).to.equal('PROVISIONING');
    expect(stateToRecord('PROVISIONING', { status: 'RUNNING' })).to.equal('RUNNING');
    expect(stateToRecord('RUNNING', { status: 'STAGING' })).to.equal('STAGING');
    expect(stateToRecord('STOPPING', { status: 'TERMINATED' })).to.equal('TERMINATED');
  });
});
