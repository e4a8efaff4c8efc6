import { expect } from 'chai';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FakeClock } from '../../../lib/base/fake-clock.js';
import { clientFor, rawToken, START, startEmulator, workerPrototype } from '../../providers/ibmcloud/ibm-test-env.js';

describe('IBM VPC emulator: persistence', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'ibm-emu-'));
  });
  afterEach(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it('restores instances, tags and lifecycle from dataDir after a restart, and still honours old tokens', async () => {
    const clock = new FakeClock(START);
    const first = await startEmulator({ clock, dataDir: dir });
    const api = clientFor(first.emu);
    const inst = await api.createInstance(workerPrototype(first.emu, 'worker-kept'));
    const oldToken = await rawToken(first.emu.iamEndpoint, first.emu.apiKey);
    await api.attachTags([inst.crn], ['env:test']);
    await first.emu.stop();
    expect(statSync(join(dir, 'ibm-vpc-emulator-state.json')).mode & 0o777, 'owner-only: it holds user data').to.equal(
      0o600,
    );

    const second = await startEmulator({ clock, dataDir: dir, port: 0 });
    try {
      expect(second.emu.instances().map((i) => [i.id, i.status])).to.deep.equal([[inst.id, 'pending']]);
      clock.step(500);
      expect(second.emu.instance(inst.id)?.status, 'timers re-armed after restore').to.equal('running');
      const withOldToken = await fetch(`${second.emu.endpoint}/vpcs?version=2025-12-16&generation=2`, {
        headers: { Authorization: `Bearer ${oldToken}` },
      });
      expect(withOldToken.status, 'a token issued before the restart is still valid').to.equal(200);
      const again = clientFor(second.emu);
      expect(await again.listAttachedTags(inst.crn)).to.deep.equal(['env:test']);
      const dup = await again.createInstance(workerPrototype(second.emu, 'worker-new'));
      expect(dup.id).to.not.equal(inst.id);
    } finally {
      await second.emu.stop();
    }
  });

  it('refuses a dataDir saved for another region', async () => {
    const first = await startEmulator({ dataDir: dir });
    await first.emu.stop();
    let caught: unknown;
    try {
      await startEmulator({ dataDir: dir, region: 'eu-de' });
    } catch (err) {
      caught = err;
    }
    expect(String(caught)).to.match(/region us-south, not eu-de/);
  });
});
