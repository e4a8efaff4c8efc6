// The chaos load balancers: created in the emulator's world where the real SDKs find them by the name the
// providerSpec gives, and read back as the instances registered behind them (an address by its instance).
import {
  DescribeLoadBalancersCommand,
  DescribeTargetGroupsCommand,
  RegisterTargetsCommand,
} from '@aws-sdk/client-elastic-load-balancing-v2';
import { RunInstancesCommand, TerminateInstancesCommand } from '@aws-sdk/client-ec2';
import { expect } from 'chai';
import { FakeClock } from '../../lib/base/fake-clock.js';
import { startEc2Emulator } from '../../sim/aws/index.js';
import { startGceEmulator } from '../../sim/gcp/index.js';
import { addAwsLoadBalancer } from '../../sim/aws/chaos-load-balancer.js';
import { addGcpTargetPool } from '../../sim/gcp/chaos-target-pool.js';
import { CHAOS_LB_NAME } from '../../sim/kit/bench-cloud.js';
import { ec2Client, elbv2Client, workerLaunch } from '../sim/aws/ec2-test-env.js';
import {
  clientsFor,
  closeClients,
  insert,
  PROJECT,
  REGION,
  waitDone,
  ZONE,
  type IOperation,
} from '../sim/gcp/fixtures.js';

describe('chaos load balancers', () => {
  it('AWS: a network load balancer with an instance and an ip target group; an address left by a terminated instance stays bare', async () => {
    const clock = new FakeClock(Date.UTC(2026, 10, 26, 7, 0, 0));
    const emu = await startEc2Emulator({ clock, timings: { bootMs: 100, terminateMs: 100 } });
    const ec2 = ec2Client(emu, 1);
    const elb = elbv2Client(emu);
    try {
      const lb = addAwsLoadBalancer(emu);
      expect(lb.providerSpecFields).to.deep.equal({ loadBalancers: [{ name: CHAOS_LB_NAME, type: 'network' }] });
      const [nlb] = (await elb.send(new DescribeLoadBalancersCommand({ Names: [CHAOS_LB_NAME] }))).LoadBalancers ?? [];
      const groups =
        (await elb.send(new DescribeTargetGroupsCommand({ LoadBalancerArn: nlb?.LoadBalancerArn }))).TargetGroups ?? [];
      expect(groups.map((g) => g.TargetType)).to.have.members(['instance', 'ip']);
      const inst = (await ec2.send(new RunInstancesCommand(workerLaunch('w-1')))).Instances?.[0];
      clock.step(100);
      const id = inst?.InstanceId ?? '';
      for (const g of groups) {
        await elb.send(
          new RegisterTargetsCommand({
            TargetGroupArn: g.TargetGroupArn,
            Targets: [{ Id: g.TargetType === 'ip' ? inst?.PrivateIpAddress : id }],
          }),
        );
      }
      expect(lb.memberships()).to.have.deep.members([
        { group: `${CHAOS_LB_NAME}-instances`, members: [id] },
        { group: `${CHAOS_LB_NAME}-ips`, members: [id] },
      ]);
      await ec2.send(new TerminateInstancesCommand({ InstanceIds: [id] }));
      clock.step(100);
      expect(lb.memberships()).to.have.deep.members([
        { group: `${CHAOS_LB_NAME}-instances`, members: [] },
        { group: `${CHAOS_LB_NAME}-ips`, members: [inst?.PrivateIpAddress] },
      ]);
    } finally {
      ec2.destroy();
      elb.destroy();
      await emu.stop();
    }
  });

  it('GCP: a target pool whose members are read as instance names', async () => {
    const emu = await startGceEmulator({ bootDelayMs: 30, deleteDelayMs: 20 });
    const c = clientsFor(emu);
    try {
      const lb = addGcpTargetPool(emu, PROJECT, REGION);
      expect(lb.providerSpecFields).to.deep.equal({ targetPools: ['chaos-pool'] });
      await waitDone(c, await insert(c, 'w-1'));
      const link = `https://www.googleapis.com/compute/v1/projects/${PROJECT}/zones/${ZONE}/instances/w-1`;
      const [lro] = await c.targetPools.addInstance({
        project: PROJECT,
        region: REGION,
        targetPool: 'chaos-pool',
        targetPoolsAddInstanceRequestResource: { instances: [{ instance: link }] },
      });
      await c.regionOps.wait({
        project: PROJECT,
        region: REGION,
        operation: (lro.latestResponse as IOperation).name ?? '',
      });
      expect(lb.memberships()).to.deep.equal([{ group: 'chaos-pool', members: ['w-1'] }]);
    } finally {
      await closeClients(c);
      await emu.stop();
    }
  });
});
