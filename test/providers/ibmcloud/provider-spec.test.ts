import { expect } from 'chai';
import { InvalidMachineConfigurationError } from '../../../lib/index.js';
import {
  decodeProviderSpec,
  decodeProviderStatus,
  encodeProviderStatus,
  networkResourceGroupOf,
  readProviderSpec,
  setCondition,
  type IBMCloudMachineProviderStatus,
} from '../../../providers/ibmcloud/provider-spec.js';
import { ibmSpec } from './fixtures.js';

const P = 'spec.providerSpec.value';

function invalid(value: unknown): InvalidMachineConfigurationError {
  try {
    decodeProviderSpec(value);
  } catch (err) {
    expect(err).to.be.instanceOf(InvalidMachineConfigurationError);
    return err as InvalidMachineConfigurationError;
  }
  throw new Error('expected the spec to be rejected');
}

describe('IBM Cloud providerSpec', () => {
  describe('decoding', () => {
    it('reads the reference serialization, full boot volume included', () => {
      const { spec, unknownFields } = decodeProviderSpec({
        metadata: {},
        vpc: 'test-vpc',
        bootVolume: {
          encryptionKey: 'crn:v1:bluemix:public:kms:us-east:a/key',
          profile: 'sdp',
          sizeGiB: 100,
          iops: 3000,
          bandwidth: 1000,
        },
        image: 'test-instance-image',
        profile: 'bx2d-32x128',
        dedicatedHost: 'dedicated-host-name',
        region: 'us-east',
        zone: 'us-east-1',
        resourceGroup: 'aaab-bbbc-cccd-zzzz-xxxx',
        primaryNetworkInterface: {
          subnet: 'test-subnet',
          securityGroups: ['test-security-group-1', 'test-security-group-2'],
        },
        userDataSecret: { name: 'userData' },
        credentialsSecret: { name: 'credentialKey' },
      });
      expect(unknownFields).to.deep.equal([]);
      expect(spec.bootVolume).to.deep.equal({
        encryptionKey: 'crn:v1:bluemix:public:kms:us-east:a/key',
        profile: 'sdp',
        sizeGiB: 100,
        iops: 3000,
        bandwidth: 1000,
      });
      expect(spec.dedicatedHost).to.equal('dedicated-host-name');
      expect(spec.primaryNetworkInterface.securityGroups).to.deep.equal([
        'test-security-group-1',
        'test-security-group-2',
      ]);
      expect(networkResourceGroupOf(spec)).to.equal('aaab-bbbc-cccd-zzzz-xxxx');
    });

    it('treats the always-serialized empty encryptionKey as unset', () => {
      expect(decodeProviderSpec(ibmSpec()).spec.bootVolume).to.deep.equal({});
    });

    it('reports unknown fields with their paths instead of dropping them silently', () => {
      const { unknownFields, warnings } = decodeProviderSpec(
        ibmSpec({ instanceType: 'bx2-4x16', primaryNetworkInterface: { subnet: 's', securityGroup: 'x' } }),
      );
      expect(unknownFields).to.have.members([`${P}.instanceType`, `${P}.primaryNetworkInterface.securityGroup`]);
      expect(warnings.join('\n')).to.contain(`Unknown field (${P}.instanceType)`);
    });

    it('uses networkResourceGroup for network look-ups when it is set', () => {
      expect(networkResourceGroupOf(decodeProviderSpec(ibmSpec({ networkResourceGroup: 'net-rg' })).spec)).to.equal(
        'net-rg',
      );
    });

    it('names the field of a wrongly typed value', () => {
      const { errors } = readProviderSpec(ibmSpec({ bootVolume: { sizeGiB: '100' } }));
      expect(errors.map((e) => e.field)).to.deep.equal([`${P}.bootVolume.sizeGiB`]);
    });
  });

  describe('validation', () => {
    const cases: Array<[string, Record<string, unknown>, string]> = [
      ['a missing vpc', { vpc: '' }, `${P}.vpc`],
      ['a missing image', { image: undefined }, `${P}.image`],
      ['a missing profile', { profile: '' }, `${P}.profile`],
      ['a zone outside the region', { zone: 'eu-de-1' }, `${P}.zone`],
      ['a missing resource group', { resourceGroup: '' }, `${P}.resourceGroup`],
      [
        'a missing subnet',
        { primaryNetworkInterface: { securityGroups: ['a'] } },
        `${P}.primaryNetworkInterface.subnet`,
      ],
      [
        'a duplicate security group',
        { primaryNetworkInterface: { subnet: 's', securityGroups: ['a', 'a'] } },
        `${P}.primaryNetworkInterface.securityGroups[1]`,
      ],
      ['a missing credentials Secret', { credentialsSecret: undefined }, `${P}.credentialsSecret.name`],
      ['an unknown boot volume profile', { bootVolume: { profile: 'ultra' } }, `${P}.bootVolume.profile`],
      ['a boot volume above the gen-1 limit', { bootVolume: { sizeGiB: 300 } }, `${P}.bootVolume.sizeGiB`],
      ['iops on general-purpose', { bootVolume: { iops: 3000 } }, `${P}.bootVolume.iops`],
      ['bandwidth on custom', { bootVolume: { profile: 'custom', bandwidth: 1000 } }, `${P}.bootVolume.bandwidth`],
      [
        'an encryption key that is not a CRN',
        { bootVolume: { encryptionKey: 'my-key' } },
        `${P}.bootVolume.encryptionKey`,
      ],
      ['a tag without a name', { tags: [{ value: 'x' }] }, `${P}.tags[0].name`],
      ['a tag with a forbidden character', { tags: [{ name: 'a', value: 'b/c' }] }, `${P}.tags[0].value`],
    ];
    for (const [what, extra, field] of cases) {
      it(`rejects ${what}, naming ${field}`, () => {
        const err = invalid(ibmSpec(extra));
        expect(err.field).to.equal(field);
        expect(err.message).to.contain(field);
      });
    }

    it('checks the zone against the region only once the region is valid, so a region is never compiled as a pattern', () => {
      // Region "(a|a)*$" once became part of a backtracking RegExp run against the zone: seconds per character.
      const hostile = invalid(ibmSpec({ region: '(a|a)*$', zone: `${'a'.repeat(40)}!` }));
      expect(hostile.field).to.equal(`${P}.region`);
      expect(hostile.message).not.to.contain(`${P}.zone`);
      // And "us-(south" once threw an untyped SyntaxError from the RegExp constructor.
      const unbalanced = invalid(ibmSpec({ region: 'us-(south', zone: 'us-(south-1' }));
      expect(unbalanced.field).to.equal(`${P}.region`);
    });

    it('accepts "<region>-<n>" zones only', () => {
      expect(() => decodeProviderSpec(ibmSpec({ region: 'us-south', zone: 'us-south-3' }))).not.to.throw();
      for (const zone of ['us-south-x', 'us-south-', 'us-southa1', 'us-south-1-1', 'us-south-1\n']) {
        expect(invalid(ibmSpec({ region: 'us-south', zone })).field, zone).to.equal(`${P}.zone`);
      }
    });

    it('rejects a region or VPC name longer than the cloud allows', () => {
      const region = `us-${'s'.repeat(40)}`;
      expect(invalid(ibmSpec({ region, zone: `${region}-1` })).field).to.equal(`${P}.region`);
      expect(invalid(ibmSpec({ vpc: 'v'.repeat(64) })).field).to.equal(`${P}.vpc`);
    });

    it('accepts an sdp boot volume up to 32000 GiB with iops and bandwidth', () => {
      expect(() =>
        decodeProviderSpec(ibmSpec({ bootVolume: { profile: 'sdp', sizeGiB: 32000, iops: 10000, bandwidth: 1000 } })),
      ).not.to.throw();
    });

    it('lists every problem in one error, naming the first field', () => {
      const err = invalid(ibmSpec({ vpc: '', image: '' }));
      expect(err.field).to.equal(`${P}.vpc`);
      expect(err.message).to.contain(`${P}.image`);
    });
  });

  describe('status', () => {
    it('round-trips instanceId, instanceState and conditions', () => {
      const status: IBMCloudMachineProviderStatus = { instanceId: '0717_abc', instanceState: 'running' };
      setCondition(
        status,
        {
          type: 'MachineCreated',
          status: 'True',
          reason: 'MachineCreationSucceeded',
          message: 'Machine successfully created',
        },
        '2026-01-01T00:00:00.000Z',
      );
      const encoded = encodeProviderStatus(status);
      expect(encoded).to.include({
        apiVersion: 'ibmcloudproviderconfig.openshift.io/v1beta1',
        kind: 'IBMCloudMachineProviderStatus',
        instanceId: '0717_abc',
        instanceState: 'running',
      });
      expect(encoded).not.to.have.property('metadata');
      expect(decodeProviderStatus(JSON.parse(JSON.stringify(encoded)))).to.deep.equal({
        ...status,
        apiVersion: encoded.apiVersion,
        kind: encoded.kind,
      });
    });

    it('reads a malformed status as empty', () => {
      expect(decodeProviderStatus('garbage')).to.deep.equal({});
    });

    it('moves lastTransitionTime only when the status flips, and lastProbeTime on every change', () => {
      const s: IBMCloudMachineProviderStatus = {};
      setCondition(s, { type: 'MachineCreated', status: 'False', reason: 'MachineCreationFailed', message: 'a' }, 't1');
      setCondition(s, { type: 'MachineCreated', status: 'False', reason: 'MachineCreationFailed', message: 'a' }, 't2');
      expect(s.conditions?.[0]).to.include({ lastTransitionTime: 't1', lastProbeTime: 't1' });
      setCondition(s, { type: 'MachineCreated', status: 'False', reason: 'MachineCreationFailed', message: 'b' }, 't3');
      expect(s.conditions?.[0]).to.include({ lastTransitionTime: 't1', lastProbeTime: 't3', message: 'b' });
      setCondition(
        s,
        { type: 'MachineCreated', status: 'True', reason: 'MachineCreationSucceeded', message: 'ok' },
        't4',
      );
      expect(s.conditions?.[0]).to.include({ lastTransitionTime: 't4', lastProbeTime: 't4', status: 'True' });
    });
  });
});
