import { expect } from 'chai';
import { FakeClock } from '../../../lib/index.js';
import { startGceEmulator, type GceEmulator } from '../../../sim/gcp/index.js';
import {
  clientsFor,
  closeClients,
  errorOf,
  insert,
  NO_RETRY,
  PROJECT,
  REGION,
  rid,
  until,
  waitDone,
  ZONE,
  type Clients,
} from './fixtures.js';

describe('GCE emulator: fault knobs as the client sees them', () => {
  let emu: GceEmulator;
  let c: Clients;
  const get = (name: string, opts?: typeof NO_RETRY) =>
    c.instances.get({ project: PROJECT, zone: ZONE, instance: name }, opts);

  beforeEach(async () => {
    emu = await startGceEmulator({ bootDelayMs: 50, stopDelayMs: 20, deleteDelayMs: 20 });
    c = clientsFor(emu);
  });
  afterEach(async () => {
    await closeClients(c);
    await emu.stop();
  });

  it('throttles with 403 rateLimitExceeded by default, counted as throttled', async () => {
    emu.knobs.throttleNext('instances.insert');
    const err = await errorOf(insert(c, 'th-a'));
    expect(err.httpStatusCode).to.equal(403);
    expect(err.code).to.equal(7);
    expect(err.message).to.equal('Rate Limit Exceeded');
    expect(emu.knobs.counts('instances.insert')).to.deep.include({ total: 1, throttled: 1 });
    expect(emu.instance('th-a')).to.equal(undefined);
  });

  it('throttles with 429 when asked to, and through a token-bucket rate limit on reads', async () => {
    emu.setThrottleStatus(429);
    emu.knobs.setRateLimit('read', { ratePerSecond: 0.001, burst: 1 });
    await errorOf(get('missing'));
    const err = await errorOf(get('missing'));
    expect(err.httpStatusCode).to.equal(429);
    expect(err.code).to.equal(8);
    expect(err.message).to.contain("Quota exceeded for quota metric 'Queries'");
  });

  it('injects a 503 the client sees as UNAVAILABLE, and which gax retries for idempotent calls', async () => {
    await insert(c, 'f5-a');
    emu.knobs.failNext('instances.get');
    const err = await errorOf(get('f5-a', NO_RETRY));
    expect(err.httpStatusCode).to.equal(503);
    expect(err.code).to.equal(14);
    emu.knobs.resetCounters();
    emu.knobs.failNext('instances.get');
    const [inst] = await get('f5-a');
    expect(inst.name).to.equal('f5-a');
    expect(emu.knobs.counts('instances.get')).to.deep.include({ total: 2, failed: 1 });
  });

  it('loses the reply of an insert that took effect; a retry with the same requestId gets the original operation', async () => {
    emu.knobs.loseNextReplies('instances.insert');
    const id = rid();
    const err = await errorOf(insert(c, 'lost-a', {}, id));
    expect(err.message).to.match(/socket hang up|ECONNRESET|fetch failed|network/i);
    expect(emu.instance('lost-a')?.name).to.equal('lost-a');
    const op = await insert(c, 'lost-a', {}, id);
    expect(op.operationType).to.equal('insert');
    expect(emu.instances().filter((i) => i.name === 'lost-a')).to.have.length(1);
    expect(emu.knobs.counts('instances.insert')).to.deep.include({ total: 2, lostReplies: 1 });
  });

  it('can answer a lost reply with a 503 instead of dropping the connection', async () => {
    emu.knobs.loseNextReplies('instances.delete', 1, 'server-error');
    await insert(c, 'lost-b');
    const err = await errorOf(c.instances.delete({ project: PROJECT, zone: ZONE, instance: 'lost-b' }));
    expect(err.httpStatusCode).to.equal(503);
    expect(emu.instance('lost-b')?.status).to.equal('STOPPING');
  });

  it('reports a stockout inside the insert operation, with the instance never created', async () => {
    emu.setStockout('e2-standard-4', ZONE);
    const op = await waitDone(c, await insert(c, 'so-a'));
    expect(op.error?.errors?.[0]?.code).to.equal('ZONE_RESOURCE_POOL_EXHAUSTED');
    expect(op.httpErrorStatusCode).to.equal(503);
    expect((await errorOf(get('so-a'))).httpStatusCode).to.equal(404);
  });

  it('has no a3-highgpu-8g in any zone by default, until a zone is given some', async () => {
    const a3 = {
      machineType: `zones/${ZONE}/machineTypes/a3-highgpu-8g`,
      scheduling: { onHostMaintenance: 'TERMINATE' },
    };
    expect((await waitDone(c, await insert(c, 'a3-a', a3))).error?.errors?.[0]?.code).to.equal(
      'ZONE_RESOURCE_POOL_EXHAUSTED',
    );
    emu.setStockout('a3-highgpu-8g', ZONE, false);
    expect((await waitDone(c, await insert(c, 'a3-b', a3))).error ?? null).to.equal(null);
    emu.setStockout('a3-highgpu-8g', ZONE, true);
    expect((await waitDone(c, await insert(c, 'a3-c', a3))).error?.errors?.[0]?.code).to.equal(
      'ZONE_RESOURCE_POOL_EXHAUSTED',
    );
  });

  it('reports regional CPU quota exhaustion inside the insert operation as QUOTA_EXCEEDED 403', async () => {
    emu.setQuotaLimit(REGION, 'CPUS', 6);
    expect((await waitDone(c, await insert(c, 'q-a'))).error ?? null).to.equal(null);
    const op = await waitDone(c, await insert(c, 'q-b'));
    expect(op.error?.errors?.[0]).to.deep.include({
      code: 'QUOTA_EXCEEDED',
      message: `Quota 'CPUS' exceeded.  Limit: 6.0 in region ${REGION}.`,
    });
    expect(op.httpErrorStatusCode).to.equal(403);
    const [region] = await c.regions.get({ project: PROJECT, region: REGION });
    expect(region.quotas?.find((q) => q.metric === 'CPUS')).to.deep.include({ limit: 6, usage: 4 });
  });

  it('counts calls per action', async () => {
    await insert(c, 'cnt-a');
    await get('cnt-a');
    await errorOf(get('nope'));
    const all = emu.knobs.allCounts();
    expect(all['instances.insert']).to.deep.equal({ total: 1, throttled: 0, failed: 0, lostReplies: 0 });
    expect(all['instances.get']).to.deep.equal({ total: 2, throttled: 0, failed: 1, lostReplies: 0 });
  });

  it('answers malformed JSON with 400 parseError and keeps serving', async () => {
    const res = await fetch(`${emu.apiRoot}projects/${PROJECT}/zones/${ZONE}/instances`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"name": ',
    });
    expect(res.status).to.equal(400);
    const body = (await res.json()) as { error: { code: number; errors: { reason: string; domain: string }[] } };
    expect(body.error.code).to.equal(400);
    expect(body.error.errors[0]).to.deep.include({ reason: 'parseError', domain: 'global' });
    await insert(c, 'after-bad');
    expect((await get('after-bad'))[0].name).to.equal('after-bad');
  });
});

describe('GCE emulator: time-based knobs on a fake clock', () => {
  it('hides a new instance from get until the visibility delay passes', async () => {
    const clock = new FakeClock();
    const emu = await startGceEmulator({ clock, knobs: { visibilityDelayMs: { get: 3_000 } } });
    const c = clientsFor(emu);
    try {
      await insert(c, 'ec-a');
      expect(
        (await errorOf(c.instances.get({ project: PROJECT, zone: ZONE, instance: 'ec-a' }))).httpStatusCode,
      ).to.equal(404);
      const [listed] = await c.instances.list({ project: PROJECT, zone: ZONE });
      expect(listed.map((i) => i.name)).to.deep.equal(['ec-a']);
      clock.step(3_000);
      expect((await c.instances.get({ project: PROJECT, zone: ZONE, instance: 'ec-a' }))[0].name).to.equal('ec-a');
    } finally {
      await closeClients(c);
      await emu.stop();
    }
  });

  it('holds a call for its configured latency', async () => {
    const clock = new FakeClock();
    const emu = await startGceEmulator({ clock, knobs: { latency: [{ match: 'projects.get', latency: 500 }] } });
    const c = clientsFor(emu);
    try {
      let settled = false;
      const call = c.projects.get({ project: PROJECT }).finally(() => {
        settled = true;
      });
      await until(() => emu.knobs.counts('projects.get').total === 1);
      clock.step(499);
      await new Promise((r) => setTimeout(r, 20));
      expect(settled).to.equal(false);
      clock.step(1);
      expect((await call)[0].name).to.equal(PROJECT);
    } finally {
      await closeClients(c);
      await emu.stop();
    }
  });
});
