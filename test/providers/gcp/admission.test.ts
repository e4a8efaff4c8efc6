// The GCP admission plug-in through the webhooks: the reference webhook's defaults (machine type, boot disk,
// network, subnetwork and tags from the cluster ID, Secrets, GPU count) persisted as a JSON Patch, and the
// actuator's validation as denials naming the full field path.
import { expect } from 'chai';
import {
  mutateMachineAdmission,
  mutateMachineSetAdmission,
  validateMachineAdmission,
  validateMachineSetAdmission,
  type MachineWebhookOptions,
} from '../../../lib/index.js';
import {
  DEFAULT_DISK_IMAGE_AMD64,
  DEFAULT_DISK_IMAGE_ARM64,
  gcpMachineAdmission,
} from '../../../providers/gcp/index.js';
import { infrastructure, machineRequest, machineSetRequest, patchOf, secretsNamed } from '../admission-requests.js';
import { gcpSpec } from './fixtures.js';

const options = (arch: 'amd64' | 'arm64' = 'amd64'): MachineWebhookOptions => ({
  infrastructure: infrastructure('GCP', { gcp: { projectID: 'p', region: 'us-central1' } }, arch),
  plugin: gcpMachineAdmission,
  secrets: secretsNamed('gcp-cloud-credentials'),
});

const P = '/spec/providerSpec/value';

describe('GCP admission', () => {
  describe('defaulting', () => {
    it('writes machine type, boot disk, network, subnetwork, tags and both Secrets from the cluster ID, as the reference does', () => {
      const res = mutateMachineAdmission(machineRequest({ region: 'us-central1', zone: 'us-central1-a' }), options());
      expect(patchOf(res)).to.have.deep.members([
        { op: 'add', path: `${P}/userDataSecret`, value: { name: 'worker-user-data' } },
        { op: 'add', path: `${P}/credentialsSecret`, value: { name: 'gcp-cloud-credentials' } },
        {
          op: 'add',
          path: `${P}/disks`,
          value: [{ autoDelete: true, boot: true, sizeGb: 128, type: 'pd-standard', image: DEFAULT_DISK_IMAGE_AMD64 }],
        },
        {
          op: 'add',
          path: `${P}/networkInterfaces`,
          value: [{ network: 'demo-x7k2p-network', subnetwork: 'demo-x7k2p-worker-subnet' }],
        },
        { op: 'add', path: `${P}/tags`, value: ['demo-x7k2p-worker'] },
        { op: 'add', path: `${P}/machineType`, value: 'n1-standard-4' },
      ]);
      expect(res.warnings).to.deep.equal([
        'setting the default instance type "n1-standard-4" for cloud provider "GCP", based on the control plane architecture ("amd64")',
      ]);
    });

    it('picks t2a-standard-4 and the aarch64 image on an arm64 control plane', () => {
      const ops = patchOf(
        mutateMachineAdmission(
          machineRequest({ region: 'us-central1', zone: 'us-central1-a', disks: [{ boot: true }] }),
          options('arm64'),
        ),
      ) as Array<{ path: string; value: unknown }>;
      expect(ops).to.deep.include({ op: 'add', path: `${P}/machineType`, value: 't2a-standard-4' });
      expect(ops).to.deep.include({ op: 'add', path: `${P}/disks/0/image`, value: DEFAULT_DISK_IMAGE_ARM64 });
      expect(ops).to.deep.include({ op: 'add', path: `${P}/disks/0/type`, value: 'pd-standard' });
    });

    it('sets a GPU count left out to 1, and changes nothing else in a complete spec', () => {
      const res = mutateMachineSetAdmission(
        machineSetRequest(gcpSpec({ gpus: [{ type: 'nvidia-tesla-t4' }], onHostMaintenance: 'Terminate' })),
        options(),
      );
      expect(patchOf(res)).to.deep.equal([
        { op: 'add', path: '/spec/template/spec/providerSpec/value/gpus/0/count', value: 1 },
      ]);
      expect(mutateMachineAdmission(machineRequest(gcpSpec()), options())).to.deep.equal({
        uid: 'uid-m',
        allowed: true,
      });
    });
  });

  describe('validation', () => {
    it('admits the sample spec', async () => {
      const res = await validateMachineAdmission(machineRequest(gcpSpec()), options());
      expect(res).to.deep.equal({ uid: 'uid-m', allowed: true });
    });

    it('denies a MachineSet naming the field from the MachineSet root and the rule', async () => {
      const res = await validateMachineSetAdmission(machineSetRequest(gcpSpec({ zone: 'europe-west1-b' })), options());
      expect(res.status?.message).to.equal(
        'spec.template.spec.providerSpec.value.zone: Invalid value: "europe-west1-b": zone not in configured region (us-central1)',
      );
    });

    it('warns about unknown fields, no service account and a missing credentials Secret', async () => {
      const res = await validateMachineAdmission(
        machineRequest(gcpSpec({ serviceAccounts: [], credentialsSecret: { name: 'nope' }, shape: 'round' })),
        options(),
      );
      expect(res.allowed).to.equal(true);
      expect(res.warnings).to.have.members([
        'Unknown field (spec.providerSpec.value.shape) will be ignored',
        'providerSpec.serviceAccounts: no service account set; the instance gets no Google credentials',
        'spec.providerSpec.value.credentialsSecret: Invalid value: "nope": not found. Expected CredentialsSecret to exist',
      ]);
    });
  });
});
