import type { Instance } from '@aws-sdk/client-ec2';
import { expect } from 'chai';
import { InvalidMachineConfigurationError, type Machine } from '../../../lib/index.js';
import {
  MACHINE_UID_TAG,
  addressesOf,
  belongsTo,
  buildRunInstancesInput,
  buildTags,
  clientTokenFor,
  clusterIdOf,
  dhcpDomainsOf,
  machineLabelsFor,
  missingTags,
  providerIdOf,
  sortOldestFirst,
} from '../../../providers/aws/instances.js';
import { decodeProviderConfig, type AWSMachineProviderConfig } from '../../../providers/aws/provider-spec.js';

const machine = (over: Partial<Machine['metadata']> = {}): Machine => ({
  metadata: {
    name: 'worker-a',
    namespace: 'openshift-machine-api',
    uid: 'uid-1',
    labels: { 'machine.openshift.io/cluster-api-cluster': 'infra-1' },
    ...over,
  },
});

const config = (extra: Record<string, unknown> = {}): AWSMachineProviderConfig =>
  decodeProviderConfig({
    ami: { id: 'ami-1' },
    instanceType: 'm6i.xlarge',
    placement: { region: 'us-east-1', availabilityZone: 'us-east-1a' },
    iamInstanceProfile: { id: 'worker-profile' },
    subnet: { filters: [{ name: 'tag:Name', values: ['a'] }] },
    ...extra,
  }).config;

const resolved = {
  imageId: 'ami-1',
  subnetId: 'subnet-1',
  securityGroupIds: ['sg-1', 'sg-2'],
  userData: Buffer.from('#!/bin/sh\necho hi'),
};

describe('AWS instance requests', () => {
  it('derive a stable ClientToken of at most 64 characters from the Machine UID', () => {
    const a = clientTokenFor(machine());
    expect(a).to.equal(clientTokenFor(machine({ name: 'renamed' })));
    expect(a).to.not.equal(clientTokenFor(machine({ uid: 'uid-2' })));
    expect(a.length).to.be.at.most(64);
    expect(() => clientTokenFor(machine({ uid: undefined }))).to.throw('no UID');
  });

  it('build RunInstances with the tags, network interface, user data, IAM profile and placement', () => {
    const input = buildRunInstancesInput(
      machine(),
      config({ tags: [{ name: 'team', value: 'x' }], keyName: 'k' }),
      'infra-1',
      resolved,
    );
    expect(input).to.deep.include({
      ImageId: 'ami-1',
      InstanceType: 'm6i.xlarge',
      MinCount: 1,
      MaxCount: 1,
      KeyName: 'k',
      ClientToken: clientTokenFor(machine()),
    });
    expect(input.UserData).to.equal(Buffer.from('#!/bin/sh\necho hi').toString('base64'));
    expect(input.IamInstanceProfile).to.deep.equal({ Name: 'worker-profile' });
    expect(input.NetworkInterfaces).to.deep.equal([{ DeviceIndex: 0, SubnetId: 'subnet-1', Groups: ['sg-1', 'sg-2'] }]);
    expect(input.Placement).to.deep.equal({ AvailabilityZone: 'us-east-1a' });
    expect(input.TagSpecifications?.map((t) => t.ResourceType)).to.deep.equal(['instance', 'volume']);
    expect(input.TagSpecifications?.[0]?.Tags).to.deep.equal([
      { Key: 'team', Value: 'x' },
      { Key: 'kubernetes.io/cluster/infra-1', Value: 'owned' },
      { Key: 'Name', Value: 'worker-a' },
      { Key: MACHINE_UID_TAG, Value: 'uid-1' },
    ]);
    expect(input.InstanceMarketOptions).to.equal(undefined);
    expect(input.MetadataOptions).to.equal(undefined);
  });

  it('drop spec and Infrastructure tags that would override Name or cluster ownership; the spec wins over Infrastructure', () => {
    const tags = buildTags(
      machine(),
      config({
        tags: [
          { name: 'Name', value: 'evil' },
          { name: 'kubernetes.io/cluster/other', value: 'shared' },
          { name: 'env', value: 'spec' },
        ],
      }),
      'infra-1',
      [
        { name: 'env', value: 'infra' },
        { name: 'cost', value: 'c' },
      ],
    );
    expect(tags).to.deep.equal([
      { Key: 'env', Value: 'spec' },
      { Key: 'cost', Value: 'c' },
      { Key: 'kubernetes.io/cluster/infra-1', Value: 'owned' },
      { Key: 'Name', Value: 'worker-a' },
      { Key: MACHINE_UID_TAG, Value: 'uid-1' },
    ]);
    expect(
      missingTags(tags, [
        { Key: 'env', Value: 'spec' },
        { Key: 'cost', Value: 'other' },
      ]).map((t) => t.Key),
    ).to.deep.equal(['cost', 'kubernetes.io/cluster/infra-1', 'Name', MACHINE_UID_TAG]);
  });

  it('send the AZ only for a filtered subnet, and placement groups, partitions and tenancy', () => {
    expect(buildRunInstancesInput(machine(), config({ subnet: { id: 'subnet-9' } }), 'i', resolved).Placement).to.equal(
      undefined,
    );
    const input = buildRunInstancesInput(
      machine(),
      config({
        placementGroupName: 'pg',
        placementGroupPartition: 3,
        placement: { region: 'us-east-1', tenancy: 'dedicated' },
      }),
      'i',
      resolved,
    );
    expect(input.Placement).to.deep.equal({ GroupName: 'pg', PartitionNumber: 3, Tenancy: 'dedicated' });
  });

  it('replace the placement with host affinity and id for dedicated hosts', () => {
    const c = config({
      placement: {
        region: 'us-east-1',
        availabilityZone: 'us-east-1a',
        tenancy: 'host',
        host: { affinity: 'DedicatedHost', dedicatedHost: { id: 'h-0123456789abcdef0' } },
      },
    });
    expect(buildRunInstancesInput(machine(), c, 'i', resolved).Placement).to.deep.equal({
      Tenancy: 'host',
      Affinity: 'host',
      HostId: 'h-0123456789abcdef0',
    });
  });

  it('request one-time spot capacity that terminates on interruption, with an optional max price', () => {
    expect(
      buildRunInstancesInput(machine(), config({ spotMarketOptions: { maxPrice: '0.5' } }), 'i', resolved)
        .InstanceMarketOptions,
    ).to.deep.equal({
      MarketType: 'spot',
      SpotOptions: { InstanceInterruptionBehavior: 'terminate', SpotInstanceType: 'one-time', MaxPrice: '0.5' },
    });
    expect(
      buildRunInstancesInput(machine(), config({ marketType: 'Spot' }), 'i', resolved).InstanceMarketOptions
        ?.SpotOptions?.MaxPrice,
    ).to.equal(undefined);
    const cb = buildRunInstancesInput(
      machine(),
      config({ marketType: 'CapacityBlock', capacityReservationId: 'cr-0123456789abcdef0' }),
      'i',
      resolved,
    );
    expect(cb.InstanceMarketOptions).to.deep.equal({ MarketType: 'capacity-block' });
    expect(cb.CapacityReservationSpecification).to.deep.equal({
      CapacityReservationTarget: { CapacityReservationId: 'cr-0123456789abcdef0' },
    });
  });

  it('map block devices: the root takes the AMI root device name, volumes always die with the instance, iops/throughput only where valid', () => {
    const c = config({
      blockDevices: [
        {
          ebs: {
            volumeSize: 120,
            volumeType: 'gp3',
            iops: 0,
            throughputMib: 250,
            encrypted: true,
            kmsKey: { arn: 'arn:kms' },
          },
        },
        { deviceName: '/dev/sdf', ebs: { volumeSize: 50, volumeType: 'io1', iops: 3000 } },
        { deviceName: '/dev/sdg', noDevice: '' },
      ],
    });
    const input = buildRunInstancesInput(machine(), c, 'i', { ...resolved, rootDeviceName: '/dev/xvda' });
    expect(input.BlockDeviceMappings).to.deep.equal([
      {
        DeviceName: '/dev/xvda',
        Ebs: {
          VolumeSize: 120,
          VolumeType: 'gp3',
          Encrypted: true,
          DeleteOnTermination: true,
          Iops: undefined,
          Throughput: 250,
          KmsKeyId: 'arn:kms',
        },
      },
      {
        DeviceName: '/dev/sdf',
        Ebs: {
          VolumeSize: 50,
          VolumeType: 'io1',
          Encrypted: undefined,
          DeleteOnTermination: true,
          Iops: 3000,
          Throughput: undefined,
          KmsKeyId: undefined,
        },
      },
    ]);
    expect(() => buildRunInstancesInput(machine(), c, 'i', resolved)).to.throw(
      InvalidMachineConfigurationError,
      'root device name',
    );
  });

  it('set IMDS tokens, NIC type, public or carrier IPs, dual-stack options and SEV-SNP', () => {
    const input = buildRunInstancesInput(
      machine(),
      config({
        metadataServiceOptions: { authentication: 'Required' },
        networkInterfaceType: 'EFA',
        publicIp: true,
        cpuOptions: { confidentialCompute: 'AMDEncryptedVirtualizationNestedPaging' },
      }),
      'i',
      { ...resolved, ipFamily: 'DualStackIPv6Primary' },
    );
    expect(input.MetadataOptions).to.deep.equal({ HttpTokens: 'required', HttpProtocolIpv6: 'enabled' });
    expect(input.NetworkInterfaces?.[0]).to.deep.include({
      InterfaceType: 'efa',
      AssociatePublicIpAddress: true,
      PrimaryIpv6: true,
      Ipv6AddressCount: 1,
    });
    expect(input.PrivateDnsNameOptions).to.deep.equal({
      HostnameType: 'resource-name',
      EnableResourceNameDnsARecord: true,
      EnableResourceNameDnsAAAARecord: true,
    });
    expect(input.CpuOptions).to.deep.equal({ AmdSevSnp: 'enabled' });
    const wavelength = buildRunInstancesInput(machine(), config({ publicIp: true }), 'i', {
      ...resolved,
      zoneType: 'wavelength-zone',
    });
    expect(wavelength.NetworkInterfaces?.[0]).to.deep.include({ AssociateCarrierIpAddress: true });
    expect(wavelength.NetworkInterfaces?.[0]?.AssociatePublicIpAddress).to.equal(undefined);
  });

  it('require the cluster-id label', () => {
    expect(clusterIdOf(machine())).to.equal('infra-1');
    expect(() => clusterIdOf(machine({ labels: {} }))).to.throw(
      InvalidMachineConfigurationError,
      'missing "machine.openshift.io/cluster-api-cluster" label',
    );
  });
});

describe('AWS instance readers', () => {
  const instance: Instance = {
    InstanceId: 'i-0abc',
    InstanceType: 'm6i.xlarge',
    Placement: { AvailabilityZone: 'us-east-1a' },
    PrivateIpAddress: '10.0.0.5',
    PublicIpAddress: '3.3.3.3',
    PrivateDnsName: 'ip-10-0-0-5.ec2.internal',
    PublicDnsName: 'ec2-3-3-3-3.compute-1.amazonaws.com',
    NetworkInterfaces: [
      {
        Status: 'in-use',
        Ipv6Addresses: [{ Ipv6Address: '2600::1' }],
        PrivateIpAddresses: [{ PrivateIpAddress: '10.0.0.5' }, { PrivateIpAddress: '10.0.0.6' }],
      },
      { Status: 'detaching', PrivateIpAddresses: [{ PrivateIpAddress: '10.9.9.9' }] },
    ],
  };

  it('format the providerID as aws:///<zone>/<id>', () => {
    expect(providerIdOf(instance)).to.equal('aws:///us-east-1a/i-0abc');
    expect(providerIdOf({ InstanceId: 'i-1' })).to.equal('aws:////i-1');
  });

  it('list addresses in the reference order, with DHCP-domain names and IPv6', () => {
    expect(addressesOf(instance, ['example.internal', ''])).to.deep.equal([
      { type: 'InternalIP', address: '2600::1' },
      { type: 'InternalIP', address: '10.0.0.5' },
      { type: 'InternalIP', address: '10.0.0.6' },
      { type: 'ExternalIP', address: '3.3.3.3' },
      { type: 'InternalDNS', address: 'ip-10-0-0-5.ec2.internal' },
      { type: 'Hostname', address: 'ip-10-0-0-5.ec2.internal' },
      { type: 'InternalDNS', address: 'ip-10-0-0-5.example.internal' },
      { type: 'InternalDNS', address: 'ip-10-0-0-5' },
      { type: 'ExternalDNS', address: 'ec2-3-3-3-3.compute-1.amazonaws.com' },
    ]);
  });

  it('read DHCP domain names like the reference', () => {
    expect(dhcpDomainsOf(undefined)).to.deep.equal([]);
    expect(dhcpDomainsOf([{ Key: 'domain-name-servers', Values: [{ Value: 'AmazonProvidedDNS' }] }])).to.deep.equal([
      '',
    ]);
    expect(dhcpDomainsOf([{ Key: 'domain-name', Values: [{ Value: 'a.internal b.internal' }] }])).to.deep.equal([
      'a.internal',
      'b.internal',
    ]);
  });

  it('label region, zone, instance type and spot interruptibility', () => {
    expect(machineLabelsFor(instance, 'us-east-1')).to.deep.equal({
      'machine.openshift.io/region': 'us-east-1',
      'machine.openshift.io/zone': 'us-east-1a',
      'machine.openshift.io/instance-type': 'm6i.xlarge',
    });
    expect(machineLabelsFor({ ...instance, InstanceLifecycle: 'spot' }, 'r')).to.have.property(
      'machine.openshift.io/interruptible-instance',
      '',
    );
  });

  it('tell this Machine’s instances from a predecessor’s with the same name', () => {
    const m = machine();
    expect(belongsTo(m, { Tags: [{ Key: MACHINE_UID_TAG, Value: 'uid-1' }] })).to.equal(true);
    expect(belongsTo(m, { Tags: [{ Key: MACHINE_UID_TAG, Value: 'uid-old' }] })).to.equal(false);
    expect(belongsTo(m, { ClientToken: clientTokenFor(m), Tags: [] })).to.equal(true);
    expect(belongsTo(m, { Tags: [{ Key: 'Name', Value: 'worker-a' }] }), 'launched before UID tags').to.equal(true);
  });

  it('sort oldest first, unknown launch times last', () => {
    const sorted = sortOldestFirst([
      { InstanceId: 'i-new', LaunchTime: new Date('2026-01-02') },
      { InstanceId: 'i-none' },
      { InstanceId: 'i-old', LaunchTime: new Date('2026-01-01') },
    ]);
    expect(sorted.map((i) => i.InstanceId)).to.deep.equal(['i-old', 'i-new', 'i-none']);
  });
});
