// The AWS admission plug-in through the four webhooks: the reference webhook's defaults persisted as a JSON
// Patch, the actuator's own validation as denials naming the full field path, and its warnings.
import { expect } from 'chai';
import {
  mutateMachineAdmission,
  mutateMachineSetAdmission,
  validateMachineAdmission,
  validateMachineSetAdmission,
  type MachineWebhookOptions,
} from '../../../lib/index.js';
import { awsMachineAdmission } from '../../../providers/aws/index.js';
import { infrastructure, machineRequest, machineSetRequest, patchOf, secretsNamed } from '../admission-requests.js';
import { awsSpec } from './fixtures.js';

const options = (arch: 'amd64' | 'arm64' = 'amd64'): MachineWebhookOptions => ({
  infrastructure: infrastructure('AWS', { aws: { region: 'us-east-2' } }, arch),
  plugin: awsMachineAdmission,
  secrets: secretsNamed('aws-cloud-credentials'),
});

describe('AWS admission', () => {
  describe('defaulting', () => {
    it('writes the instance type, the cluster region and both Secrets as the reference does, with its warning', () => {
      const res = mutateMachineAdmission(
        machineRequest({ ami: { id: 'ami-0a1b2c3d4e5f00001' }, unknownThing: 1 }),
        options(),
      );
      expect(res.allowed).to.equal(true);
      expect(patchOf(res)).to.deep.equal([
        { op: 'add', path: '/spec/providerSpec/value/instanceType', value: 'm5.large' },
        { op: 'add', path: '/spec/providerSpec/value/placement', value: { region: 'us-east-2' } },
        { op: 'add', path: '/spec/providerSpec/value/userDataSecret', value: { name: 'worker-user-data' } },
        { op: 'add', path: '/spec/providerSpec/value/credentialsSecret', value: { name: 'aws-cloud-credentials' } },
      ]);
      expect(res.warnings).to.deep.equal([
        'setting the default instance type "m5.large" for cloud provider "AWS", based on the control plane architecture ("amd64")',
      ]);
    });

    it('picks m6g.large on an arm64 control plane', () => {
      const res = mutateMachineAdmission(
        machineRequest({ ami: { id: 'ami-1' }, placement: { region: 'eu-west-1' } }),
        options('arm64'),
      );
      expect(patchOf(res)).to.deep.include({
        op: 'add',
        path: '/spec/providerSpec/value/instanceType',
        value: 'm6g.large',
      });
      expect(patchOf(res)).to.not.deep.include({
        op: 'add',
        path: '/spec/providerSpec/value/placement/region',
        value: 'us-east-2',
      });
    });

    it('changes nothing in a complete spec', () => {
      expect(mutateMachineAdmission(machineRequest(awsSpec()), options())).to.deep.equal({
        uid: 'uid-m',
        allowed: true,
      });
    });

    it("defaults a userDataSecret without a name, and a MachineSet template's spec", () => {
      const res = mutateMachineSetAdmission(machineSetRequest(awsSpec({ userDataSecret: {} })), options());
      expect(patchOf(res)).to.deep.equal([
        { op: 'add', path: '/spec/template/spec/providerSpec/value/userDataSecret/name', value: 'worker-user-data' },
      ]);
    });
  });

  describe('validation', () => {
    it('admits the sample spec without warnings', async () => {
      expect(await validateMachineAdmission(machineRequest(awsSpec()), options())).to.deep.equal({
        uid: 'uid-m',
        allowed: true,
      });
    });

    it('denies a MachineSet naming the field from the MachineSet root and the rule', async () => {
      const res = await validateMachineSetAdmission(
        machineSetRequest(awsSpec({ placementGroupName: 'pg', placementGroupPartition: 9 })),
        options(),
      );
      expect(res.allowed).to.equal(false);
      expect(res.status?.message).to.equal(
        'spec.template.spec.providerSpec.value.placementGroupPartition: Invalid value: 9: providerSpec.placementGroupPartition must be between 1 and 7',
      );
    });

    it('denies a Machine with every issue listed, each with its path from the Machine root', async () => {
      const res = await validateMachineAdmission(
        machineRequest(
          awsSpec({ marketType: 'Cheap', placement: { region: 'us-east-1', availabilityZone: 'eu-west-1a' } }),
        ),
        options(),
      );
      expect(res.status?.message).to.equal(
        '[spec.providerSpec.value.marketType: Unsupported value: "Cheap": supported values: "OnDemand", "Spot", "CapacityBlock", ' +
          'spec.providerSpec.value.placement.availabilityZone: Invalid value: "eu-west-1a": must be a zone of region us-east-1, e.g. us-east-1a (at most 64 characters)]',
      );
    });

    it('forbids host tenancy on a control-plane Machine only', async () => {
      const spec = awsSpec({ placement: { region: 'us-east-1', tenancy: 'host', host: { affinity: 'AnyAvailable' } } });
      expect((await validateMachineAdmission(machineRequest(spec), options())).allowed).to.equal(true);
      const master = await validateMachineAdmission(
        machineRequest(spec, { labels: { 'machine.openshift.io/cluster-api-machine-role': 'master' } }),
        options(),
      );
      expect(master.status?.message).to.equal(
        'spec.providerSpec.value.placement.tenancy: Forbidden: host tenancy is not supported for control plane machines',
      );
    });

    it('warns about unknown fields, a missing credentials Secret, deprecated references and a missing IAM profile', async () => {
      const spec = awsSpec({
        credentialsSecret: { name: 'typo-credentials' },
        colour: 'blue',
        ami: { arn: 'arn:aws:ec2:::image/ami-1', id: 'ami-1' },
      });
      delete spec.iamInstanceProfile;
      const res = await validateMachineAdmission(machineRequest(spec), options());
      expect(res.allowed).to.equal(true);
      expect(res.warnings).to.have.members([
        'Unknown field (spec.providerSpec.value.colour) will be ignored',
        "can't use providerSpec.ami.arn, only providerSpec.ami.id can be used to reference AMI",
        'providerSpec.iamInstanceProfile: no IAM instance profile provided: nodes may be unable to join the cluster',
        'spec.providerSpec.value.credentialsSecret: Invalid value: "typo-credentials": not found. Expected CredentialsSecret to exist',
      ]);
    });

    it('denies a 5 MB string with a short message naming the field, in bounded time', async () => {
      const started = Date.now();
      const res = await validateMachineAdmission(
        machineRequest(awsSpec({ keyName: 'k'.repeat(5 * 1024 * 1024) })),
        options(),
      );
      expect(res.allowed).to.equal(false);
      expect(res.status?.message).to.match(
        /^spec\.providerSpec\.value\.keyName: Too long: "k{1,80}\.\.\.: may not be longer than 262144 characters$/,
      );
      expect(Date.now() - started).to.be.lessThan(5_000);
    });

    it('denies a providerSpec of the wrong shape with the field and the type it must have', async () => {
      const res = await validateMachineAdmission(machineRequest(awsSpec({ blockDevices: 'big' })), options());
      expect(res.status?.message).to.equal(
        'spec.providerSpec.value.blockDevices: Invalid value: "big": must be an array',
      );
    });
  });
});
