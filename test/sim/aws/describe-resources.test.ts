import {
  AllocateHostsCommand,
  DescribeAvailabilityZonesCommand,
  DescribeDhcpOptionsCommand,
  DescribeHostsCommand,
  DescribeImagesCommand,
  DescribeInstanceTypesCommand,
  DescribeRegionsCommand,
  DescribeSecurityGroupsCommand,
  DescribeSubnetsCommand,
  DescribeVpcsCommand,
  EC2Client,
  paginateDescribeInstanceTypes,
  ReleaseHostsCommand,
  RunInstancesCommand,
  TerminateInstancesCommand,
  type InstanceTypeInfo,
} from '@aws-sdk/client-ec2';
import { expect } from 'chai';
import { FakeClock } from '../../../lib/base/fake-clock.js';
import { DEFAULT_INSTANCE_TYPES, startEc2Emulator, type Ec2Emulator } from '../../../sim/aws/index.js';
import {
  AMI_ARM,
  AMI_SDA1,
  AMI_X86,
  awsError,
  CLUSTER,
  ec2Client,
  SUBNET_PRIVATE_A,
  VPC,
  workerLaunch,
} from './ec2-test-env.js';

describe('EC2 emulator: describing the seeded world', () => {
  let clock: FakeClock;
  let emu: Ec2Emulator;
  let ec2: EC2Client;

  before(async () => {
    clock = new FakeClock(Date.UTC(2026, 10, 22, 6, 0, 0));
    emu = await startEc2Emulator({ clock, instanceTypesPageSize: 5, timings: { bootMs: 10, terminateMs: 10 } });
    ec2 = ec2Client(emu, 1);
  });
  after(async () => {
    ec2.destroy();
    await emu.stop();
  });

  describe('DescribeInstanceTypes', () => {
    it('pages the whole catalogue with NextToken only, as the provider’s scale-from-zero loop does', async () => {
      const all: InstanceTypeInfo[] = [];
      let token: string | undefined;
      let calls = 0;
      do {
        const out = await ec2.send(new DescribeInstanceTypesCommand({ NextToken: token }));
        all.push(...(out.InstanceTypes ?? []));
        token = out.NextToken;
        calls++;
      } while (token);
      expect(calls).to.equal(Math.ceil(DEFAULT_INSTANCE_TYPES.length / 5));
      expect(all.map((t) => t.InstanceType)).to.deep.equal(DEFAULT_INSTANCE_TYPES.map((t) => t.instanceType));
      const paged: string[] = [];
      for await (const p of paginateDescribeInstanceTypes({ client: ec2, pageSize: 10 }, {}))
        paged.push(...(p.InstanceTypes ?? []).map((t) => t.InstanceType!));
      expect(paged).to.have.length(DEFAULT_INSTANCE_TYPES.length);
    });

    it('reports vCPU, MiB, architecture and GPUs as EC2 does', async () => {
      const out = await ec2.send(
        new DescribeInstanceTypesCommand({
          InstanceTypes: [
            'm5.large',
            'm6i.xlarge',
            'c5.2xlarge',
            'm6g.xlarge',
            'c7g.xlarge',
            'g4dn.xlarge',
            'p3.8xlarge',
            'g5.xlarge',
          ],
        }),
      );
      const byName = new Map(out.InstanceTypes!.map((t) => [t.InstanceType, t]));
      const summary = (n: string) => {
        const t = byName.get(n as never)!;
        return [
          t.VCpuInfo?.DefaultVCpus,
          t.MemoryInfo?.SizeInMiB,
          t.ProcessorInfo?.SupportedArchitectures?.[0],
          (t.GpuInfo?.Gpus ?? []).reduce((s, g) => s + (g.Count ?? 0), 0),
        ];
      };
      expect(summary('m5.large')).to.deep.equal([2, 8192, 'x86_64', 0]);
      expect(summary('m6i.xlarge')).to.deep.equal([4, 16384, 'x86_64', 0]);
      expect(summary('c5.2xlarge')).to.deep.equal([8, 16384, 'x86_64', 0]);
      expect(summary('m6g.xlarge')).to.deep.equal([4, 16384, 'arm64', 0]);
      expect(summary('c7g.xlarge')).to.deep.equal([4, 8192, 'arm64', 0]);
      expect(summary('g4dn.xlarge')).to.deep.equal([4, 16384, 'x86_64', 1]);
      expect(summary('p3.8xlarge')).to.deep.equal([32, 249856, 'x86_64', 4]);
      expect(summary('g5.xlarge')).to.deep.equal([4, 16384, 'x86_64', 1]);
      expect(byName.get('p3.8xlarge')?.GpuInfo?.Gpus?.[0]).to.include({ Name: 'V100', Manufacturer: 'NVIDIA' });
      expect(byName.get('g5.xlarge')?.GpuInfo?.Gpus?.[0]?.Name).to.equal('A10G');
    });

    it("offers today's families with the clouds' published vCPU, memory, architecture and GPUs", async () => {
      const published: Record<string, [vCpus: number, memoryMiB: number, arch: string, gpus: number]> = {
        'm7i.2xlarge': [8, 32768, 'x86_64', 0],
        'm7a.large': [2, 8192, 'x86_64', 0],
        'm7g.4xlarge': [16, 65536, 'arm64', 0],
        'c7i.8xlarge': [32, 65536, 'x86_64', 0],
        'c7g.large': [2, 4096, 'arm64', 0],
        'r7i.xlarge': [4, 32768, 'x86_64', 0],
        'm8g.xlarge': [4, 16384, 'arm64', 0],
        'c8g.2xlarge': [8, 16384, 'arm64', 0],
        'g6.xlarge': [4, 16384, 'x86_64', 1],
        'g6.12xlarge': [48, 196608, 'x86_64', 4],
        'g6.48xlarge': [192, 786432, 'x86_64', 8],
        'p5.48xlarge': [192, 2097152, 'x86_64', 8],
      };
      const out = await ec2.send(
        new DescribeInstanceTypesCommand({ InstanceTypes: Object.keys(published) as never[] }),
      );
      const seen = Object.fromEntries(
        out.InstanceTypes!.map((t) => [
          t.InstanceType,
          [
            t.VCpuInfo?.DefaultVCpus,
            t.MemoryInfo?.SizeInMiB,
            t.ProcessorInfo?.SupportedArchitectures?.[0],
            (t.GpuInfo?.Gpus ?? []).reduce((n, g) => n + (g.Count ?? 0), 0),
          ],
        ]),
      );
      expect(seen).to.deep.equal(published);
      const byName = new Map(out.InstanceTypes!.map((t) => [t.InstanceType as string, t]));
      expect(byName.get('g6.xlarge')?.GpuInfo?.Gpus?.[0]).to.deep.include({ Name: 'L4', Manufacturer: 'NVIDIA' });
      expect(byName.get('p5.48xlarge')?.GpuInfo?.Gpus?.[0]).to.deep.include({
        Name: 'H100',
        Manufacturer: 'NVIDIA',
        Count: 8,
        MemoryInfo: { SizeInMiB: 81920 },
      });
    });

    it('filters by architecture and rejects unknown types', async () => {
      const arm = await ec2.send(
        new DescribeInstanceTypesCommand({
          Filters: [{ Name: 'processor-info.supported-architecture', Values: ['arm64'] }],
          MaxResults: 100,
        }),
      );
      const armNames = arm.InstanceTypes!.map((t) => t.InstanceType as string);
      expect(armNames).to.include.members([
        'm6g.large',
        'r6g.large',
        'm7g.large',
        'c7g.xlarge',
        'm8g.8xlarge',
        'c8g.2xlarge',
      ]);
      expect(armNames).to.not.include.members(['m7i.large']);
      expect(arm.InstanceTypes!.every((t) => t.ProcessorInfo?.SupportedArchitectures?.[0] === 'arm64')).to.equal(true);
      const err = await awsError(
        ec2.send(new DescribeInstanceTypesCommand({ InstanceTypes: ['m5.large', 'x9.huge' as never] })),
        'InvalidInstanceType',
        400,
      );
      expect(err.message).to.contain('x9.huge');
    });
  });

  it('DescribeImages returns root device names and creation dates, by id, owner and filters', async () => {
    const byId = await ec2.send(new DescribeImagesCommand({ ImageIds: [AMI_X86, AMI_SDA1] }));
    expect(byId.Images!.map((i) => [i.ImageId, i.RootDeviceName])).to.deep.equal([
      [AMI_X86, '/dev/xvda'],
      [AMI_SDA1, '/dev/sda1'],
    ]);
    expect(byId.Images![0]!.CreationDate).to.equal('2024-10-09T12:41:07.000Z');
    const filtered = await ec2.send(
      new DescribeImagesCommand({
        Filters: [
          { Name: 'name', Values: ['rhcos-*'] },
          { Name: 'architecture', Values: ['arm64'] },
        ],
      }),
    );
    expect(filtered.Images!.map((i) => i.ImageId)).to.deep.equal([AMI_ARM]);
    const mine = await ec2.send(new DescribeImagesCommand({ Owners: ['self'] }));
    expect(mine.Images!.map((i) => i.ImageId)).to.deep.equal([AMI_SDA1]);
    const byTag = await ec2.send(
      new DescribeImagesCommand({ Filters: [{ Name: `tag:kubernetes.io/cluster/${CLUSTER}`, Values: ['owned'] }] }),
    );
    expect(byTag.Images!.map((i) => i.ImageId)).to.deep.equal([AMI_SDA1]);
    await awsError(
      ec2.send(new DescribeImagesCommand({ ImageIds: ['ami-0000000000000dead'] })),
      'InvalidAMIID.NotFound',
      400,
    );
  });

  it('DescribeSubnets answers by id, by the legacy availabilityZone filter plus tags, and with no filters', async () => {
    const one = await ec2.send(new DescribeSubnetsCommand({ SubnetIds: [SUBNET_PRIVATE_A], DryRun: false }));
    expect(one.Subnets!.map((s) => [s.SubnetId, s.AvailabilityZone, s.VpcId])).to.deep.equal([
      [SUBNET_PRIVATE_A, 'us-east-1a', VPC],
    ]);
    const byFilter = await ec2.send(
      new DescribeSubnetsCommand({
        Filters: [
          { Name: 'availabilityZone', Values: ['us-east-1b'] },
          { Name: 'tag:Name', Values: [`${CLUSTER}-subnet-private-us-east-1b`] },
        ],
      }),
    );
    expect(byFilter.Subnets!.map((s) => s.SubnetId)).to.deep.equal(['subnet-0a1b2c3d4e5f0a002']);
    expect((await ec2.send(new DescribeSubnetsCommand({}))).Subnets).to.have.length(8);
    await awsError(
      ec2.send(new DescribeSubnetsCommand({ SubnetIds: ['subnet-0000000000000beef'] })),
      'InvalidSubnetID.NotFound',
      400,
    );
  });

  it('DescribeSecurityGroups finds the installer groups by tag:Name and rejects unknown ids', async () => {
    const out = await ec2.send(
      new DescribeSecurityGroupsCommand({
        Filters: [{ Name: 'tag:Name', Values: [`${CLUSTER}-node`, `${CLUSTER}-lb`] }],
      }),
    );
    expect(out.SecurityGroups!.map((g) => g.GroupId)).to.deep.equal(['sg-0a1b2c3d4e5f00001', 'sg-0a1b2c3d4e5f00003']);
    expect((await ec2.send(new DescribeSecurityGroupsCommand({}))).SecurityGroups).to.have.length(6);
    await awsError(
      ec2.send(new DescribeSecurityGroupsCommand({ GroupIds: ['sg-0000000000000beef'] })),
      'InvalidGroup.NotFound',
      400,
    );
  });

  it('DescribeAvailabilityZones tells availability, local and wavelength zones apart', async () => {
    const out = await ec2.send(
      new DescribeAvailabilityZonesCommand({ ZoneNames: ['us-east-1a', 'us-east-1-wl1-bos-wlz-1'], DryRun: false }),
    );
    expect(out.AvailabilityZones!.map((z) => [z.ZoneName, z.ZoneType])).to.deep.equal([
      ['us-east-1a', 'availability-zone'],
      ['us-east-1-wl1-bos-wlz-1', 'wavelength-zone'],
    ]);
    const all = await ec2.send(new DescribeAvailabilityZonesCommand({}));
    expect(all.AvailabilityZones!.map((z) => z.ZoneType)).to.include('local-zone');
    await awsError(
      ec2.send(new DescribeAvailabilityZonesCommand({ ZoneNames: ['us-east-1z'] })),
      'InvalidParameterValue',
      400,
    );
  });

  it('DescribeVpcs and DescribeDhcpOptions give the domain name used for extra InternalDNS addresses', async () => {
    const vpc = (await ec2.send(new DescribeVpcsCommand({ VpcIds: [VPC] }))).Vpcs![0]!;
    const dopt = (await ec2.send(new DescribeDhcpOptionsCommand({ DhcpOptionsIds: [vpc.DhcpOptionsId!] })))
      .DhcpOptions![0]!;
    const domain = dopt.DhcpConfigurations!.find((c) => c.Key === 'domain-name')!;
    expect(domain.Values!.map((v) => v.Value)).to.deep.equal(['ec2.internal']);
    await awsError(
      ec2.send(new DescribeVpcsCommand({ VpcIds: ['vpc-0000000000000beef'] })),
      'InvalidVpcID.NotFound',
      400,
    );
    await awsError(
      ec2.send(new DescribeDhcpOptionsCommand({ DhcpOptionsIds: ['dopt-0000000000000beef'] })),
      'InvalidDhcpOptionID.NotFound',
      400,
    );
  });

  it('DescribeRegions lists opt-in status, hiding not-opted-in regions unless AllRegions', async () => {
    const enabled = await ec2.send(new DescribeRegionsCommand({}));
    const all = await ec2.send(new DescribeRegionsCommand({ AllRegions: true, DryRun: false }));
    expect(enabled.Regions!.map((r) => r.RegionName))
      .to.include('us-east-1')
      .and.not.include('af-south-1');
    expect(all.Regions!.find((r) => r.RegionName === 'af-south-1')?.OptInStatus).to.equal('not-opted-in');
    expect(all.Regions!.every((r) => r.OptInStatus && r.Endpoint)).to.equal(true);
  });

  it('allocates dedicated hosts idempotently, launches onto them, and refuses to release an occupied host', async () => {
    const alloc = () =>
      ec2.send(
        new AllocateHostsCommand({
          InstanceType: 'm5.large',
          AvailabilityZone: 'us-east-1a',
          Quantity: 1,
          AutoPlacement: 'off',
          ClientToken: 'host-token',
          TagSpecifications: [
            { ResourceType: 'dedicated-host', Tags: [{ Key: `kubernetes.io/cluster/${CLUSTER}`, Value: 'owned' }] },
          ],
        }),
      );
    const hostId = (await alloc()).HostIds![0]!;
    expect((await alloc()).HostIds).to.deep.equal([hostId]);
    const inst = (
      await ec2.send(
        new RunInstancesCommand(workerLaunch('on-host', { Placement: { HostId: hostId, Tenancy: 'host' } })),
      )
    ).Instances![0]!;
    expect(inst.Placement).to.include({ HostId: hostId, Tenancy: 'host' });
    const busy = await ec2.send(new ReleaseHostsCommand({ HostIds: [hostId] }));
    expect(busy.Unsuccessful?.[0]?.ResourceId).to.equal(hostId);
    expect(
      (await ec2.send(new DescribeHostsCommand({ HostIds: [hostId] }))).Hosts![0]!.Instances!.map((i) => i.InstanceId),
    ).to.deep.equal([inst.InstanceId]);
    await ec2.send(new TerminateInstancesCommand({ InstanceIds: [inst.InstanceId!] }));
    clock.step(10);
    const released = await ec2.send(new ReleaseHostsCommand({ HostIds: [hostId, 'h-0000000000000beef'] }));
    expect(released.Successful).to.deep.equal([hostId]);
    expect(released.Unsuccessful?.[0]?.Error?.Code).to.equal('Client.InvalidHostID.NotFound');
    await awsError(
      ec2.send(new RunInstancesCommand(workerLaunch('gone-host', { Placement: { HostId: hostId } }))),
      'InvalidHostID.NotFound',
      400,
    );
  });
});
