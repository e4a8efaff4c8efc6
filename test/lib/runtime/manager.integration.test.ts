import { expect } from 'chai';
import type { Lease } from '../../../lib/apis/core.js';
import type { KubeClient } from '../../../lib/client/kube-client.js';
import { ConfigMaps, Leases, Namespaces } from '../../../lib/client/resources.js';
import { LeaderElectionLostError, type Manager } from '../../../lib/runtime/manager.js';
import { startTestEnv, type TestEnv } from '../../../sim/kit/test-env.js';
import { waitFor } from './support/wait.js';

/** A client that can be cut off from the server, as a killed or partitioned process would be. */
function partitionable(inner: KubeClient) {
  let cut = false;
  const client = new Proxy(inner, {
    get(target, prop, receiver) {
      const value: unknown = Reflect.get(target, prop, receiver);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) =>
        cut
          ? Promise.reject(new Error('connect ECONNREFUSED (partitioned)'))
          : (value as (...a: unknown[]) => unknown).apply(target, args);
    },
  });
  return { client, cut: () => (cut = true) };
}

/** leader_election_master_status{name="test-leader"} of a manager's registry. */
async function leaderStatus(mgr: Manager): Promise<number | undefined> {
  const values = (await mgr.metrics.getSingleMetric('leader_election_master_status')?.get())?.values ?? [];
  return values.find((v) => v.labels.name === 'test-leader')?.value;
}

const le = { id: 'test-leader', namespace: 'mgr', leaseDurationMs: 1000, renewDeadlineMs: 800, retryPeriodMs: 200 };

describe('Manager against the local control plane', function () {
  this.timeout(20_000);
  let env: TestEnv;
  before(async () => {
    env = await startTestEnv();
    await env.client.create(Namespaces, { metadata: { name: 'mgr' } });
  });
  after(async () => env?.stop());
  afterEach(async () => {
    await env.client.delete(Leases, { namespace: 'mgr', name: le.id }).catch(() => undefined);
  });

  function candidate(identity: string, client?: KubeClient) {
    let lost = 0;
    const mgr = env.newManager({
      client: client ?? env.client,
      leaderElection: { ...le, identity },
      onLeadershipLost: () => lost++,
    });
    let running = 0;
    mgr.add({
      start: async (signal) => {
        running++;
        await new Promise((r) => signal.addEventListener('abort', r));
        running--;
      },
    });
    let everRan = false;
    mgr.add({
      needLeaderElection: false,
      start: async (signal) => {
        everRan = true;
        await new Promise((r) => signal.addEventListener('abort', r));
      },
    });
    const stop = new AbortController();
    const done = mgr.start(stop.signal);
    done.catch(() => undefined);
    return { mgr, stop, done, leading: () => running > 0, lost: () => lost, nonLeaderRan: () => everRan };
  }

  it('lets exactly one of two managers lead; the other takes over within a lease duration after the leader dies without releasing', async () => {
    const pa = partitionable(env.client);
    const a = candidate('a', pa.client);
    await waitFor(() => a.leading(), 'a to lead');
    const b = candidate('b');
    await waitFor(() => b.nonLeaderRan(), 'b to run its non-leader runnable');
    const until = Date.now() + 1500;
    while (Date.now() < until) {
      expect(b.leading(), 'b must not lead while a renews').to.equal(false);
      expect(a.leading()).to.equal(true);
      await new Promise((r) => setTimeout(r, 50));
    }
    // client-go's gauge: 1 on the leader, 0 on the candidate.
    expect(await leaderStatus(a.mgr)).to.equal(1);
    expect(await leaderStatus(b.mgr)).to.equal(0);
    pa.cut();
    const cutAt = Date.now();
    await waitFor(() => b.leading(), 'b to take over', 4000);
    const takeover = Date.now() - cutAt;
    expect(takeover).to.be.lessThan(le.leaseDurationMs + 2 * le.retryPeriodMs * 1.2 + 600);
    // a cannot renew either: it loses leadership, stops its runnables and reports it.
    const aErr = await a.done.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(aErr).to.be.instanceOf(LeaderElectionLostError);
    expect(a.lost()).to.equal(1);
    expect(a.leading()).to.equal(false);
    expect(await leaderStatus(a.mgr)).to.equal(0);
    expect(await leaderStatus(b.mgr)).to.equal(1);
    const lease = await env.client.get(Leases, { namespace: 'mgr', name: le.id });
    expect(lease.spec?.holderIdentity).to.equal('b');
    expect(lease.spec?.leaseTransitions).to.equal(1);
    b.stop.abort();
    await b.done;
  });

  it('renews the lease through its own client, so a main client stuck behind its rate limit never costs the lease', async () => {
    // The main client allows one request per 10 s: a scale-up's queue of writes, in miniature.
    const saturated = env.newClient({ qps: 0.1, burst: 1 });
    let lost = 0;
    const mgr = env.newManager({
      client: saturated,
      leaderElectionClient: env.newClient(),
      leaderElection: { ...le, identity: 'busy' },
      onLeadershipLost: () => lost++,
    });
    let running = false;
    mgr.add({
      start: async (signal) => {
        running = true;
        await new Promise((r) => signal.addEventListener('abort', r));
      },
    });
    const stop = new AbortController();
    const done = mgr.start(stop.signal);
    done.catch(() => undefined);
    await waitFor(() => running, 'the busy manager to lead');
    void saturated.list(ConfigMaps, { namespace: 'mgr' }).catch(() => undefined);
    void saturated.list(ConfigMaps, { namespace: 'mgr' }).catch(() => undefined);
    await new Promise((r) => setTimeout(r, 3 * le.leaseDurationMs));
    expect(lost).to.equal(0);
    const lease = await env.client.get(Leases, { namespace: 'mgr', name: le.id });
    expect(lease.spec?.holderIdentity).to.equal('busy');
    stop.abort();
    await done.catch(() => undefined);
  });

  it('releases the lease on a clean stop (holderIdentity "") so the next candidate leads at once', async () => {
    const a = candidate('a');
    await waitFor(() => a.leading(), 'a to lead');
    const b = candidate('b');
    await new Promise((r) => setTimeout(r, 300));
    expect(b.leading()).to.equal(false);
    a.stop.abort();
    await a.done;
    const released = await env.client.get(Leases, { namespace: 'mgr', name: le.id });
    const stoppedAt = Date.now();
    expect(['', 'b']).to.include(released.spec?.holderIdentity);
    await waitFor(() => b.leading(), 'b to lead after the release', 2000);
    expect(Date.now() - stoppedAt).to.be.lessThan(le.leaseDurationMs);
    b.stop.abort();
    await b.done;
    const final: Lease = await env.client.get(Leases, { namespace: 'mgr', name: le.id });
    expect(final.spec?.holderIdentity).to.equal('');
  });

  it('lets an in-flight reconcile finish on stop, then resolves start()', async () => {
    await env.client.create(ConfigMaps, { metadata: { name: 'slow', namespace: 'mgr' } });
    const mgr: Manager = env.newManager({ namespace: 'mgr' });
    let release!: () => void;
    let started = false;
    let finishedWithSignal: boolean | undefined;
    mgr.addController({
      name: 'slow',
      watches: [{ informer: mgr.informer(ConfigMaps), enqueue: 'self' }],
      reconciler: {
        reconcile: async (_r, ctx) => {
          started = true;
          await new Promise<void>((r) => (release = r));
          finishedWithSignal = ctx.signal.aborted;
        },
      },
    });
    const stop = new AbortController();
    const done = mgr.start(stop.signal);
    await waitFor(() => started, 'the reconcile to start');
    stop.abort();
    let resolved = false;
    void done.then(() => (resolved = true));
    await new Promise((r) => setTimeout(r, 100));
    expect(resolved).to.equal(false);
    release();
    await done;
    expect(finishedWithSignal).to.equal(false);
  });

  it("answers /healthz/<check> and /readyz/<check>, ?verbose and ?exclude with controller-runtime's bodies and codes", async () => {
    const mgr = env.newManager({ namespace: 'mgr', healthAddr: '127.0.0.1:0' });
    let dbUp = false;
    mgr.addReadyzCheck('db', () => {
      if (!dbUp) throw new Error('db unreachable');
    });
    mgr.addHealthzCheck('ping', () => undefined);
    const stop = new AbortController();
    const done = mgr.start(stop.signal);
    await waitFor(() => mgr.ready && mgr.healthAddress() !== undefined, 'caches synced and the health server');
    const get = async (path: string) => {
      const res = await fetch(`http://${mgr.healthAddress()}${path}`);
      return { status: res.status, body: await res.text(), type: res.headers.get('content-type') };
    };
    expect(await get('/healthz')).to.deep.equal({ status: 200, body: 'ok', type: 'text/plain; charset=utf-8' });
    expect(await get('/healthz?verbose')).to.deep.include({
      status: 200,
      body: '[+]ping ok\nhealthz check passed\n',
    });
    expect(await get('/healthz/ping')).to.deep.include({ status: 200, body: 'ok' });
    expect(await get('/healthz/ping/')).to.deep.include({ status: 200, body: 'ok' });
    expect(await get('/healthz/nope')).to.deep.include({ status: 404, body: '404 page not found\n' });
    expect(await get('/readyz')).to.deep.include({
      status: 500,
      body: '[+]caches-synced ok\n[-]db failed: reason withheld\nhealthz check failed\n',
    });
    expect(await get('/readyz/db')).to.deep.include({
      status: 500,
      body: 'internal server error: db unreachable\n',
    });
    expect(await get('/readyz/caches-synced')).to.deep.include({ status: 200, body: 'ok' });
    expect(await get('/readyz?exclude=db&exclude=nothing')).to.deep.include({
      status: 200,
      body: 'ok',
    });
    expect(await get('/readyz?exclude=db&exclude=nothing&verbose')).to.deep.include({
      status: 200,
      body:
        '[+]caches-synced ok\n[+]db excluded: ok\n' +
        'warn: some health checks cannot be excluded: no matches for "nothing"\nhealthz check passed\n',
    });
    dbUp = true;
    expect(await get('/readyz?verbose=1')).to.deep.include({
      status: 200,
      body: '[+]caches-synced ok\n[+]db ok\nhealthz check passed\n',
    });
    stop.abort();
    await done;
  });

  it('serves a V8 CPU profile and sampled heap profile on the pprof address, one CPU profile at a time', async () => {
    const mgr = env.newManager({ namespace: 'mgr', pprofAddr: '127.0.0.1:0' });
    const stop = new AbortController();
    const done = mgr.start(stop.signal);
    await waitFor(() => mgr.pprofAddress() !== undefined, 'the pprof server');
    const base = `http://${mgr.pprofAddress()}/debug/pprof`;
    const first = fetch(`${base}/profile?seconds=1`);
    await new Promise((r) => setTimeout(r, 100));
    const second = await fetch(`${base}/profile?seconds=1`);
    expect(second.status).to.equal(500);
    expect(await second.text()).to.equal('Could not enable CPU profiling: cpu profiling already in use\n');
    const res = await first;
    expect(res.status).to.equal(200);
    expect(res.headers.get('content-disposition')).to.equal('attachment; filename="profile.cpuprofile"');
    const profile = (await res.json()) as {
      nodes: Array<{ callFrame: { functionName: string } }>;
      startTime: number;
      endTime: number;
    };
    expect(profile.nodes.length).to.be.greaterThan(1);
    expect(profile.nodes[0]?.callFrame.functionName).to.equal('(root)');
    // About the second asked for (V8 counts in microseconds).
    expect(profile.endTime - profile.startTime).to.be.within(900_000, 5_000_000);
    // Go's heap profile: the live objects among the sampled allocations, here 8 MiB kept since the server started.
    const kept = Array.from({ length: 64 }, () => new Array<number>(16_384).fill(1));
    const heap = await fetch(`${base}/heap`);
    expect(heap.status).to.equal(200);
    expect(heap.headers.get('content-disposition')).to.equal('attachment; filename="heap.heapprofile"');
    const sampled = (await heap.json()) as { head: { callFrame: { functionName: string } }; samples: unknown[] };
    expect(sampled.head.callFrame.functionName).to.equal('(root)');
    expect(sampled.samples.length).to.be.greaterThan(4);
    expect(kept.length).to.equal(64);
    expect((await fetch(`${base}/`)).status).to.equal(200);
    stop.abort();
    await done;
  });

  it('serves /healthz, /readyz once caches synced, and /metrics with controller-runtime names', async () => {
    const mgr = env.newManager({ namespace: 'mgr', healthAddr: '127.0.0.1:0', metricsAddr: '127.0.0.1:0' });
    let reconciled = 0;
    mgr.addController({
      name: 'probe',
      watches: [{ informer: mgr.informer(ConfigMaps), enqueue: 'self' }],
      reconciler: { reconcile: async () => void reconciled++ },
    });
    await env.client.create(ConfigMaps, { metadata: { name: 'probe-cm', namespace: 'mgr' } });
    const stop = new AbortController();
    const done = mgr.start(stop.signal);
    await waitFor(() => mgr.ready && reconciled > 0, 'ready and one reconcile');
    const health = await fetch(`http://${mgr.healthAddress()}/healthz`);
    expect(health.status).to.equal(200);
    const ready = await fetch(`http://${mgr.healthAddress()}/readyz`);
    expect(ready.status).to.equal(200);
    let backendUp = false;
    mgr.addReadyzCheck('backend', () => {
      if (!backendUp) throw new Error('backend down');
    });
    const notReady = await fetch(`http://${mgr.healthAddress()}/readyz`);
    expect(notReady.status).to.equal(500);
    expect(await notReady.text()).to.equal(
      '[-]backend failed: reason withheld\n[+]caches-synced ok\nhealthz check failed\n',
    );
    backendUp = true;
    expect((await fetch(`http://${mgr.healthAddress()}/readyz`)).status).to.equal(200);
    const text = await (await fetch(`http://${mgr.metricsAddress()}/metrics`)).text();
    for (const name of [
      'controller_runtime_reconcile_total{controller="probe",result="success"}',
      'controller_runtime_reconcile_errors_total',
      'controller_runtime_terminal_reconcile_errors_total',
      'controller_runtime_reconcile_time_seconds_bucket',
      'controller_runtime_active_workers',
      'controller_runtime_max_concurrent_reconciles{controller="probe"} 10',
      'workqueue_depth{name="probe"',
      'workqueue_adds_total{name="probe"',
      'workqueue_queue_duration_seconds_bucket',
      'workqueue_work_duration_seconds_bucket',
      'workqueue_retries_total',
      'workqueue_unfinished_work_seconds{name="probe"',
      'workqueue_longest_running_processor_seconds{name="probe"',
    ])
      expect(text, name).to.include(name);
    stop.abort();
    await done;
  });
});
