import { DescribeInstancesCommand, RunInstancesCommand, TerminateInstancesCommand } from '@aws-sdk/client-ec2';
import { expect } from 'chai';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FakeClock } from '../../../lib/base/fake-clock.js';
import { startEc2Emulator } from '../../../sim/aws/index.js';
import { ec2Client, rejection, workerLaunch } from './ec2-test-env.js';

describe('EC2 emulator: persistence in a dataDir', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'ec2-emu-'));
  });
  afterEach(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it('restores instances, their states, tags and ClientTokens after a restart, and finishes due transitions', async () => {
    const clock = new FakeClock(Date.UTC(2026, 10, 22, 6, 0, 0));
    const first = await startEc2Emulator({ clock, dataDir: dir, timings: { bootMs: 1000, terminateMs: 1000 } });
    let c = ec2Client(first, 1);
    const keep = (await c.send(new RunInstancesCommand({ ...workerLaunch('keep'), ClientToken: 'uid-keep' })))
      .Instances![0]!.InstanceId!;
    const drop = (await c.send(new RunInstancesCommand(workerLaunch('drop')))).Instances![0]!.InstanceId!;
    clock.step(1000);
    await c.send(new TerminateInstancesCommand({ InstanceIds: [drop] }));
    c.destroy();
    await first.stop();

    const second = await startEc2Emulator({ clock, dataDir: dir, timings: { bootMs: 1000, terminateMs: 1000 } });
    c = ec2Client(second, 1);
    try {
      expect(second.instance(keep)?.state).to.equal('running');
      expect(second.instance(drop)?.state).to.equal('shutting-down');
      expect(second.instance(keep)?.tags).to.deep.include({ key: 'Name', value: 'keep' });
      clock.step(1000);
      const out = await c.send(new DescribeInstancesCommand({ InstanceIds: [keep, drop] }));
      const states = Object.fromEntries(
        out.Reservations!.flatMap((r) => r.Instances!).map((i) => [i.InstanceId, i.State?.Name]),
      );
      expect(states).to.deep.equal({ [keep]: 'running', [drop]: 'terminated' });
      const again = await c.send(new RunInstancesCommand({ ...workerLaunch('keep'), ClientToken: 'uid-keep' }));
      expect(again.Instances![0]!.InstanceId, 'the idempotency token survived the restart').to.equal(keep);
      const fresh = (await c.send(new RunInstancesCommand(workerLaunch('fresh')))).Instances![0]!;
      expect(fresh.InstanceId).to.not.be.oneOf([keep, drop]);
    } finally {
      c.destroy();
      await second.stop();
    }
  });

  it('never hands out an instance id twice in a dataDir, even when the restored world is older than the last run', async () => {
    const launchOne = async (name: string): Promise<string> => {
      const emu = await startEc2Emulator({ dataDir: dir });
      const c = ec2Client(emu, 1);
      try {
        return (await c.send(new RunInstancesCommand(workerLaunch(name)))).Instances![0]!.InstanceId!;
      } finally {
        c.destroy();
        await emu.stop();
      }
    };
    const first = await launchOne('first');
    // The world file lags behind what clients saw (a crash before the debounced save): the instance is forgotten.
    rmSync(join(dir, 'ec2-emulator-state.json'));
    const second = await launchOne('second');
    expect(second, 'the id the API server still holds as a providerID').to.not.equal(first);
  });

  it('refuses a corrupt state file or one from another region, with a message naming the file', async () => {
    writeFileSync(join(dir, 'ec2-emulator-state.json'), '{"version": 99}');
    const err = (await rejection(startEc2Emulator({ dataDir: dir }))) as Error;
    expect(err.message).to.contain('ec2-emulator-state.json').and.contain('unsupported emulator state format');

    rmSync(join(dir, 'ec2-emulator-state.json'));
    const emu = await startEc2Emulator({ dataDir: dir, region: 'us-west-2' });
    await emu.stop();
    const wrong = (await rejection(startEc2Emulator({ dataDir: dir, region: 'us-east-1' }))) as Error;
    expect(wrong.message).to.contain('us-west-2');
  });
});
