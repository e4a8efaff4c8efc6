import {
  DeregisterInstancesFromLoadBalancerCommand,
  DescribeInstanceHealthCommand,
  DescribeLoadBalancersCommand as DescribeClassicCommand,
  RegisterInstancesWithLoadBalancerCommand,
} from '@aws-sdk/client-elastic-load-balancing';
import {
  DeregisterTargetsCommand,
  DescribeLoadBalancersCommand,
  DescribeTargetGroupsCommand,
  DescribeTargetHealthCommand,
  RegisterTargetsCommand,
} from '@aws-sdk/client-elastic-load-balancing-v2';
import { RunInstancesCommand, TerminateInstancesCommand } from '@aws-sdk/client-ec2';
import { expect } from 'chai';
import { FakeClock } from '../../../lib/base/fake-clock.js';
import { startEc2Emulator, type Ec2Emulator } from '../../../sim/aws/index.js';
import { awsError, CLUSTER, ec2Client, elbClient, elbv2Client, workerLaunch } from './ec2-test-env.js';

describe('EC2 emulator: load balancers (classic ELB and ELBv2 on the same endpoint)', () => {
  let clock: FakeClock;
  let emu: Ec2Emulator;

  beforeEach(async () => {
    clock = new FakeClock(Date.UTC(2026, 10, 22, 6, 0, 0));
    emu = await startEc2Emulator({ clock, timings: { bootMs: 100, terminateMs: 100 } });
  });
  afterEach(async () => {
    await emu.stop();
  });

  async function runningInstance(name: string): Promise<{ id: string; ip: string }> {
    const ec2 = ec2Client(emu, 1);
    const inst = (await ec2.send(new RunInstancesCommand(workerLaunch(name)))).Instances![0]!;
    ec2.destroy();
    clock.step(100);
    return { id: inst.InstanceId!, ip: inst.PrivateIpAddress! };
  }

  it('registers and deregisters instances with a classic load balancer, dropping them when terminated', async () => {
    const elb = elbClient(emu, 1);
    const lbName = `${CLUSTER}-classic`;
    const { id } = await runningInstance('c1');
    const reg = await elb.send(
      new RegisterInstancesWithLoadBalancerCommand({ LoadBalancerName: lbName, Instances: [{ InstanceId: id }] }),
    );
    expect(reg.Instances).to.deep.equal([{ InstanceId: id }]);
    const health = await elb.send(new DescribeInstanceHealthCommand({ LoadBalancerName: lbName }));
    expect(health.InstanceStates?.[0]).to.include({ InstanceId: id, State: 'InService' });
    const described = await elb.send(new DescribeClassicCommand({ LoadBalancerNames: [lbName] }));
    expect(described.LoadBalancerDescriptions?.[0]?.Instances).to.deep.equal([{ InstanceId: id }]);

    const notFound = await awsError(
      elb.send(
        new RegisterInstancesWithLoadBalancerCommand({ LoadBalancerName: 'nope', Instances: [{ InstanceId: id }] }),
      ),
      'AccessPointNotFoundException',
      400,
    );
    expect((notFound as unknown as { Code?: string }).Code, 'the wire code behind the modelled exception').to.equal(
      'LoadBalancerNotFound',
    );
    await awsError(
      elb.send(
        new RegisterInstancesWithLoadBalancerCommand({
          LoadBalancerName: lbName,
          Instances: [{ InstanceId: 'i-0123456789abcdef0' }],
        }),
      ),
      'InvalidEndPointException',
      400,
    );

    const ec2 = ec2Client(emu, 1);
    await ec2.send(new TerminateInstancesCommand({ InstanceIds: [id] }));
    ec2.destroy();
    clock.step(100);
    expect(
      (await elb.send(new DescribeClassicCommand({ LoadBalancerNames: [lbName] }))).LoadBalancerDescriptions?.[0]
        ?.Instances,
    ).to.deep.equal([]);
    const { id: other } = await runningInstance('c2');
    await elb.send(
      new RegisterInstancesWithLoadBalancerCommand({ LoadBalancerName: lbName, Instances: [{ InstanceId: other }] }),
    );
    const dereg = await elb.send(
      new DeregisterInstancesFromLoadBalancerCommand({ LoadBalancerName: lbName, Instances: [{ InstanceId: other }] }),
    );
    expect(dereg.Instances).to.deep.equal([]);
    expect(emu.knobs.counts('elb:RegisterInstancesWithLoadBalancer').total).to.equal(4);
    elb.destroy();
  });

  it('walks NLB → target groups → targets the way the provider does, for ip and instance target types', async () => {
    const v2 = elbv2Client(emu, 1);
    const { id, ip } = await runningInstance('n1');
    const lbs = await v2.send(new DescribeLoadBalancersCommand({ Names: [`${CLUSTER}-int`, `${CLUSTER}-ingress`] }));
    expect(lbs.LoadBalancers!.map((l) => [l.LoadBalancerName, l.Type])).to.deep.equal([
      [`${CLUSTER}-int`, 'network'],
      [`${CLUSTER}-ingress`, 'network'],
    ]);
    const intTgs = await v2.send(
      new DescribeTargetGroupsCommand({ LoadBalancerArn: lbs.LoadBalancers![0]!.LoadBalancerArn }),
    );
    expect(intTgs.TargetGroups!.map((t) => [t.TargetGroupName, t.TargetType, t.Port])).to.deep.equal([
      [`${CLUSTER}-aint`, 'ip', 6443],
      [`${CLUSTER}-sint`, 'ip', 22623],
    ]);
    const ingressTg = (
      await v2.send(new DescribeTargetGroupsCommand({ LoadBalancerArn: lbs.LoadBalancers![1]!.LoadBalancerArn }))
    ).TargetGroups![0]!;
    expect(ingressTg.TargetType).to.equal('instance');

    const aint = intTgs.TargetGroups![0]!.TargetGroupArn!;
    await v2.send(new RegisterTargetsCommand({ TargetGroupArn: aint, Targets: [{ Id: ip }] }));
    await v2.send(new RegisterTargetsCommand({ TargetGroupArn: ingressTg.TargetGroupArn, Targets: [{ Id: id }] }));
    const health = await v2.send(new DescribeTargetHealthCommand({ TargetGroupArn: aint }));
    expect(
      health.TargetHealthDescriptions!.map((d) => [d.Target?.Id, d.Target?.Port, d.TargetHealth?.State]),
    ).to.deep.equal([[ip, 6443, 'healthy']]);

    await awsError(
      v2.send(new RegisterTargetsCommand({ TargetGroupArn: aint, Targets: [{ Id: '192.168.1.1' }] })),
      'InvalidTargetException',
      400,
    );
    const ec2 = ec2Client(emu, 1);
    const pending = (await ec2.send(new RunInstancesCommand(workerLaunch('n2')))).Instances![0]!.InstanceId!;
    ec2.destroy();
    await awsError(
      v2.send(new RegisterTargetsCommand({ TargetGroupArn: ingressTg.TargetGroupArn, Targets: [{ Id: pending }] })),
      'InvalidTargetException',
      400,
    );

    await v2.send(new DeregisterTargetsCommand({ TargetGroupArn: aint, Targets: [{ Id: ip }] }));
    expect(
      (await v2.send(new DescribeTargetHealthCommand({ TargetGroupArn: aint }))).TargetHealthDescriptions,
    ).to.deep.equal([]);
    await awsError(
      v2.send(new DeregisterTargetsCommand({ TargetGroupArn: aint, Targets: [{ Id: ip }] })),
      'InvalidTargetException',
      400,
    );
    await awsError(
      v2.send(new DescribeTargetHealthCommand({ TargetGroupArn: `${aint}0` })),
      'TargetGroupNotFoundException',
      400,
    );
    await awsError(
      v2.send(new DescribeLoadBalancersCommand({ Names: ['missing'] })),
      'LoadBalancerNotFoundException',
      400,
    );
    expect(emu.knobs.counts('elbv2:RegisterTargets')).to.include({ total: 4, failed: 2 });
    v2.destroy();
  });

  it('throttles ELB calls with the ELB Throttling error, which the SDK retries', async () => {
    const v2 = elbv2Client(emu, 2);
    emu.knobs.throttleNext('elb', 5);
    const err = await awsError(v2.send(new DescribeLoadBalancersCommand({})), 'Throttling', 400);
    expect(err.$metadata.attempts).to.equal(2);
    v2.destroy();
  });
});
