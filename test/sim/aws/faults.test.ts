import {
  DescribeInstancesCommand,
  DescribeSubnetsCommand,
  RunInstancesCommand,
  TerminateInstancesCommand,
} from '@aws-sdk/client-ec2';
import { expect } from 'chai';
import { FakeClock } from '../../../lib/base/fake-clock.js';
import { startEc2Emulator, VIEW_BY_ID, VIEW_SEARCH, type Ec2Emulator } from '../../../sim/aws/index.js';
import { awsError, ec2Client, eventually, rejection, workerLaunch } from './ec2-test-env.js';

describe('EC2 emulator: fault knobs seen through the real SDK', () => {
  let clock: FakeClock;
  let emu: Ec2Emulator;

  beforeEach(async () => {
    clock = new FakeClock(Date.UTC(2026, 10, 22, 6, 0, 0));
    emu = await startEc2Emulator({ clock, timings: { bootMs: 1000 } });
  });
  afterEach(async () => {
    await emu.stop();
  });

  describe('throttling', () => {
    it('answers RequestLimitExceeded with HTTP 503, which the SDK retries and finally surfaces', async () => {
      const ec2 = ec2Client(emu, 2);
      emu.knobs.throttleNext('RunInstances', 5);
      const err = await awsError(ec2.send(new RunInstancesCommand(workerLaunch('t'))), 'RequestLimitExceeded', 503);
      expect(err.$metadata.attempts).to.equal(2);
      expect(err.$fault, 'a 5xx: never a terminal client error').to.equal('server');
      expect(emu.knobs.counts('RunInstances')).to.deep.equal({ total: 2, throttled: 2, failed: 0, lostReplies: 0 });
      expect(emu.instances(), 'a throttled call has no effect').to.have.length(0);
      ec2.destroy();
    });

    it('lets the call through once the SDK retry finds a token again', async () => {
      const ec2 = ec2Client(emu, 3);
      emu.knobs.throttleNext('RunInstances', 1);
      const out = await ec2.send(new RunInstancesCommand(workerLaunch('t')));
      expect(out.$metadata.attempts).to.equal(2);
      expect(emu.instances()).to.have.length(1);
      ec2.destroy();
    });

    it('rate-limits an action class with a token bucket on the emulator clock', async () => {
      const ec2 = ec2Client(emu, 1);
      emu.knobs.setRateLimit('describe', { ratePerSecond: 1, burst: 2 });
      await ec2.send(new DescribeSubnetsCommand({}));
      await ec2.send(new DescribeInstancesCommand({}));
      await awsError(ec2.send(new DescribeSubnetsCommand({})), 'RequestLimitExceeded', 503);
      await ec2.send(new RunInstancesCommand(workerLaunch('mutations are another class')));
      clock.step(1000);
      await ec2.send(new DescribeSubnetsCommand({}));
      expect(emu.knobs.counts('DescribeSubnets')).to.include({ total: 3, throttled: 1 });
      ec2.destroy();
    });
  });

  it('injects 5xx errors that the SDK classifies as server faults', async () => {
    const ec2 = ec2Client(emu, 1);
    emu.knobs.failNext('TerminateInstances', 1);
    const id = (await ec2.send(new RunInstancesCommand(workerLaunch('f')))).Instances![0]!.InstanceId!;
    const err = await awsError(ec2.send(new TerminateInstancesCommand({ InstanceIds: [id] })), 'InternalError', 500);
    expect(err.$fault).to.equal('server');
    expect(emu.instance(id)?.state, 'an injected failure happens before any effect').to.equal('pending');
    emu.knobs.failNext('TerminateInstances', 1, {
      status: 403,
      code: 'UnauthorizedOperation',
      message: 'You are not authorized to perform this operation.',
    });
    await awsError(ec2.send(new TerminateInstancesCommand({ InstanceIds: [id] })), 'UnauthorizedOperation', 403);
    ec2.destroy();
  });

  describe('lost replies', () => {
    it('creates the instance but the client without retries sees a dropped connection', async () => {
      const ec2 = ec2Client(emu, 1);
      emu.knobs.loseNextReplies('RunInstances', 1, 'drop-connection');
      const err = await rejection(ec2.send(new RunInstancesCommand(workerLaunch('lost'))));
      expect(err.name).to.not.equal('RequestLimitExceeded');
      expect(`${err.name} ${err.message} ${String((err as { code?: string }).code)}`).to.match(
        /ECONNRESET|socket hang up|EPIPE/,
      );
      expect(emu.instances()).to.have.length(1);
      expect(emu.knobs.counts('RunInstances').lostReplies).to.equal(1);
      ec2.destroy();
    });

    it('creates exactly one instance when the SDK retries a lost RunInstances with its ClientToken', async () => {
      const ec2 = ec2Client(emu, 3);
      emu.knobs.loseNextReplies('RunInstances', 1, 'drop-connection');
      const out = await ec2.send(new RunInstancesCommand(workerLaunch('retried')));
      expect(out.$metadata.attempts).to.equal(2);
      expect(emu.instances()).to.have.length(1);
      expect(out.Instances![0]!.InstanceId).to.equal(emu.instances()[0]!.instanceId);
      ec2.destroy();
    });

    it('can answer a 5xx after applying the call', async () => {
      const ec2 = ec2Client(emu, 1);
      const id = (await ec2.send(new RunInstancesCommand(workerLaunch('x')))).Instances![0]!.InstanceId!;
      emu.knobs.loseNextReplies('TerminateInstances', 1, 'server-error');
      await awsError(ec2.send(new TerminateInstancesCommand({ InstanceIds: [id] })), 'InternalError', 500);
      expect(emu.instance(id)?.state).to.equal('shutting-down');
      ec2.destroy();
    });
  });

  describe('eventual consistency', () => {
    it('hides a new instance from lookups by id and from filtered searches for their own delays', async () => {
      const ec2 = ec2Client(emu, 1);
      emu.knobs.setVisibilityDelay(2000, VIEW_BY_ID).setVisibilityDelay(5000, VIEW_SEARCH);
      const id = (await ec2.send(new RunInstancesCommand(workerLaunch('ec')))).Instances![0]!.InstanceId!;
      const byTag = () => ec2.send(new DescribeInstancesCommand({ Filters: [{ Name: 'tag:Name', Values: ['ec'] }] }));
      await awsError(ec2.send(new DescribeInstancesCommand({ InstanceIds: [id] })), 'InvalidInstanceID.NotFound', 400);
      await awsError(ec2.send(new TerminateInstancesCommand({ InstanceIds: [id] })), 'InvalidInstanceID.NotFound', 400);
      expect((await byTag()).Reservations).to.deep.equal([]);
      clock.step(2000);
      expect((await ec2.send(new DescribeInstancesCommand({ InstanceIds: [id] }))).Reservations).to.have.length(1);
      expect((await byTag()).Reservations, 'searches lag longer').to.deep.equal([]);
      clock.step(3000);
      expect((await byTag()).Reservations).to.have.length(1);
      ec2.destroy();
    });
  });

  it('adds latency on the emulator clock', async () => {
    const ec2 = ec2Client(emu, 1);
    emu.knobs.setLatency(250, 'DescribeSubnets');
    let done = false;
    const p = ec2.send(new DescribeSubnetsCommand({})).then(() => (done = true));
    await eventually(() => emu.knobs.counts('DescribeSubnets').total === 1);
    clock.step(249);
    await new Promise((r) => setTimeout(r, 20));
    expect(done).to.equal(false);
    clock.step(1);
    await p;
    expect(done).to.equal(true);
    ec2.destroy();
  });

  it('ends calls still waiting out their latency when the emulator stops, without applying them', async () => {
    const ec2 = ec2Client(emu, 1);
    emu.knobs.setLatency(60_000, 'RunInstances');
    const pending = ec2.send(new RunInstancesCommand(workerLaunch('late'))).then(
      () => 'resolved',
      () => 'rejected',
    );
    await eventually(() => emu.knobs.counts('RunInstances').total === 1);
    await emu.stop();
    expect(await pending).to.equal('rejected');
    expect(emu.instances()).to.deep.equal([]);
    ec2.destroy();
  });

  it('counts every request per action, SDK retries included, and validation errors as failed', async () => {
    const ec2 = ec2Client(emu, 3);
    emu.knobs.failNext('DescribeSubnets', 2);
    await ec2.send(new DescribeSubnetsCommand({}));
    await awsError(
      ec2.send(new DescribeSubnetsCommand({ SubnetIds: ['subnet-0000000000000beef'] })),
      'InvalidSubnetID.NotFound',
    );
    expect(emu.knobs.allCounts()).to.deep.equal({
      DescribeSubnets: { total: 4, throttled: 0, failed: 3, lostReplies: 0 },
    });
    ec2.destroy();
  });
});
