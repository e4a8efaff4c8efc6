import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { FakeClock } from '../../../lib/base/fake-clock.js';
import { stateHistory } from '../../../sim/kit/instance-view.js';
import { startGceEmulator } from '../../../sim/gcp/index.js';
import { clientsFor, closeClients, insert, PROJECT, rid, waitDone, ZONE } from './fixtures.js';

describe('GCE emulator: persistence and the instance view', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'gce-emu-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('keeps instances, disks and requestIds across a restart with the same dataDir', async () => {
    const first = await startGceEmulator({ dataDir: dir, bootDelayMs: 20 });
    let c = clientsFor(first);
    const id = rid();
    const op = await waitDone(c, await insert(c, 'keep-a', {}, id));
    const before = first.instance('keep-a');
    await closeClients(c);
    await first.stop();

    const second = await startGceEmulator({ dataDir: dir });
    c = clientsFor(second);
    try {
      const [inst] = await c.instances.get({ project: PROJECT, zone: ZONE, instance: 'keep-a' });
      expect(inst.id).to.equal(before?.id);
      expect(inst.status).to.equal('RUNNING');
      expect(second.world.disks.map((d) => d.name)).to.deep.equal(['keep-a']);
      const again = await insert(c, 'keep-a', {}, id);
      expect(again.name).to.equal(op.name);
    } finally {
      await closeClients(c);
      await second.stop();
    }
  });

  it('refuses a dataDir holding a world without the requested project', async () => {
    const first = await startGceEmulator({ dataDir: dir });
    await first.stop();
    let err: unknown;
    try {
      await startGceEmulator({ dataDir: dir, projects: ['another-project'] });
    } catch (e) {
      err = e;
    }
    expect(String(err)).to.contain('another-project');
  });

  it('notifies view listeners on changes and shows out-of-band deletion as terminating', async () => {
    const emu = await startGceEmulator({ bootDelayMs: 20, deleteDelayMs: 50 });
    const c = clientsFor(emu);
    try {
      let changes = 0;
      const off = emu.instanceView().onChange(() => changes++);
      await waitDone(
        c,
        await insert(c, 'view-a', { networkInterfaces: [{ network: 'global/networks/default', accessConfigs: [{}] }] }),
      );
      expect(changes).to.be.greaterThan(0);
      const [v] = emu.instanceView().listInstances();
      expect(v?.addresses.map((a) => a.type)).to.deep.equal(['InternalIP', 'ExternalIP', 'InternalDNS', 'Hostname']);
      expect(v?.labels?.['topology.kubernetes.io/zone']).to.equal(ZONE);
      emu.terminateOutOfBand('view-a');
      expect(emu.instanceView().listInstances()[0]?.state).to.equal('terminating');
      off();
    } finally {
      await closeClients(c);
      await emu.stop();
    }
  });

  it("shows a stop and start as stopping, stopped (GCE's TERMINATED), pending and running: never terminating, so the Node stays", async () => {
    const clock = new FakeClock();
    const emu = await startGceEmulator({ clock, bootDelayMs: 1_000, stopDelayMs: 500 });
    const c = clientsFor(emu);
    try {
      await insert(c, 'view-b');
      clock.step(1_000);
      const history = stateHistory(emu.instanceView(), 'view-b');
      await c.instances.stop({ project: PROJECT, zone: ZONE, instance: 'view-b' });
      clock.step(500);
      expect(emu.instance('view-b')?.status).to.equal('TERMINATED');
      await c.instances.start({ project: PROJECT, zone: ZONE, instance: 'view-b' });
      clock.step(1_000);
      history.stop();
      expect(history.states).to.deep.equal(['running', 'stopping', 'stopped', 'pending', 'running']);
    } finally {
      await closeClients(c);
      await emu.stop();
    }
  });
});
