import {
  CreateTagsCommand,
  DeleteTagsCommand,
  DescribeInstancesCommand,
  DescribeInstanceStatusCommand,
  DescribeTagsCommand,
  EC2Client,
  paginateDescribeInstances,
  RunInstancesCommand,
  StartInstancesCommand,
  StopInstancesCommand,
  TerminateInstancesCommand,
  waitUntilInstanceRunning,
  type Instance,
} from '@aws-sdk/client-ec2';
import { expect } from 'chai';
import { FakeClock } from '../../../lib/base/fake-clock.js';
import { startEc2Emulator, type Ec2Emulator } from '../../../sim/aws/index.js';
import {
  AMI_ARM,
  awsError,
  CLUSTER,
  ec2Client,
  SG_NODE,
  SUBNET_PRIVATE_A,
  SUBNET_PRIVATE_B,
  SUBNET_PUBLIC_A,
  SUBNET_WAVELENGTH,
  VPC,
  workerLaunch,
} from './ec2-test-env.js';

async function launch(ec2: EC2Client, name: string, extra = {}): Promise<Instance> {
  const out = await ec2.send(new RunInstancesCommand(workerLaunch(name, extra)));
  expect(out.Instances).to.have.length(1);
  return out.Instances![0]!;
}

async function describeOne(ec2: EC2Client, id: string): Promise<Instance> {
  const out = await ec2.send(new DescribeInstancesCommand({ InstanceIds: [id] }));
  expect(out.Reservations).to.have.length(1);
  return out.Reservations![0]!.Instances![0]!;
}

describe('EC2 emulator: instances', function () {
  let clock: FakeClock;
  let emu: Ec2Emulator;
  let ec2: EC2Client;

  beforeEach(async () => {
    clock = new FakeClock(Date.UTC(2026, 10, 22, 6, 0, 0));
    emu = await startEc2Emulator({
      clock,
      timings: { bootMs: 1000, stopMs: 500, terminateMs: 700, terminatedRetentionMs: 60_000 },
    });
    ec2 = ec2Client(emu);
  });
  afterEach(async () => {
    ec2.destroy();
    await emu.stop();
  });

  describe('RunInstances', () => {
    it('launches a pending instance with addresses from its subnet, EC2 DNS names, tags, groups and a root volume', async () => {
      const inst = await launch(ec2, 'worker-a');
      expect(inst.InstanceId).to.match(/^i-[0-9a-f]{17}$/);
      expect(inst.State).to.deep.equal({ Code: 0, Name: 'pending' });
      expect(inst.LaunchTime).to.be.instanceOf(Date);
      expect(inst.LaunchTime!.getTime()).to.equal(clock.now());
      expect(inst.PrivateIpAddress).to.equal('10.0.16.4');
      expect(inst.PrivateDnsName).to.equal('ip-10-0-16-4.ec2.internal');
      expect(inst.PublicIpAddress, 'private subnet: no public IP').to.equal(undefined);
      expect(inst.Placement?.AvailabilityZone).to.equal('us-east-1a');
      expect(inst.VpcId).to.equal(VPC);
      expect(inst.SubnetId).to.equal(SUBNET_PRIVATE_A);
      expect(inst.SecurityGroups?.map((g) => g.GroupId)).to.deep.equal([SG_NODE]);
      expect(inst.Tags).to.deep.include({ Key: 'Name', Value: 'worker-a' });
      expect(inst.RootDeviceName).to.equal('/dev/xvda');
      expect(inst.BlockDeviceMappings?.[0]?.DeviceName).to.equal('/dev/xvda');
      const nic = inst.NetworkInterfaces?.[0];
      expect(nic?.Status).to.equal('in-use');
      expect(nic?.PrivateIpAddresses?.map((a) => a.PrivateIpAddress)).to.deep.equal(['10.0.16.4']);

      const second = await launch(ec2, 'worker-b');
      expect(second.PrivateIpAddress, 'addresses are not reused').to.equal('10.0.16.5');
      expect((await describeOne(ec2, inst.InstanceId!)).InstanceId).to.equal(inst.InstanceId);
    });

    it('assigns public, IPv6 and carrier addresses when asked, and resource-name hostnames', async () => {
      const pub = await launch(ec2, 'pub', { NetworkInterfaces: [{ DeviceIndex: 0, SubnetId: SUBNET_PUBLIC_A }] });
      expect(pub.PublicIpAddress, 'public subnet maps a public IP on launch').to.match(/^54\./);
      expect(pub.PublicDnsName).to.equal(`ec2-${pub.PublicIpAddress!.replaceAll('.', '-')}.compute-1.amazonaws.com`);

      const dual = await launch(ec2, 'dual', {
        NetworkInterfaces: [{ DeviceIndex: 0, SubnetId: SUBNET_PRIVATE_B, PrimaryIpv6: true, Ipv6AddressCount: 1 }],
        PrivateDnsNameOptions: {
          HostnameType: 'resource-name',
          EnableResourceNameDnsARecord: true,
          EnableResourceNameDnsAAAARecord: true,
        },
        MetadataOptions: { HttpTokens: 'required', HttpProtocolIpv6: 'enabled' },
      });
      expect(dual.Ipv6Address).to.match(/^2600:1f18:4a3b:5c02:/);
      expect(dual.NetworkInterfaces?.[0]?.Ipv6Addresses?.[0]?.Ipv6Address).to.equal(dual.Ipv6Address);
      expect(dual.PrivateDnsName).to.equal(`${dual.InstanceId}.ec2.internal`);
      expect(dual.MetadataOptions?.HttpTokens).to.equal('required');

      const wl = await launch(ec2, 'edge', {
        NetworkInterfaces: [{ DeviceIndex: 0, SubnetId: SUBNET_WAVELENGTH, AssociateCarrierIpAddress: true }],
      });
      expect(wl.NetworkInterfaces?.[0]?.Association?.CarrierIp).to.match(/^155\./);
      await awsError(
        launch(ec2, 'bad-carrier', {
          NetworkInterfaces: [{ DeviceIndex: 0, SubnetId: SUBNET_PRIVATE_A, AssociateCarrierIpAddress: true }],
        }),
        'InvalidParameterValue',
        400,
      );
    });

    it('names private DNS <ip>.<region>.compute.internal outside us-east-1', async () => {
      const eu = await startEc2Emulator({ region: 'eu-west-1', clock });
      const c = ec2Client(eu);
      try {
        const inst = await launch(c, 'eu');
        expect(inst.PrivateDnsName).to.equal('ip-10-0-16-4.eu-west-1.compute.internal');
        expect(inst.Placement?.AvailabilityZone).to.equal('eu-west-1a');
      } finally {
        c.destroy();
        await eu.stop();
      }
    });

    it('is idempotent on ClientToken: same token, same reservation; other parameters, IdempotentParameterMismatch', async () => {
      const a = await ec2.send(new RunInstancesCommand({ ...workerLaunch('idem'), ClientToken: 'machine-uid-1' }));
      const b = await ec2.send(new RunInstancesCommand({ ...workerLaunch('idem'), ClientToken: 'machine-uid-1' }));
      expect(b.ReservationId).to.equal(a.ReservationId);
      expect(b.Instances?.[0]?.InstanceId).to.equal(a.Instances?.[0]?.InstanceId);
      expect(emu.instances()).to.have.length(1);
      await awsError(
        ec2.send(new RunInstancesCommand({ ...workerLaunch('other'), ClientToken: 'machine-uid-1' })),
        'IdempotentParameterMismatch',
        400,
      );
      expect(emu.instances()).to.have.length(1);
    });

    it('launches MaxCount instances in one reservation', async () => {
      const out = await ec2.send(new RunInstancesCommand(workerLaunch('many', { MinCount: 2, MaxCount: 3 })));
      expect(out.Instances).to.have.length(3);
      expect(new Set(out.Instances!.map((i) => i.PrivateIpAddress)).size).to.equal(3);
      const d = await ec2.send(new DescribeInstancesCommand({ InstanceIds: out.Instances!.map((i) => i.InstanceId!) }));
      expect(d.Reservations).to.have.length(1);
      expect(d.Reservations![0]!.Instances).to.have.length(3);
    });

    const invalid: [string, object, string, number][] = [
      ['an unknown AMI', { ImageId: 'ami-0000000000000dead' }, 'InvalidAMIID.NotFound', 400],
      ['a malformed AMI id', { ImageId: 'rhcos' }, 'InvalidAMIID.Malformed', 400],
      ['an unknown instance type', { InstanceType: 'm5.huge' }, 'InvalidParameterValue', 400],
      ['an arm64 type with an x86_64 AMI', { InstanceType: 'm6g.large' }, 'InvalidParameterValue', 400],
      [
        'an unknown subnet',
        { NetworkInterfaces: [{ DeviceIndex: 0, SubnetId: 'subnet-0000000000000beef' }] },
        'InvalidSubnetID.NotFound',
        400,
      ],
      [
        'an unknown security group',
        { NetworkInterfaces: [{ DeviceIndex: 0, SubnetId: SUBNET_PRIVATE_A, Groups: ['sg-0000000000000beef'] }] },
        'InvalidGroup.NotFound',
        400,
      ],
      [
        'an instance-level subnet beside a network interface',
        { SubnetId: SUBNET_PRIVATE_A },
        'InvalidParameterCombination',
        400,
      ],
      [
        'a zone other than the subnet’s',
        { Placement: { AvailabilityZone: 'us-east-1b' } },
        'InvalidParameterValue',
        400,
      ],
      ['user data that is not base64', { UserData: 'not base64!' }, 'InvalidParameterValue', 400],
      [
        'duplicate tag keys',
        {
          TagSpecifications: [
            {
              ResourceType: 'instance',
              Tags: [
                { Key: 'a', Value: '1' },
                { Key: 'a', Value: '2' },
              ],
            },
          ],
        },
        'InvalidParameterValue',
        400,
      ],
      [
        'a root volume smaller than the AMI snapshot',
        { BlockDeviceMappings: [{ DeviceName: '/dev/xvda', Ebs: { VolumeSize: 8 } }] },
        'InvalidBlockDeviceMapping',
        400,
      ],
      [
        'iops on gp2',
        { BlockDeviceMappings: [{ DeviceName: '/dev/xvda', Ebs: { VolumeSize: 120, VolumeType: 'gp2', Iops: 3000 } }] },
        'InvalidParameterCombination',
        400,
      ],
      [
        'a spot price below the market',
        { InstanceMarketOptions: { MarketType: 'spot', SpotOptions: { MaxPrice: '0.0001' } } },
        'SpotMaxPriceTooLow',
        400,
      ],
      ['an unknown tenancy', { Placement: { Tenancy: 'shared' } }, 'InvalidParameterValue', 400],
      [
        'a malformed capacity reservation',
        { CapacityReservationSpecification: { CapacityReservationTarget: { CapacityReservationId: 'res-1' } } },
        'InvalidCapacityReservationId.Malformed',
        400,
      ],
      ['MinCount above MaxCount', { MinCount: 2, MaxCount: 1 }, 'InvalidParameterValue', 400],
      ['DryRun', { DryRun: true }, 'DryRunOperation', 412],
    ];
    for (const [what, extra, code, status] of invalid) {
      it(`rejects ${what} with ${code}`, async () => {
        await awsError(ec2.send(new RunInstancesCommand(workerLaunch('bad', extra))), code, status);
        expect(emu.instances()).to.have.length(0);
      });
    }

    it('accepts an arm64 AMI on an arm64 type, gp3 root volumes and spot market options', async () => {
      const inst = await launch(ec2, 'arm', {
        ImageId: AMI_ARM,
        InstanceType: 'm6g.large',
        BlockDeviceMappings: [
          {
            DeviceName: '/dev/xvda',
            Ebs: {
              VolumeSize: 120,
              VolumeType: 'gp3',
              Iops: 4000,
              Throughput: 250,
              Encrypted: true,
              KmsKeyId: 'alias/x',
            },
          },
        ],
        InstanceMarketOptions: { MarketType: 'spot', SpotOptions: { MaxPrice: '1.0' } },
        IamInstanceProfile: { Name: `${CLUSTER}-worker-profile` },
        UserData: Buffer.from('{"ignition":{}}').toString('base64'),
      });
      expect(inst.Architecture).to.equal('arm64');
      expect(inst.InstanceLifecycle).to.equal('spot');
      expect(inst.SpotInstanceRequestId).to.match(/^sir-/);
      expect(inst.IamInstanceProfile?.Arn).to.equal(
        `arn:aws:iam::123456789012:instance-profile/${CLUSTER}-worker-profile`,
      );
      expect(emu.instance(inst.InstanceId!)?.blockDevices[0]).to.include({
        volumeSizeGiB: 120,
        volumeType: 'gp3',
        encrypted: true,
        iops: 4000,
        throughput: 250,
      });
    });

    it('answers InsufficientInstanceCapacity (5xx) and VcpuLimitExceeded (4xx) when the knobs say so', async () => {
      emu.setInsufficientCapacity('m5.large', 'us-east-1a');
      const err = await awsError(
        ec2.send(new RunInstancesCommand(workerLaunch('x'))),
        'InsufficientInstanceCapacity',
        500,
      );
      expect(err.$fault).to.equal('server');
      await launch(ec2, 'b-zone', { NetworkInterfaces: [{ DeviceIndex: 0, SubnetId: SUBNET_PRIVATE_B }] });
      emu.setInsufficientCapacity('m5.large', 'us-east-1a', false);
      emu.setVcpuLimit(4);
      await launch(ec2, 'fits');
      await awsError(ec2.send(new RunInstancesCommand(workerLaunch('over'))), 'VcpuLimitExceeded', 400);
    });

    it('has no p5.48xlarge capacity in any zone by default, until a zone is given some', async () => {
      const p5 = { ...workerLaunch('gpu'), InstanceType: 'p5.48xlarge' as const };
      await awsError(ec2.send(new RunInstancesCommand(p5)), 'InsufficientInstanceCapacity', 500);
      await awsError(
        ec2.send(
          new RunInstancesCommand({ ...p5, NetworkInterfaces: [{ DeviceIndex: 0, SubnetId: SUBNET_PRIVATE_B }] }),
        ),
        'InsufficientInstanceCapacity',
        500,
      );
      emu.setInsufficientCapacity('p5.48xlarge', 'us-east-1b', false);
      await launch(ec2, 'gpu-b', {
        InstanceType: 'p5.48xlarge',
        NetworkInterfaces: [{ DeviceIndex: 0, SubnetId: SUBNET_PRIVATE_B }],
      });
      await awsError(ec2.send(new RunInstancesCommand(p5)), 'InsufficientInstanceCapacity', 500);
    });
  });

  describe('lifecycle', () => {
    it('moves pending → running after the boot delay, stopping → stopped, and back through pending on start', async () => {
      const inst = await launch(ec2, 'life', { NetworkInterfaces: [{ DeviceIndex: 0, SubnetId: SUBNET_PUBLIC_A }] });
      const id = inst.InstanceId!;
      clock.step(999);
      expect((await describeOne(ec2, id)).State?.Name).to.equal('pending');
      clock.step(1);
      expect((await describeOne(ec2, id)).State?.Name).to.equal('running');

      const stop = await ec2.send(new StopInstancesCommand({ InstanceIds: [id] }));
      expect(stop.StoppingInstances?.[0]).to.deep.include({
        InstanceId: id,
        CurrentState: { Code: 64, Name: 'stopping' },
        PreviousState: { Code: 16, Name: 'running' },
      });
      clock.step(500);
      const stopped = await describeOne(ec2, id);
      expect(stopped.State?.Name).to.equal('stopped');
      expect(stopped.PublicIpAddress, 'a stopped instance loses its public IPv4').to.equal(undefined);
      expect(stopped.PrivateIpAddress, 'but keeps its private one').to.equal(inst.PrivateIpAddress);
      expect(stopped.StateReason?.Code).to.equal('Client.UserInitiatedShutdown');

      const start = await ec2.send(new StartInstancesCommand({ InstanceIds: [id] }));
      expect(start.StartingInstances?.[0]?.CurrentState?.Name).to.equal('pending');
      clock.step(1000);
      const again = await describeOne(ec2, id);
      expect(again.State?.Name).to.equal('running');
      expect(again.PublicIpAddress).to.match(/^54\./).and.not.equal(inst.PublicIpAddress);
    });

    it('terminates through shutting-down, keeps terminated instances visible without network details, then forgets them', async () => {
      const id = (await launch(ec2, 'term')).InstanceId!;
      const t = await ec2.send(new TerminateInstancesCommand({ InstanceIds: [id] }));
      expect(t.TerminatingInstances?.[0]).to.deep.include({
        CurrentState: { Code: 32, Name: 'shutting-down' },
        PreviousState: { Code: 0, Name: 'pending' },
      });
      clock.step(700);
      const gone = await describeOne(ec2, id);
      expect(gone.State).to.deep.equal({ Code: 48, Name: 'terminated' });
      expect(gone.PrivateIpAddress).to.equal(undefined);
      expect(gone.PrivateDnsName).to.equal('');
      expect(gone.NetworkInterfaces).to.deep.equal([]);
      const again = await ec2.send(new TerminateInstancesCommand({ InstanceIds: [id] }));
      expect(again.TerminatingInstances?.[0]?.CurrentState?.Name, 'terminating twice is fine').to.equal('terminated');
      expect((await launch(ec2, 'reuse')).PrivateIpAddress, 'the address is free again').to.equal('10.0.16.4');
      clock.step(60_000);
      await awsError(describeOne(ec2, id), 'InvalidInstanceID.NotFound', 400);
    });

    it('refuses to stop pending instances and one-time spot instances, and to start terminated ones', async () => {
      const id = (await launch(ec2, 'p')).InstanceId!;
      await awsError(ec2.send(new StopInstancesCommand({ InstanceIds: [id] })), 'IncorrectInstanceState', 400);
      const spot = (await launch(ec2, 's', { InstanceMarketOptions: { MarketType: 'spot' } })).InstanceId!;
      clock.step(1000);
      await awsError(ec2.send(new StopInstancesCommand({ InstanceIds: [spot] })), 'UnsupportedOperation', 400);
      await ec2.send(new TerminateInstancesCommand({ InstanceIds: [id] }));
      clock.step(700);
      await awsError(ec2.send(new StartInstancesCommand({ InstanceIds: [id] })), 'IncorrectInstanceState', 400);
    });

    it('lets tests act out of band: console termination, stop/start and spot interruption', async () => {
      const a = (await launch(ec2, 'a')).InstanceId!;
      const spot = (await launch(ec2, 's', { InstanceMarketOptions: { MarketType: 'spot' } })).InstanceId!;
      clock.step(1000);
      emu.stopOutOfBand(a);
      clock.step(500);
      expect(emu.instance(a)?.state).to.equal('stopped');
      emu.startOutOfBand(a);
      clock.step(1000);
      expect(emu.instance(a)?.state).to.equal('running');
      emu.terminateOutOfBand(a);
      expect(emu.instance(a)?.state).to.equal('shutting-down');
      emu.spotInterrupt(spot);
      expect(() => emu.spotInterrupt(a)).to.throw(/not a spot instance/);
      clock.step(120_000 - 1);
      expect(emu.instance(spot)?.state, 'running out its two-minute notice').to.equal('running');
      clock.step(1 + 700);
      const s = await describeOne(ec2, spot);
      expect(s.State?.Name).to.equal('terminated');
      expect(s.StateReason?.Code).to.equal('Server.SpotInstanceTermination');
      expect(emu.knobs.counts('TerminateInstances').total, 'out-of-band actions are not API calls').to.equal(0);
    });
  });

  describe('OS-initiated shutdown, termination protection and instance status', () => {
    it('stops on an OS shutdown by default and terminates when launched with InstanceInitiatedShutdownBehavior=terminate', async () => {
      const stopper = (await launch(ec2, 'stopper')).InstanceId!;
      const terminator = (await launch(ec2, 'terminator', { InstanceInitiatedShutdownBehavior: 'terminate' }))
        .InstanceId!;
      clock.step(1000);
      emu.shutdownFromInside(stopper);
      emu.shutdownFromInside(terminator);
      expect(emu.instance(stopper)?.state).to.equal('stopping');
      expect(emu.instance(terminator)?.state).to.equal('shutting-down');
      expect(emu.instance(terminator)?.stateReason?.code).to.equal('Client.InstanceInitiatedShutdown');
    });

    it('refuses to terminate an instance launched with DisableApiTermination', async () => {
      const id = (await launch(ec2, 'protected', { DisableApiTermination: true })).InstanceId!;
      await awsError(ec2.send(new TerminateInstancesCommand({ InstanceIds: [id] })), 'OperationNotPermitted', 400);
      expect(emu.instance(id)?.state).to.equal('pending');
    });

    it('reports instance status for running instances, all of them with IncludeAllInstances', async () => {
      const a = (await launch(ec2, 'a')).InstanceId!;
      clock.step(1000);
      const b = (await launch(ec2, 'b')).InstanceId!;
      const running = await ec2.send(new DescribeInstanceStatusCommand({}));
      expect(
        running.InstanceStatuses?.map((s) => [s.InstanceId, s.InstanceStatus?.Status, s.SystemStatus?.Status]),
      ).to.deep.equal([[a, 'ok', 'ok']]);
      const all = await ec2.send(new DescribeInstanceStatusCommand({ IncludeAllInstances: true }));
      expect(all.InstanceStatuses?.map((s) => [s.InstanceId, s.InstanceState?.Name])).to.deep.equal([
        [a, 'running'],
        [b, 'pending'],
      ]);
    });
  });

  describe('DescribeInstances', () => {
    it('fails the whole call with InvalidInstanceID.NotFound naming unknown ids, and Malformed for bad ids', async () => {
      const id = (await launch(ec2, 'x')).InstanceId!;
      const err = await awsError(
        ec2.send(new DescribeInstancesCommand({ InstanceIds: [id, 'i-0123456789abcdef0'] })),
        'InvalidInstanceID.NotFound',
        400,
      );
      expect(err.message).to.equal("The instance ID 'i-0123456789abcdef0' does not exist");
      await awsError(
        ec2.send(new DescribeInstancesCommand({ InstanceIds: ['i-xyz'] })),
        'InvalidInstanceID.Malformed',
        400,
      );
    });

    it('filters by tags, tag keys, state, ids, VPC, subnet and private DNS name, with wildcards', async () => {
      const a = await launch(ec2, 'machine-a');
      const b = await launch(ec2, 'machine-b', { NetworkInterfaces: [{ DeviceIndex: 0, SubnetId: SUBNET_PRIVATE_B }] });
      await launch(ec2, 'other', {
        TagSpecifications: [{ ResourceType: 'instance', Tags: [{ Key: 'Name', Value: 'machine-a' }] }],
      });
      clock.step(1000);
      await ec2.send(new TerminateInstancesCommand({ InstanceIds: [b.InstanceId!] }));
      const ids = async (Filters: { Name: string; Values: string[] }[]) => {
        const out = await ec2.send(new DescribeInstancesCommand({ Filters }));
        return (out.Reservations ?? []).flatMap((r) => r.Instances ?? []).map((i) => i.InstanceId);
      };
      const owned = { Name: `tag:kubernetes.io/cluster/${CLUSTER}`, Values: ['owned'] };
      expect(await ids([{ Name: 'tag:Name', Values: ['machine-a'] }, owned])).to.deep.equal([a.InstanceId]);
      expect(await ids([{ Name: 'tag:Name', Values: ['machine-*'] }, owned])).to.deep.equal([
        a.InstanceId,
        b.InstanceId,
      ]);
      expect(await ids([{ Name: 'tag-key', Values: [`kubernetes.io/cluster/${CLUSTER}`] }])).to.have.length(2);
      expect(await ids([{ Name: 'instance-state-name', Values: ['running', 'pending'] }, owned])).to.deep.equal([
        a.InstanceId,
      ]);
      expect(await ids([{ Name: 'instance-state-name', Values: ['shutting-down'] }])).to.deep.equal([b.InstanceId]);
      expect(await ids([{ Name: 'subnet-id', Values: [SUBNET_PRIVATE_B] }])).to.deep.equal([b.InstanceId]);
      expect(await ids([{ Name: 'vpc-id', Values: [VPC] }])).to.have.length(3);
      expect(await ids([{ Name: 'private-dns-name', Values: [a.PrivateDnsName!] }])).to.deep.equal([a.InstanceId]);
      expect(await ids([{ Name: 'instance-id', Values: [a.InstanceId!, b.InstanceId!] }])).to.deep.equal([
        a.InstanceId,
        b.InstanceId,
      ]);
      expect(await ids([{ Name: 'tag:Name', Values: ['nobody'] }])).to.deep.equal([]);
      await awsError(ids([{ Name: 'colour', Values: ['blue'] }]), 'InvalidParameterValue', 400);
    });

    it('pages with MaxResults/NextToken so paginateDescribeInstances sees every instance once', async () => {
      await ec2.send(new RunInstancesCommand(workerLaunch('page', { MinCount: 12, MaxCount: 12 })));
      const pages: number[] = [];
      const seen: string[] = [];
      for await (const page of paginateDescribeInstances({ client: ec2, pageSize: 5 }, {})) {
        const ids = (page.Reservations ?? []).flatMap((r) => r.Instances ?? []).map((i) => i.InstanceId!);
        pages.push(ids.length);
        seen.push(...ids);
      }
      expect(pages).to.deep.equal([5, 5, 2]);
      expect(new Set(seen).size).to.equal(12);
      await awsError(ec2.send(new DescribeInstancesCommand({ MaxResults: 3 })), 'InvalidParameterValue', 400);
      await awsError(
        ec2.send(new DescribeInstancesCommand({ MaxResults: 5, InstanceIds: [seen[0]!] })),
        'InvalidParameterCombination',
        400,
      );
      await awsError(
        ec2.send(new DescribeInstancesCommand({ MaxResults: 5, NextToken: 'garbage' })),
        'InvalidParameterValue',
        400,
      );
    });
  });

  describe('tags', () => {
    it('creates, overwrites (last duplicate wins), describes and deletes tags, all-or-nothing across resources', async () => {
      const id = (await launch(ec2, 'tagged')).InstanceId!;
      await ec2.send(
        new CreateTagsCommand({
          Resources: [id, SUBNET_PRIVATE_A],
          Tags: [
            { Key: 'team', Value: 'a' },
            { Key: 'team', Value: 'b' },
            { Key: 'Name', Value: 'renamed' },
          ],
        }),
      );
      const inst = await describeOne(ec2, id);
      expect(inst.Tags).to.deep.include({ Key: 'team', Value: 'b' });
      expect(inst.Tags).to.deep.include({ Key: 'Name', Value: 'renamed' });
      const described = await ec2.send(new DescribeTagsCommand({ Filters: [{ Name: 'key', Values: ['team'] }] }));
      expect(described.Tags?.map((t) => [t.ResourceId, t.ResourceType, t.Value])).to.deep.equal([
        [id, 'instance', 'b'],
        [SUBNET_PRIVATE_A, 'subnet', 'b'],
      ]);
      await awsError(
        ec2.send(new CreateTagsCommand({ Resources: [id, 'i-0123456789abcdef0'], Tags: [{ Key: 'x', Value: 'y' }] })),
        'InvalidInstanceID.NotFound',
      );
      expect((await describeOne(ec2, id)).Tags?.some((t) => t.Key === 'x')).to.equal(false);
      await awsError(
        ec2.send(new CreateTagsCommand({ Resources: [id], Tags: [{ Key: 'aws:reserved', Value: 'y' }] })),
        'InvalidParameterValue',
      );
      const many = Array.from({ length: 50 }, (_, i) => ({ Key: `k${i}`, Value: 'v' }));
      await awsError(ec2.send(new CreateTagsCommand({ Resources: [id], Tags: many })), 'TagLimitExceeded');

      await ec2.send(
        new DeleteTagsCommand({ Resources: [id], Tags: [{ Key: 'team', Value: 'not-b' }, { Key: 'Name' }] }),
      );
      const after = (await describeOne(ec2, id)).Tags!;
      expect(after.map((t) => t.Key))
        .to.include('team')
        .and.not.include('Name');
    });
  });
});

describe('EC2 emulator: SDK waiters', () => {
  it('waitUntilInstanceRunning succeeds once the boot delay has passed on the real clock', async () => {
    const emu = await startEc2Emulator({ timings: { bootMs: 150 } });
    const ec2 = ec2Client(emu);
    try {
      const id = (await launch(ec2, 'wait')).InstanceId!;
      const started = Date.now();
      const res = await waitUntilInstanceRunning(
        { client: ec2, maxWaitTime: 5, minDelay: 0.05, maxDelay: 0.1 },
        { InstanceIds: [id] },
      );
      expect(res.state).to.equal('SUCCESS');
      expect(Date.now() - started).to.be.lessThan(3000);
      expect(emu.knobs.counts('DescribeInstances').total).to.be.at.least(2);
    } finally {
      ec2.destroy();
      await emu.stop();
    }
  });
});
