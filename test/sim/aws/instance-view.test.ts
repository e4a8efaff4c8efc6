import {
  RunInstancesCommand,
  StartInstancesCommand,
  StopInstancesCommand,
  TerminateInstancesCommand,
} from '@aws-sdk/client-ec2';
import { expect } from 'chai';
import { FakeClock } from '../../../lib/base/fake-clock.js';
import { stateHistory } from '../../../sim/kit/instance-view.js';
import { startEc2Emulator } from '../../../sim/aws/index.js';
import { AMI_ARM, ec2Client, SUBNET_PUBLIC_A, workerLaunch } from './ec2-test-env.js';

describe('EC2 emulator: InstanceView for the kubelet simulator', () => {
  it('lists each instance as a would-be Node and notifies on every state change', async () => {
    const clock = new FakeClock(Date.UTC(2026, 10, 22, 6, 0, 0));
    const emu = await startEc2Emulator({
      clock,
      timings: { bootMs: 1000, terminateMs: 500, terminatedRetentionMs: 2000 },
    });
    const ec2 = ec2Client(emu, 1);
    try {
      const view = emu.instanceView();
      let changes = 0;
      const unsubscribe = view.onChange(() => changes++);
      const inst = (
        await ec2.send(
          new RunInstancesCommand(
            workerLaunch('arm-worker', {
              ImageId: AMI_ARM,
              InstanceType: 'm6g.large',
              NetworkInterfaces: [{ DeviceIndex: 0, SubnetId: SUBNET_PUBLIC_A }],
            }),
          ),
        )
      ).Instances![0]!;
      expect(changes).to.equal(1);
      const [v] = view.listInstances();
      expect(v).to.deep.include({
        providerID: `aws:///us-east-1a/${inst.InstanceId}`,
        nodeName: inst.PrivateDnsName,
        state: 'pending',
      });
      expect(v!.addresses).to.deep.equal([
        { type: 'InternalIP', address: inst.PrivateIpAddress },
        { type: 'ExternalIP', address: inst.PublicIpAddress },
        { type: 'InternalDNS', address: inst.PrivateDnsName },
        { type: 'Hostname', address: inst.PrivateDnsName },
        { type: 'ExternalDNS', address: inst.PublicDnsName },
      ]);
      expect(v!.labels).to.include({
        'node.kubernetes.io/instance-type': 'm6g.large',
        'topology.kubernetes.io/zone': 'us-east-1a',
        'topology.kubernetes.io/region': 'us-east-1',
        'kubernetes.io/arch': 'arm64',
      });

      clock.step(1000);
      expect(changes, 'timer-driven transitions notify too').to.equal(2);
      expect(view.listInstances()[0]!.state).to.equal('running');
      await ec2.send(new TerminateInstancesCommand({ InstanceIds: [inst.InstanceId!] }));
      expect(view.listInstances()[0]!.state).to.equal('terminating');
      clock.step(500);
      expect(view.listInstances()[0]!.state).to.equal('terminated');
      clock.step(2000);
      expect(view.listInstances()).to.deep.equal([]);
      const seen = changes;
      unsubscribe();
      emu.terminateOutOfBand((await ec2.send(new RunInstancesCommand(workerLaunch('x')))).Instances![0]!.InstanceId!);
      expect(changes, 'no calls after unsubscribing').to.equal(seen);
    } finally {
      ec2.destroy();
      await emu.stop();
    }
  });

  it('shows a stop and start as stopping, stopped, pending and running: never terminating, so the Node stays', async () => {
    const clock = new FakeClock(Date.UTC(2026, 10, 22, 6, 0, 0));
    const emu = await startEc2Emulator({ clock, timings: { bootMs: 1000, stopMs: 500 } });
    const ec2 = ec2Client(emu, 1);
    try {
      const inst = (await ec2.send(new RunInstancesCommand(workerLaunch('w')))).Instances![0]!;
      clock.step(1000);
      const history = stateHistory(emu.instanceView(), inst.PrivateDnsName!);
      await ec2.send(new StopInstancesCommand({ InstanceIds: [inst.InstanceId!] }));
      clock.step(500);
      await ec2.send(new StartInstancesCommand({ InstanceIds: [inst.InstanceId!] }));
      clock.step(1000);
      history.stop();
      expect(history.states).to.deep.equal(['running', 'stopping', 'stopped', 'pending', 'running']);
    } finally {
      ec2.destroy();
      await emu.stop();
    }
  });
});
