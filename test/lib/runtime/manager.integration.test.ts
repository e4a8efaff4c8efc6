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
    expect(await notReady.text()).to.equal('backend: backend down');
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
