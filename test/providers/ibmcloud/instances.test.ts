import { expect } from 'chai';
import { InvalidMachineConfigurationError } from '../../../lib/index.js';
import {
  addressesOf,
  buildInstancePrototype,
  clusterIdOf,
  instanceNameOf,
  machineLabelsFor,
  providerIdOf,
  stateToRecord,
  tagNamesOf,
  isBooting,
  type ResolvedIds,
} from '../../../providers/ibmcloud/instances.js';
import { decodeProviderSpec } from '../../../providers/ibmcloud/provider-spec.js';
import type { VpcInstance } from '../../../providers/ibmcloud/vpc-types.js';
import { ibmSpec, machine, vpcInstance } from './fixtures.js';

const ids: ResolvedIds = {
  resourceGroupId: 'rg-1',
  vpcId: 'vpc-1',
  imageId: 'img-1',
  subnetId: 'sn-1',
  securityGroupIds: ['sg-1', 'sg-2'],
};
const spec = (extra: Record<string, unknown> = {}) => decodeProviderSpec(ibmSpec(extra)).spec;

const instance = (address: string): VpcInstance =>
  vpcInstance({ id: '0717_i', crn: 'crn:i', primary_network_interface: { id: 'nic', primary_ip: { address } } });

describe('IBM Cloud instance builders', () => {
  it('builds the reference create body: ids, profile, zone, NIC with security groups, user data always sent', () => {
    expect(buildInstancePrototype('worker-1', spec(), ids, '')).to.deep.equal({
      name: 'worker-1',
      image: { id: 'img-1' },
      profile: { name: 'bx2-4x16' },
      zone: { name: 'us-south-1' },
      resource_group: { id: 'rg-1' },
      vpc: { id: 'vpc-1' },
      primary_network_interface: { subnet: { id: 'sn-1' }, security_groups: [{ id: 'sg-1' }, { id: 'sg-2' }] },
      user_data: '',
    });
  });

  it('omits security_groups when there are none and adds the dedicated host as placement target', () => {
    const p = buildInstancePrototype('w', spec(), { ...ids, securityGroupIds: [], dedicatedHostId: 'dh-1' }, 'ud');
    expect(p.primary_network_interface).to.deep.equal({ subnet: { id: 'sn-1' } });
    expect(p.placement_target).to.deep.equal({ id: 'dh-1' });
  });

  it('sends a boot volume only when a field is set, defaulting the profile to general-purpose', () => {
    expect(buildInstancePrototype('w', spec(), ids, '').boot_volume_attachment).to.equal(undefined);
    expect(
      buildInstancePrototype('w', spec({ bootVolume: { sizeGiB: 120 } }), ids, '').boot_volume_attachment,
    ).to.deep.equal({
      volume: { profile: { name: 'general-purpose' }, capacity: 120 },
    });
    expect(
      buildInstancePrototype(
        'w',
        spec({ bootVolume: { encryptionKey: 'crn:v1:k', profile: 'sdp', sizeGiB: 100, iops: 3000, bandwidth: 1000 } }),
        ids,
        '',
      ).boot_volume_attachment,
    ).to.deep.equal({
      volume: {
        profile: { name: 'sdp' },
        capacity: 100,
        iops: 3000,
        bandwidth: 1000,
        encryption_key: { crn: 'crn:v1:k' },
      },
    });
  });

  it('writes the providerID with three slashes after the account', () => {
    expect(providerIdOf('acct', 'infra-x', '0717_abc')).to.equal('ibm://acct///infra-x/0717_abc');
  });

  it('never records the unallocated 0.0.0.0 as an address', () => {
    expect(addressesOf('m', instance('0.0.0.0'))).to.deep.equal([{ type: 'InternalDNS', address: 'm' }]);
    expect(addressesOf('m', instance('10.241.1.4'))).to.deep.equal([
      { type: 'InternalDNS', address: 'm' },
      { type: 'InternalIP', address: '10.241.1.4' },
    ]);
  });

  it('survives an instance without a primary network interface (the reference panics)', () => {
    const { primary_network_interface: _, ...bare } = instance('10.0.0.1');
    expect(addressesOf('m', bare)).to.deep.equal([{ type: 'InternalDNS', address: 'm' }]);
  });

  it('labels region, zone and instance type from the spec', () => {
    expect(machineLabelsFor(spec())).to.deep.equal({
      'machine.openshift.io/region': 'us-south',
      'machine.openshift.io/zone': 'us-south-1',
      'machine.openshift.io/instance-type': 'bx2-4x16',
    });
  });

  it('turns tags into Global Tagging names', () => {
    expect(tagNamesOf(spec({ tags: [{ name: 'env', value: 'prod' }, { name: 'team' }] }))).to.deep.equal([
      'env:prod',
      'team',
    ]);
  });

  it('rejects a machine name the VPC would refuse as an instance name, naming metadata.name', () => {
    const m = machine('Worker_1');
    expect(() => instanceNameOf(m))
      .to.throw(InvalidMachineConfigurationError)
      .with.property('field', 'metadata.name');
    expect(instanceNameOf(machine('worker-1'))).to.equal('worker-1');
  });

  it('requires the cluster-ID label', () => {
    const m = machine('w');
    m.metadata.labels = {};
    expect(() => clusterIdOf(m)).to.throw(InvalidMachineConfigurationError, 'machine.openshift.io/cluster-api-cluster');
  });

  it('keeps a booting state already recorded through pending → starting, and records every other state as is', () => {
    const at = (status: VpcInstance['status']): VpcInstance => ({ ...instance('10.0.0.4'), status });
    expect(stateToRecord(undefined, at('pending'))).to.equal('pending');
    expect(stateToRecord('pending', at('starting'))).to.equal('pending');
    expect(stateToRecord('pending', at('running'))).to.equal('running');
    expect(stateToRecord('running', at('starting'))).to.equal('starting');
    expect(stateToRecord('stopping', at('stopped'))).to.equal('stopped');
  });

  it('counts pending and starting as booting', () => {
    const at = (status: VpcInstance['status']): VpcInstance => ({ ...instance('10.0.0.4'), status });
    expect((['pending', 'starting', 'running', 'stopped'] as const).map((st) => isBooting(at(st)))).to.deep.equal([
      true,
      true,
      false,
      false,
    ]);
  });
});
