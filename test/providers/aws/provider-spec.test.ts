import { expect } from 'chai';
import { InvalidMachineConfigurationError, setProviderCondition, type Machine } from '../../../lib/index.js';
import {
  DEFAULT_CREDENTIALS_SECRET,
  DEFAULT_USER_DATA_SECRET,
  decodeMachineProviderConfig,
  decodeProviderConfig,
  decodeProviderStatus,
  encodeProviderStatus,
  readProviderConfig,
} from '../../../providers/aws/provider-spec.js';

const valid = () => ({
  apiVersion: 'machine.openshift.io/v1beta1',
  kind: 'AWSMachineProviderConfig',
  ami: { id: 'ami-0123' },
  instanceType: 'm6i.xlarge',
  placement: { region: 'us-east-1', availabilityZone: 'us-east-1a' },
  credentialsSecret: { name: 'aws-cloud-credentials' },
  userDataSecret: { name: 'worker-user-data' },
  iamInstanceProfile: { id: 'worker-profile' },
  subnet: { filters: [{ name: 'tag:Name', values: ['subnet-a'] }] },
  securityGroups: [{ filters: [{ name: 'tag:Name', values: ['node'] }] }],
});

describe('AWS providerSpec limits the cloud accepts', () => {
  it('accepts the zones of a region, Local and Wavelength Zones included, and a decimal maxPrice', () => {
    for (const availabilityZone of ['us-east-1a', 'us-east-1-bos-1a', 'us-east-1-wl1-bos-wlz-1']) {
      expect(
        () => decodeProviderConfig({ ...valid(), placement: { region: 'us-east-1', availabilityZone } }),
        availabilityZone,
      ).not.to.throw();
    }
    expect(() => decodeProviderConfig({ ...valid(), spotMarketOptions: { maxPrice: '0.05' } })).not.to.throw();
    expect(() => decodeProviderConfig({ ...valid(), instanceType: 'u7i-12tb.224xlarge' })).not.to.throw();
  });

  it('checks the zone only once the region is valid', () => {
    const err = invalidField({ ...valid(), placement: { region: '(a|a)*$', availabilityZone: '(a|a)*$a' } });
    expect(err.field).to.equal('spec.providerSpec.value.placement.region');
    expect(err.message).not.to.contain('availabilityZone');
  });
});

function invalidField(spec: Record<string, unknown>, controlPlane = false): { field?: string; message: string } {
  try {
    decodeProviderConfig(spec, { controlPlane });
  } catch (err) {
    expect(err).to.be.instanceOf(InvalidMachineConfigurationError);
    const e = err as InvalidMachineConfigurationError;
    return { field: e.field, message: e.message };
  }
  throw new Error('expected the spec to be rejected');
}

describe('AWS providerSpec', () => {
  it('decodes the installer-shaped spec with no errors, warnings or unknown fields', () => {
    const spec = {
      ...valid(),
      blockDevices: [{ ebs: { encrypted: true, iops: 0, kmsKey: { arn: '' }, volumeSize: 120, volumeType: 'gp3' } }],
      deviceIndex: 0,
      metadataServiceOptions: {},
      tags: [{ name: 'kubernetes.io/cluster/infra', value: 'owned' }],
    };
    const { config, warnings, unknownFields } = decodeProviderConfig(spec);
    expect(unknownFields).to.deep.equal([]);
    expect(warnings).to.deep.equal([]);
    expect(config.ami.id).to.equal('ami-0123');
    expect(config.blockDevices?.[0]?.ebs?.volumeSize).to.equal(120);
    expect(config.placement.region).to.equal('us-east-1');
  });

  it('accepts both apiVersions and warns about any other GroupVersionKind', () => {
    for (const apiVersion of ['machine.openshift.io/v1beta1', 'awsproviderconfig.openshift.io/v1beta1']) {
      expect(decodeProviderConfig({ ...valid(), apiVersion }).warnings).to.deep.equal([]);
    }
    const { warnings } = decodeProviderConfig({ ...valid(), apiVersion: 'example.com/v1' });
    expect(warnings.join()).to.contain('incorrect GroupVersionKind for AWSMachineProviderConfig object');
  });

  it('applies the webhook defaults: instance type, region, user-data and credentials secrets', () => {
    const spec: Record<string, unknown> = { ami: { id: 'ami-1' }, placement: {} };
    const { config, warnings } = decodeProviderConfig(spec, { defaultRegion: 'eu-west-1' });
    expect(config.instanceType).to.equal('m5.large');
    expect(config.placement.region).to.equal('eu-west-1');
    expect(config.userDataSecret).to.deep.equal({ name: DEFAULT_USER_DATA_SECRET });
    expect(config.credentialsSecret).to.deep.equal({ name: DEFAULT_CREDENTIALS_SECRET });
    expect(warnings.join()).to.contain('setting the default instance type m5.large');
    expect(
      decodeProviderConfig(spec, { defaultRegion: 'eu-west-1', defaultArchitecture: 'arm64' }).config.instanceType,
    ).to.equal('m6g.large');
  });

  it('reports unknown fields with their full path as warnings, never as errors', () => {
    const { unknownFields, warnings } = decodeProviderConfig({
      ...valid(),
      instanceTyp: 'm5.large',
      placement: { region: 'us-east-1', zone: 'a' },
    });
    expect(unknownFields).to.have.members([
      'spec.providerSpec.value.instanceTyp',
      'spec.providerSpec.value.placement.zone',
    ]);
    expect(warnings).to.include('Unknown field (spec.providerSpec.value.instanceTyp) will be ignored');
  });

  const invalidCases: Array<{
    name: string;
    patch: Record<string, unknown>;
    field: string;
    message: string;
    controlPlane?: boolean;
  }> = [
    {
      name: 'no AMI',
      patch: { ami: {} },
      field: 'spec.providerSpec.value.ami',
      message: 'expected providerSpec.ami.id to be populated',
    },
    {
      name: 'no region',
      patch: { placement: {} },
      field: 'spec.providerSpec.value.placement.region',
      message: 'expected providerSpec.placement.region to be populated',
    },
    {
      name: 'a wrong type',
      patch: { instanceType: 5 },
      field: 'spec.providerSpec.value.instanceType',
      message: 'must be a string',
    },
    {
      name: 'a non-integer deviceIndex',
      patch: { deviceIndex: 1.5 },
      field: 'spec.providerSpec.value.deviceIndex',
      message: 'must be an integer',
    },
    {
      name: 'a malformed capacity reservation',
      patch: { capacityReservationId: 'cr-123' },
      field: 'spec.providerSpec.value.capacityReservationId',
      message: "it must start with 'cr-' and be exactly 20 characters long with 17 hexadecimal characters",
    },
    {
      name: 'an unknown market type',
      patch: { marketType: 'Cheap' },
      field: 'spec.providerSpec.value.marketType',
      message: 'Unsupported value: "Cheap"',
    },
    {
      name: 'CapacityBlock without a reservation',
      patch: { marketType: 'CapacityBlock' },
      field: 'spec.providerSpec.value.capacityReservationId',
      message: 'capacityReservationID is required when CapacityBlock is provided',
    },
    {
      name: 'spot with a capacity reservation',
      patch: { spotMarketOptions: {}, capacityReservationId: 'cr-0123456789abcdef0' },
      field: 'spec.providerSpec.value.capacityReservationId',
      message: 'capacityReservationId can not be set when using spot instances',
    },
    {
      name: 'OnDemand with spot options',
      patch: { marketType: 'OnDemand', spotMarketOptions: {} },
      field: 'spec.providerSpec.value.marketType',
      message: 'setting marketType to OnDemand and spotMarketOptions at the same time is not supported',
    },
    {
      name: 'throughput on a gp2 volume',
      patch: { blockDevices: [{ ebs: { volumeType: 'gp2', throughputMib: 200 } }] },
      field: 'spec.providerSpec.value.blockDevices[0].ebs.throughputMib',
      message: 'throughput is only supported for gp3 volumes',
    },
    {
      name: 'gp3 throughput out of range',
      patch: { blockDevices: [{ ebs: { volumeType: 'gp3', throughputMib: 100 } }] },
      field: 'spec.providerSpec.value.blockDevices[0].ebs.throughputMib',
      message: 'between 125 and 2000',
    },
    {
      name: 'two unnamed block devices',
      patch: { blockDevices: [{ ebs: {} }, { ebs: {} }] },
      field: 'spec.providerSpec.value.blockDevices',
      message: 'non root device must have name',
    },
    {
      name: 'a negative deviceIndex',
      patch: { deviceIndex: -1 },
      field: 'spec.providerSpec.value.deviceIndex',
      message: 'must be between 0 and',
    },
    {
      name: 'an EBS volume larger than the cloud allows',
      patch: { blockDevices: [{ ebs: { volumeType: 'gp3', volumeSize: 1e12 } }] },
      field: 'spec.providerSpec.value.blockDevices[0].ebs.volumeSize',
      message: 'must be between 0 and 16384 GiB',
    },
    {
      name: 'a standard volume over 1024 GiB',
      patch: { blockDevices: [{ ebs: { volumeType: 'standard', volumeSize: 2000 } }] },
      field: 'spec.providerSpec.value.blockDevices[0].ebs.volumeSize',
      message: 'must be between 0 and 1024 GiB',
    },
    {
      name: 'an unknown volume type',
      patch: { blockDevices: [{ ebs: { volumeType: 'gp9' } }] },
      field: 'spec.providerSpec.value.blockDevices[0].ebs.volumeType',
      message: 'Unsupported value',
    },
    {
      name: 'iops beyond any volume type',
      patch: { blockDevices: [{ ebs: { volumeType: 'io2', iops: 1e9 } }] },
      field: 'spec.providerSpec.value.blockDevices[0].ebs.iops',
      message: 'must be between 0 and 256000',
    },
    {
      name: 'a negative spot maxPrice',
      patch: { spotMarketOptions: { maxPrice: '-1' } },
      field: 'spec.providerSpec.value.spotMarketOptions.maxPrice',
      message: 'non-negative decimal',
    },
    {
      name: 'a spot maxPrice in exponent form',
      patch: { spotMarketOptions: { maxPrice: '1e3' } },
      field: 'spec.providerSpec.value.spotMarketOptions.maxPrice',
      message: 'non-negative decimal',
    },
    {
      name: 'a 5 MB instanceType',
      patch: { instanceType: 'm'.repeat(5 * 1024 * 1024) },
      field: 'spec.providerSpec.value.instanceType',
      message: 'Too long',
    },
    {
      name: 'an instanceType that is not one',
      patch: { instanceType: 'M5 Large' },
      field: 'spec.providerSpec.value.instanceType',
      message: 'EC2 instance type',
    },
    {
      name: 'a path in the region',
      patch: { placement: { region: '../us-east-1' } },
      field: 'spec.providerSpec.value.placement.region',
      message: 'AWS region',
    },
    {
      name: 'a zone of another region',
      patch: { placement: { region: 'us-east-1', availabilityZone: 'us-west-2a' } },
      field: 'spec.providerSpec.value.placement.availabilityZone',
      message: 'zone of region us-east-1',
    },
    {
      name: 'a tag value over 256 characters',
      patch: { tags: [{ name: 'k', value: 'v'.repeat(257) }] },
      field: 'spec.providerSpec.value.tags[0].value',
      message: 'Too long',
    },
    {
      name: 'an unknown tenancy',
      patch: { placement: { region: 'us-east-1', tenancy: 'shared' } },
      field: 'spec.providerSpec.value.placement.tenancy',
      message: 'Unsupported value',
    },
    {
      name: 'host tenancy on a control-plane machine',
      patch: { placement: { region: 'us-east-1', tenancy: 'host' } },
      field: 'spec.providerSpec.value.placement.tenancy',
      message: 'host tenancy is not supported for control plane machines',
      controlPlane: true,
    },
    {
      name: 'host placement without host tenancy',
      patch: { placement: { region: 'us-east-1', host: { affinity: 'AnyAvailable' } } },
      field: 'spec.providerSpec.value.placement.host',
      message: 'host may only be set when tenancy is host',
    },
    {
      name: 'DedicatedHost affinity without a host',
      patch: { placement: { region: 'us-east-1', tenancy: 'host', host: { affinity: 'DedicatedHost' } } },
      field: 'spec.providerSpec.value.placement.host.dedicatedHost',
      message: 'requires dedicated host ID to be provided or dynamically allocated',
    },
    {
      name: 'dynamic allocation with AnyAvailable affinity',
      patch: {
        placement: {
          region: 'us-east-1',
          tenancy: 'host',
          host: { affinity: 'AnyAvailable', dedicatedHost: { allocationStrategy: 'Dynamic' } },
        },
      },
      field: 'spec.providerSpec.value.placement.host.affinity',
      message: 'hostAffinity must be DedicatedHost when using dynamic host allocation',
    },
    {
      name: 'a malformed dedicated host id',
      patch: {
        placement: {
          region: 'us-east-1',
          tenancy: 'host',
          host: { affinity: 'DedicatedHost', dedicatedHost: { id: 'h-12' } },
        },
      },
      field: 'spec.providerSpec.value.placement.host.dedicatedHost.id',
      message: "must start with 'h-'",
    },
    {
      name: 'a partition without a placement group',
      patch: { placementGroupPartition: 2 },
      field: 'spec.providerSpec.value.placementGroupPartition',
      message: 'providerSpec.placementGroupName is empty',
    },
    {
      name: 'a partition out of range',
      patch: { placementGroupName: 'pg', placementGroupPartition: 8 },
      field: 'spec.providerSpec.value.placementGroupPartition',
      message: 'must be between 1 and 7',
    },
    {
      name: 'an unknown NIC type',
      patch: { networkInterfaceType: 'SRIOV' },
      field: 'spec.providerSpec.value.networkInterfaceType',
      message: 'supported values: "ENA", "EFA"',
    },
    {
      name: 'an unknown IMDS authentication',
      patch: { metadataServiceOptions: { authentication: 'Maybe' } },
      field: 'spec.providerSpec.value.metadataServiceOptions.authentication',
      message: 'Unsupported value',
    },
    {
      name: 'empty cpuOptions',
      patch: { cpuOptions: {} },
      field: 'spec.providerSpec.value.cpuOptions',
      message: 'At least one field must be set if cpuOptions is provided',
    },
    {
      name: 'an unknown load balancer type',
      patch: { loadBalancers: [{ name: 'lb', type: 'application' }] },
      field: 'spec.providerSpec.value.loadBalancers[0].type',
      message: 'supported values: "classic", "network"',
    },
    {
      name: 'a security group with an empty filter list (the reference would select every group)',
      patch: { securityGroups: [{ filters: [] }] },
      field: 'spec.providerSpec.value.securityGroups[0]',
      message: 'by id or by at least one filter',
    },
    {
      name: 'a tag with an empty name',
      patch: { tags: [{ name: '', value: 'v' }] },
      field: 'spec.providerSpec.value.tags[0].name',
      message: 'between 1 and 128',
    },
  ];

  for (const c of invalidCases) {
    it(`rejects ${c.name}, naming ${c.field}`, () => {
      const { field, message } = invalidField({ ...valid(), ...c.patch }, c.controlPlane);
      expect(field).to.equal(c.field);
      expect(message).to.contain(c.field);
      expect(message).to.contain(c.message);
    });
  }

  it('lists every issue in one error and names the first field', () => {
    const { field, message } = invalidField({ ...valid(), ami: {}, marketType: 'Cheap' });
    expect(field).to.equal('spec.providerSpec.value.ami');
    expect(message).to.contain('marketType');
  });

  it('warns, as the webhook does, about ARNs, missing subnets and IAM profiles and duplicated tags', () => {
    const spec: Record<string, unknown> = {
      ...valid(),
      ami: { id: 'ami-1', arn: 'arn:x' },
      subnet: {},
      tags: [
        { name: 'a', value: '1' },
        { name: 'a', value: '2' },
      ],
    };
    delete spec.iamInstanceProfile;
    const { warnings } = decodeProviderConfig(spec);
    expect(warnings).to.include(
      "can't use providerSpec.ami.arn, only providerSpec.ami.id can be used to reference AMI",
    );
    expect(warnings.join('\n')).to.contain('No subnet has been provided');
    expect(warnings).to.include(
      'providerSpec.iamInstanceProfile: no IAM instance profile provided: nodes may be unable to join the cluster',
    );
    expect(warnings).to.include('providerSpec.tags: duplicated tag names (a): only the first value will be used.');
  });

  it('treats a Machine with a master role label as control plane', () => {
    const machine: Machine = {
      metadata: { name: 'm', labels: { 'machine.openshift.io/cluster-api-machine-role': 'master' } },
      spec: { providerSpec: { value: { ...valid(), placement: { region: 'us-east-1', tenancy: 'host' } } } },
    };
    expect(() => decodeMachineProviderConfig(machine)).to.throw(InvalidMachineConfigurationError, 'control plane');
  });

  it('rejects a providerSpec value that is not an object', () => {
    const { errors } = readProviderConfig('nope');
    expect(errors[0]?.field).to.equal('spec.providerSpec.value');
  });

  it('round-trips the provider status and moves lastTransitionTime only when the status flips', () => {
    const status = decodeProviderStatus({ instanceId: 'i-1', instanceState: 'pending', junk: 1 });
    setProviderCondition(
      status,
      { type: 'MachineCreation', status: 'True', reason: 'MachineCreationSucceeded', message: 'ok' },
      't1',
    );
    setProviderCondition(
      status,
      { type: 'MachineCreation', status: 'True', reason: 'MachineCreationSucceeded', message: 'ok again' },
      't2',
    );
    expect(status.conditions?.[0]?.lastTransitionTime).to.equal('t1');
    setProviderCondition(
      status,
      { type: 'MachineCreation', status: 'False', reason: 'MachineCreationFailed', message: 'x' },
      't3',
    );
    expect(status.conditions?.[0]?.lastTransitionTime).to.equal('t3');
    const encoded = encodeProviderStatus(status);
    expect(encoded).to.deep.include({ instanceId: 'i-1', instanceState: 'pending' });
    expect(decodeProviderStatus(encoded)).to.deep.equal(status);
    expect(decodeProviderStatus(null)).to.deep.equal({});
  });
});
