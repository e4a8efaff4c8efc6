import { expect } from 'chai';
import { FakeClock } from '../../../lib/index.js';
import { startGceEmulator, type GceEmulator } from '../../../sim/gcp/index.js';
import {
  clientsFor,
  closeClients,
  errorOf,
  insert,
  PROJECT,
  rid,
  until,
  waitDone,
  ZONE,
  type Clients,
} from './fixtures.js';

describe('GCE emulator: instances through @google-cloud/compute', () => {
  let emu: GceEmulator;
  let c: Clients;

  beforeEach(async () => {
    emu = await startGceEmulator({ bootDelayMs: 100, stopDelayMs: 50, deleteDelayMs: 1_000 });
    c = clientsFor(emu);
  });
  afterEach(async () => {
    await closeClients(c);
    await emu.stop();
  });

  it('answers a repeated insert with the same requestId with the original operation and creates nothing new', async () => {
    const id = rid();
    const first = await insert(c, 'worker-b', {}, id);
    const again = await insert(c, 'worker-b', {}, id);
    expect(again.name).to.equal(first.name);
    expect(emu.instances().filter((i) => i.name === 'worker-b')).to.have.length(1);
    expect(emu.knobs.counts('instances.insert').total).to.equal(2);
  });

  it('refuses a second instance with the same name and a new requestId with 409 alreadyExists', async () => {
    await insert(c, 'worker-c');
    const err = await errorOf(insert(c, 'worker-c'));
    expect(err.httpStatusCode).to.equal(409);
    expect(err.code).to.equal(10);
    expect(err.message).to.equal(`The resource 'projects/${PROJECT}/zones/${ZONE}/instances/worker-c' already exists`);
  });

  it('refuses a requestId that is not a UUID', async () => {
    const err = await errorOf(insert(c, 'worker-d', {}, 'not-a-uuid'));
    expect(err.httpStatusCode).to.equal(400);
    expect(err.message).to.contain("Invalid value for field 'requestId'");
  });

  it('lists with a label filter and pages with maxResults/pageToken (the client autopaginates)', async () => {
    for (const n of ['p1', 'p2', 'p3', 'p4', 'p5'])
      await insert(c, n, { labels: { role: n === 'p5' ? 'master' : 'worker' } });
    const [workers] = await c.instances.list({
      project: PROJECT,
      zone: ZONE,
      filter: 'labels.role = worker',
      maxResults: 2,
    });
    expect(workers.map((i) => i.name)).to.deep.equal(['p1', 'p2', 'p3', 'p4']);
    expect(emu.knobs.counts('instances.list').total).to.equal(2);

    const [firstPage, , raw] = await c.instances.list(
      { project: PROJECT, zone: ZONE, maxResults: 3 },
      { autoPaginate: false },
    );
    expect(firstPage.map((i) => i.name)).to.deep.equal(['p1', 'p2', 'p3']);
    expect(raw?.nextPageToken).to.be.a('string');
    const [byName] = await c.instances.list({ project: PROJECT, zone: ZONE, filter: 'name = "p3"' });
    expect(byName.map((i) => i.name)).to.deep.equal(['p3']);
    const [byRegex] = await c.instances.list({ project: PROJECT, zone: ZONE, filter: 'name eq "p[12]"' });
    expect(byRegex.map((i) => i.name)).to.deep.equal(['p1', 'p2']);
    const [masters] = await c.instances.list({
      project: PROJECT,
      zone: ZONE,
      filter: '(labels.role = master) OR (name = "p1")',
    });
    expect(masters.map((i) => i.name)).to.deep.equal(['p1', 'p5']);
  });

  it('groups instances by zone in aggregatedList, pages it, and warns for zones without any on a page', async () => {
    await insert(c, 'agg-a');
    await insert(c, 'agg-b', {}, rid(), 'us-central1-b');
    const names: Record<string, string[]> = {};
    const warnings = new Set<string>();
    for await (const [scope, list] of c.instances.aggregatedListAsync(
      { project: PROJECT, maxResults: 1 },
      { autoPaginate: false },
    )) {
      if (list.instances?.length) names[scope] = [...(names[scope] ?? []), ...list.instances.map((i) => i.name ?? '')];
      else if (list.warning?.code === 'NO_RESULTS_ON_PAGE') warnings.add(scope);
    }
    expect(names).to.deep.equal({ 'zones/us-central1-a': ['agg-a'], 'zones/us-central1-b': ['agg-b'] });
    expect(warnings).to.include('zones/us-central1-c');
    expect(emu.knobs.counts('instances.aggregatedList').total).to.equal(2);
  });

  it('deletes an instance (STOPPING, then 404) and answers a repeated delete requestId with the same operation', async () => {
    await waitDone(c, await insert(c, 'del-a'));
    const id = rid();
    const [lro] = await c.instances.delete({ project: PROJECT, zone: ZONE, instance: 'del-a', requestId: id });
    const op = lro.latestResponse as { name: string };
    const [stopping] = await c.instances.get({ project: PROJECT, zone: ZONE, instance: 'del-a' });
    expect(stopping.status).to.equal('STOPPING');
    await waitDone(c, op);
    const err = await errorOf(c.instances.get({ project: PROJECT, zone: ZONE, instance: 'del-a' }));
    expect(err.httpStatusCode).to.equal(404);
    const [again] = await c.instances.delete({ project: PROJECT, zone: ZONE, instance: 'del-a', requestId: id });
    expect((again.latestResponse as { name: string }).name).to.equal(op.name);
    expect(emu.world.disks.some((d) => d.name === 'del-a')).to.equal(false);
  });

  it('refuses to delete an instance with deletion protection until it is lifted', async () => {
    await insert(c, 'prot-a', { deletionProtection: true });
    const err = await errorOf(c.instances.delete({ project: PROJECT, zone: ZONE, instance: 'prot-a' }));
    expect(err.httpStatusCode).to.equal(400);
    expect(err.message).to.contain('protected against deletion');
    await c.instances.setDeletionProtection({
      project: PROJECT,
      zone: ZONE,
      resource: 'prot-a',
      deletionProtection: false,
    });
    await c.instances.delete({ project: PROJECT, zone: ZONE, instance: 'prot-a' });
    expect(emu.instance('prot-a')?.status).to.equal('STOPPING');
  });

  it('sets labels, metadata and tags guarded by their fingerprints', async () => {
    await insert(c, 'set-a');
    const [inst] = await c.instances.get({ project: PROJECT, zone: ZONE, instance: 'set-a' });
    await c.instances.setLabels({
      project: PROJECT,
      zone: ZONE,
      instance: 'set-a',
      instancesSetLabelsRequestResource: { labels: { env: 'test' }, labelFingerprint: inst.labelFingerprint ?? '' },
    });
    const stale = await errorOf(
      c.instances.setLabels({
        project: PROJECT,
        zone: ZONE,
        instance: 'set-a',
        instancesSetLabelsRequestResource: { labels: {}, labelFingerprint: inst.labelFingerprint ?? '' },
      }),
    );
    expect(stale.httpStatusCode).to.equal(412);
    await c.instances.setMetadata({
      project: PROJECT,
      zone: ZONE,
      instance: 'set-a',
      metadataResource: { fingerprint: inst.metadata?.fingerprint ?? '', items: [{ key: 'k', value: 'v' }] },
    });
    await c.instances.setTags({
      project: PROJECT,
      zone: ZONE,
      instance: 'set-a',
      tagsResource: { fingerprint: inst.tags?.fingerprint ?? '', items: ['web'] },
    });
    const [after] = await c.instances.get({ project: PROJECT, zone: ZONE, instance: 'set-a' });
    expect(after.labels).to.deep.equal({ env: 'test' });
    expect(after.metadata?.items?.map((i) => i.key)).to.deep.equal(['k']);
    expect(after.tags?.items).to.deep.equal(['web']);
  });

  it('stops (STOPPING → TERMINATED, external IP released) and starts again', async () => {
    await waitDone(
      c,
      await insert(c, 'ss-a', { networkInterfaces: [{ network: 'global/networks/default', accessConfigs: [{}] }] }),
    );
    const [before] = await c.instances.get({ project: PROJECT, zone: ZONE, instance: 'ss-a' });
    expect(before.networkInterfaces?.[0]?.accessConfigs?.[0]?.natIP).to.match(/^34\./);
    const [stop] = await c.instances.stop({ project: PROJECT, zone: ZONE, instance: 'ss-a' });
    await waitDone(c, stop.latestResponse as { name: string });
    const [stopped] = await c.instances.get({ project: PROJECT, zone: ZONE, instance: 'ss-a' });
    expect(stopped.status).to.equal('TERMINATED');
    expect(stopped.networkInterfaces?.[0]?.accessConfigs?.[0]?.natIP ?? '').to.equal('');
    const [start] = await c.instances.start({ project: PROJECT, zone: ZONE, instance: 'ss-a' });
    await waitDone(c, start.latestResponse as { name: string });
    const [started] = await c.instances.get({ project: PROJECT, zone: ZONE, instance: 'ss-a' });
    expect(started.status).to.equal('RUNNING');
    expect(started.networkInterfaces?.[0]?.accessConfigs?.[0]?.natIP).to.match(/^34\./);
  });
});

describe('GCE emulator: instance lifecycle on a fake clock', () => {
  it('inserts an instance whose operation goes PENDING → RUNNING → DONE and whose get shows it at once', async () => {
    const clock = new FakeClock();
    const emu = await startGceEmulator({ clock, bootDelayMs: 10_000 });
    const c = clientsFor(emu);
    try {
      const op = await insert(c, 'worker-a');
      expect(op.status).to.equal('PENDING');
      expect(op.operationType).to.equal('insert');
      expect(op.targetLink).to.equal(
        `https://www.googleapis.com/compute/v1/projects/${PROJECT}/zones/${ZONE}/instances/worker-a`,
      );

      const [early] = await c.instances.get({ project: PROJECT, zone: ZONE, instance: 'worker-a' });
      expect(early.status).to.equal('PROVISIONING');
      expect(early.networkInterfaces?.[0]?.networkIP).to.equal('10.0.128.2');
      expect(early.disks?.[0]?.diskSizeGb).to.equal('128');
      expect(early.scheduling?.onHostMaintenance).to.equal('MIGRATE');
      expect(early.id).to.match(/^\d{19}$/);

      const [running] = await c.zoneOps.get({ project: PROJECT, zone: ZONE, operation: op.name ?? '' });
      expect(running.status).to.equal('RUNNING');
      const waiting = c.zoneOps.wait({ project: PROJECT, zone: ZONE, operation: op.name ?? '' });
      await until(() => clock.pendingTimers() >= 2);
      clock.step(10_000);
      const [done] = await waiting;
      expect(done.status).to.equal('DONE');
      expect(done.progress).to.equal(100);
      const [after] = await c.instances.get({ project: PROJECT, zone: ZONE, instance: 'worker-a' });
      expect(after.status).to.equal('RUNNING');
      expect(after.selfLink).to.equal(done.targetLink);
    } finally {
      await closeClients(c);
      await emu.stop();
    }
  });

  it('answers wait with the operation as it is once the wait limit passes', async () => {
    const clock = new FakeClock();
    const emu = await startGceEmulator({ clock, bootDelayMs: 60_000, timings: { operationWaitMs: 2_000 } });
    const c = clientsFor(emu);
    try {
      const op = await insert(c, 'worker-w');
      const waiting = c.zoneOps.wait({ project: PROJECT, zone: ZONE, operation: op.name ?? '' });
      await until(() => clock.pendingTimers() >= 2);
      clock.step(2_000);
      expect((await waiting)[0].status).to.equal('RUNNING');
    } finally {
      await closeClients(c);
      await emu.stop();
    }
  });

  it('moves PROVISIONING → STAGING → RUNNING after the boot delay and STOPPING → gone after the delete delay', async () => {
    const clock = new FakeClock();
    const emu = await startGceEmulator({ clock, bootDelayMs: 10_000, deleteDelayMs: 4_000 });
    const c = clientsFor(emu);
    try {
      await insert(c, 'life-a');
      const status = async () =>
        (await c.instances.get({ project: PROJECT, zone: ZONE, instance: 'life-a' }))[0].status;
      expect(await status()).to.equal('PROVISIONING');
      clock.step(5_000);
      expect(await status()).to.equal('STAGING');
      clock.step(5_000);
      expect(await status()).to.equal('RUNNING');
      const view = emu.instanceView().listInstances();
      expect(view).to.have.length(1);
      expect(view[0]).to.deep.include({
        providerID: `gce://${PROJECT}/${ZONE}/life-a`,
        nodeName: 'life-a',
        state: 'running',
      });
      expect(view[0]?.addresses).to.deep.include({
        type: 'InternalDNS',
        address: `life-a.${ZONE}.c.${PROJECT}.internal`,
      });
      await c.instances.delete({ project: PROJECT, zone: ZONE, instance: 'life-a' });
      expect(await status()).to.equal('STOPPING');
      clock.step(4_000);
      expect((await errorOf(status())).httpStatusCode).to.equal(404);
    } finally {
      await closeClients(c);
      await emu.stop();
    }
  });
});
