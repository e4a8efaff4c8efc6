import { expect } from 'chai';
import { Registry } from 'prom-client';
import { ConfigMaps } from '../../../lib/client/resources.js';
import { ControllerImpl } from '../../../lib/runtime/controller.js';
import { FakeClock } from '../../../lib/base/fake-clock.js';
import { nullLogger } from '../../../lib/base/structured-logger.js';
import { RealClock } from '../../../lib/base/real-clock.js';
import { runtimeMetrics } from '../../../lib/runtime/runtime-metrics.js';
import { isResync, TerminalError, type Reconciler, type Request, type Result } from '../../../lib/runtime/types.js';
import type { Clock } from '../../../lib/base/clock.js';
import { FakeInformer, obj } from './support/fake-informer.js';
import { signalFollowers } from '../base/support/signal-followers.js';

const settle = async (n = 5) => {
  for (let i = 0; i < n; i++) await new Promise<void>((r) => setImmediate(r));
};

function setup(
  reconcile: Reconciler['reconcile'],
  opts: { clock?: Clock; workers?: number; timeoutMs?: number; hardStop?: AbortSignal } = {},
) {
  const clock = opts.clock ?? new FakeClock();
  const informer = new FakeInformer(ConfigMaps);
  const registry = new Registry();
  const controller = new ControllerImpl(
    {
      name: 'test',
      reconciler: { reconcile },
      watches: [{ informer, enqueue: 'self' }],
      maxConcurrentReconciles: opts.workers ?? 1,
      reconcileTimeoutMs: opts.timeoutMs,
    },
    { clock, logger: nullLogger(), metrics: runtimeMetrics(registry), hardStop: opts.hardStop },
  );
  const stop = new AbortController();
  return { clock, informer, registry, controller, stop };
}

async function metricValue(
  registry: Registry,
  name: string,
  labels: Record<string, string>,
): Promise<number | undefined> {
  const m = await registry.getSingleMetric(name)?.get();
  return m?.values.find((v) => Object.entries(labels).every(([k, val]) => v.labels[k] === val))?.value;
}

describe('Controller', () => {
  it('starts workers only after every watched informer has synced', async () => {
    const seen: string[] = [];
    const { informer, controller, stop } = setup(async (r) => void seen.push(r.name));
    const running = controller.start(stop.signal);
    informer.fire('add', obj('a'));
    await settle();
    expect(seen).to.deep.equal([]);
    informer.markSynced();
    await settle();
    expect(seen).to.deep.equal(['a']);
    stop.abort();
    await running;
  });

  it('retries an error with per-item backoff (5 ms, then 10 ms) and counts it', async () => {
    const times: number[] = [];
    const { clock, informer, controller, stop, registry } = setup(async () => {
      times.push(clock.now());
      if (times.length < 3) throw new Error('boom');
    });
    informer.markSynced();
    const running = controller.start(stop.signal);
    const t0 = (clock as FakeClock).now();
    informer.fire('add', obj('a'));
    await settle();
    for (let i = 0; i < 40; i++) {
      (clock as FakeClock).step(1);
      await settle(2);
    }
    expect(times.map((t) => t - t0)).to.deep.equal([0, 5, 15]);
    expect(await metricValue(registry, 'controller_runtime_reconcile_errors_total', { controller: 'test' })).to.equal(
      2,
    );
    expect(
      await metricValue(registry, 'controller_runtime_reconcile_total', { controller: 'test', result: 'error' }),
    ).to.equal(2);
    expect(
      await metricValue(registry, 'controller_runtime_reconcile_total', { controller: 'test', result: 'success' }),
    ).to.equal(1);
    expect(controller.queue.numRequeues('ns/a')).to.equal(0, 'success forgets the backoff');
    stop.abort();
    await running;
  });

  it('does not retry a TerminalError, even wrapped in a cause chain, and counts it as terminal', async () => {
    let calls = 0;
    const { clock, informer, controller, stop, registry } = setup(async () => {
      calls++;
      throw new Error('outer', { cause: new TerminalError('bad spec') });
    });
    informer.markSynced();
    const running = controller.start(stop.signal);
    informer.fire('add', obj('a'));
    await settle();
    (clock as FakeClock).step(60_000);
    await settle();
    expect(calls).to.equal(1);
    expect(
      await metricValue(registry, 'controller_runtime_terminal_reconcile_errors_total', { controller: 'test' }),
    ).to.equal(1);
    expect(await metricValue(registry, 'controller_runtime_reconcile_errors_total', { controller: 'test' })).to.equal(
      1,
    );
    stop.abort();
    await running;
  });

  it('requeueAfterMs forgets the backoff and runs the key again after exactly that delay', async () => {
    const times: number[] = [];
    const { clock, informer, controller, stop, registry } = setup(async (): Promise<Result> => {
      times.push(clock.now());
      return times.length === 1 ? { requeueAfterMs: 30_000 } : {};
    });
    informer.markSynced();
    const running = controller.start(stop.signal);
    const t0 = clock.now();
    informer.fire('add', obj('a'));
    await settle();
    (clock as FakeClock).step(29_999);
    await settle();
    expect(times.length).to.equal(1);
    (clock as FakeClock).step(1);
    await settle();
    expect(times.map((t) => t - t0)).to.deep.equal([0, 30_000]);
    expect(
      await metricValue(registry, 'controller_runtime_reconcile_total', {
        controller: 'test',
        result: 'requeue_after',
      }),
    ).to.equal(1);
    stop.abort();
    await running;
  });

  it('enqueues the controlling owner for an owner watch, for both old and new states', async () => {
    const seen: string[] = [];
    const clock = new FakeClock();
    const informer = new FakeInformer(ConfigMaps);
    const controller = new ControllerImpl(
      {
        name: 'owners',
        reconciler: { reconcile: async (r: Request) => void seen.push(`${r.namespace}/${r.name}`) },
        watches: [
          { informer, enqueue: 'owner', ownerKind: 'MachineSet', ownerApiVersion: 'machine.openshift.io/v1beta1' },
        ],
      },
      { clock, logger: nullLogger(), metrics: runtimeMetrics(new Registry()) },
    );
    informer.markSynced();
    const stop = new AbortController();
    const running = controller.start(stop.signal);
    const owned = (owner: string) =>
      obj('m', 'ns', {
        ownerReferences: [
          { apiVersion: 'machine.openshift.io/v1beta1', kind: 'MachineSet', name: owner, uid: owner, controller: true },
        ],
      });
    informer.fire('update', owned('new'), owned('old'));
    informer.fire('add', obj('orphan'));
    informer.fire(
      'add',
      obj('x', 'ns', {
        ownerReferences: [
          { apiVersion: 'apps/v1', kind: 'MachineSet', name: 'wronggroup', uid: 'u', controller: true },
        ],
      }),
    );
    await settle();
    expect(seen.sort()).to.deep.equal(['ns/new', 'ns/old']);
    stop.abort();
    await running;
  });

  it('coalesces a burst of events on a delayed watch into one reconcile after the delay, without counting retries', async () => {
    const seen: string[] = [];
    const clock = new FakeClock();
    const informer = new FakeInformer(ConfigMaps);
    const registry = new Registry();
    const controller = new ControllerImpl(
      {
        name: 'coalesce',
        reconciler: { reconcile: async (r: Request) => void seen.push(`${r.namespace}/${r.name}@${clock.now()}`) },
        watches: [{ informer, enqueue: 'map', map: () => [{ namespace: 'ns', name: 'set' }], delayMs: 1_000 }],
      },
      { clock, logger: nullLogger(), metrics: runtimeMetrics(registry) },
    );
    informer.markSynced();
    const stop = new AbortController();
    const running = controller.start(stop.signal);
    const t0 = clock.now();
    for (let i = 0; i < 50; i++) {
      informer.fire('update', obj(`m${i}`, 'ns'), obj(`m${i}`, 'ns'));
      clock.step(10);
    }
    await settle();
    expect(seen).to.deep.equal([]);
    clock.step(1_000);
    await settle();
    expect(seen).to.deep.equal([`ns/set@${t0 + 1_500}`]);
    expect(await metricValue(registry, 'workqueue_retries_total', { name: 'coalesce' })).to.equal(0);
    stop.abort();
    await running;
  });

  it('drops the events its predicate refuses before they are enqueued, and tells the predicate a resync (old === obj)', async () => {
    const seen: string[] = [];
    const asked: string[] = [];
    const clock = new FakeClock();
    const informer = new FakeInformer(ConfigMaps);
    const controller = new ControllerImpl(
      {
        name: 'filtered',
        reconciler: { reconcile: async (r: Request) => void seen.push(r.name) },
        watches: [
          {
            informer,
            enqueue: 'self',
            predicate: (event, o, old) => {
              asked.push(`${event}:${o.metadata.name}${isResync(event, o, old) ? ':resync' : ''}`);
              return o.metadata.name?.startsWith('yes') ?? false;
            },
          },
        ],
      },
      { clock, logger: nullLogger(), metrics: runtimeMetrics(new Registry()) },
    );
    informer.markSynced();
    const stop = new AbortController();
    const running = controller.start(stop.signal);
    const same = obj('no-resync', 'ns');
    informer.fire('add', obj('yes-add', 'ns'));
    informer.fire('add', obj('no-add', 'ns'));
    informer.fire('update', same, same);
    informer.fire('update', obj('yes-update', 'ns'), obj('yes-update', 'ns'));
    informer.fire('delete', obj('no-delete', 'ns'));
    await settle();
    expect(seen.sort()).to.deep.equal(['yes-add', 'yes-update']);
    expect(asked).to.deep.equal([
      'add:yes-add',
      'add:no-add',
      'update:no-resync:resync',
      'update:yes-update',
      'delete:no-delete',
    ]);
    stop.abort();
    await running;
  });

  it("reconciles an add or update when the watch's delayOf says (at once when it says nothing), a resync at once, and a later reconcile's result replaces the delayed one", async () => {
    const seen: string[] = [];
    const clock = new FakeClock();
    const informer = new FakeInformer(ConfigMaps);
    const asked: string[] = [];
    const controller = new ControllerImpl(
      {
        name: 'delayed-per-object',
        reconciler: { reconcile: async (r: Request) => void seen.push(`${r.name}@${clock.now()}`) },
        watches: [
          {
            informer,
            enqueue: 'self',
            delayOf: (event, o) => {
              asked.push(`${event}:${o.metadata.name}`);
              return o.metadata.name?.startsWith('later') ? 2_000 : undefined;
            },
          },
        ],
        latestResultReplacesRequeue: true,
      },
      { clock, logger: nullLogger(), metrics: runtimeMetrics(new Registry()) },
    );
    informer.markSynced();
    const stop = new AbortController();
    const running = controller.start(stop.signal);
    const t0 = clock.now();
    const resynced = obj('later-resync', 'ns');
    informer.fire('add', obj('now', 'ns'));
    informer.fire('add', obj('later-a', 'ns'));
    informer.fire('update', obj('later-b', 'ns'), obj('later-b', 'ns'));
    informer.fire('update', resynced, resynced);
    await settle();
    expect(seen.sort()).to.deep.equal([`later-resync@${t0}`, `now@${t0}`]);
    expect(asked, 'a resync is not asked').to.deep.equal(['add:now', 'add:later-a', 'update:later-b']);
    clock.step(500);
    // later-b is reconciled sooner (as when another watch enqueues it): its delayed reconcile is dropped.
    controller.enqueue({ namespace: 'ns', name: 'later-b' });
    await settle();
    clock.step(1_500);
    await settle();
    expect(seen.slice(2)).to.deep.equal([`later-b@${t0 + 500}`, `later-a@${t0 + 2_000}`]);
    clock.step(5_000);
    await settle();
    expect(seen).to.have.length(4);
    stop.abort();
    await running;
  });

  it('works on a change before the rest of a resync, and on the first listing after every change made since', async () => {
    const seen: string[] = [];
    let release: (() => void) | undefined;
    const { informer, controller, stop } = setup(async (r) => {
      seen.push(r.name);
      // The first reconcile holds the one worker while the events below arrive.
      if (seen.length === 1) await new Promise<void>((resolve) => (release = resolve));
    });
    for (const name of ['listed-1', 'listed-2']) informer.fire('add', obj(name));
    const running = controller.start(stop.signal);
    informer.markSynced();
    informer.fire('add', obj('created'));
    await settle();
    for (const name of ['r1', 'r2', 'r3']) {
      const same = obj(name);
      informer.fire('update', same, same);
    }
    informer.fire('update', obj('changed'), obj('changed'));
    release?.();
    await settle(20);
    expect(seen).to.deep.equal(['created', 'changed', 'listed-1', 'listed-2', 'r1', 'r2', 'r3']);
    stop.abort();
    await running;
  });

  it('aborts the reconcile signal when the per-reconcile timeout passes', async () => {
    let aborted: unknown;
    const { clock, informer, controller, stop } = setup(
      (_r, ctx) =>
        new Promise((_resolve, reject) => {
          ctx.signal.addEventListener('abort', () => {
            aborted = ctx.signal.reason;
            reject(new Error('aborted'));
          });
        }),
      { timeoutMs: 1000 },
    );
    informer.markSynced();
    const running = controller.start(stop.signal);
    informer.fire('add', obj('a'));
    await settle();
    (clock as FakeClock).step(1000);
    await settle();
    expect(String(aborted)).to.match(/timed out after 1000 ms/);
    stop.abort();
    await running;
  });

  it('aborts the reconcile signal with the hard stop reason, and leaves nothing attached to the hard stop after a reconcile', async () => {
    const hard = new AbortController();
    let aborted: unknown;
    const { informer, controller, stop } = setup(
      (r, ctx) =>
        r.name === 'hang'
          ? new Promise((_resolve, reject) =>
              ctx.signal.addEventListener('abort', () => {
                aborted = ctx.signal.reason;
                reject(new Error('aborted'));
              }),
            )
          : Promise.resolve(),
      { hardStop: hard.signal, workers: 4 },
    );
    informer.markSynced();
    const running = controller.start(stop.signal);
    for (let i = 0; i < 200; i++) informer.fire('add', obj(`k${i}`));
    await settle(50);
    // A long-lived signal keeps whatever follows it: 200 finished reconciles must leave no trace on it (neither a
    // listener nor an AbortSignal.any() dependant, which Node.js only lets go of when the long-lived signal goes).
    expect(signalFollowers(hard.signal)).to.deep.equal({ listeners: 0, anyDependants: 0 });
    informer.fire('add', obj('hang'));
    await settle();
    expect(signalFollowers(hard.signal)).to.deep.equal({ listeners: 1, anyDependants: 0 });
    hard.abort(new Error('graceful shutdown period exceeded'));
    await settle();
    expect(String(aborted)).to.match(/graceful shutdown period exceeded/);
    expect(signalFollowers(hard.signal).listeners).to.equal(0);
    stop.abort();
    await running;
  });

  it('lets an in-flight reconcile finish after stop and takes no new work', async () => {
    let release!: () => void;
    const seen: string[] = [];
    const { informer, controller, stop } = setup(async (r, ctx) => {
      seen.push(r.name);
      await new Promise<void>((res) => (release = res));
      expect(ctx.signal.aborted).to.equal(false);
    });
    informer.markSynced();
    const running = controller.start(stop.signal);
    informer.fire('add', obj('a'));
    await settle();
    informer.fire('add', obj('b'));
    stop.abort();
    let finished = false;
    void running.then(() => (finished = true));
    await settle();
    expect(finished).to.equal(false);
    release();
    await running;
    expect(seen).to.deep.equal(['a']);
  });

  it('with 10 workers never reconciles one key twice at once, and every key runs after its last add (1,000 keys, random re-adds)', async function () {
    this.timeout(20_000);
    const inFlight = new Set<string>();
    const maxParallel = { value: 0 };
    let overlaps = 0;
    const lastAdd = new Map<string, number>();
    const lastStart = new Map<string, number>();
    let seq = 0;
    const { informer, controller, stop } = setup(
      async (r) => {
        const key = `${r.namespace}/${r.name}`;
        if (inFlight.has(key)) overlaps++;
        inFlight.add(key);
        maxParallel.value = Math.max(maxParallel.value, inFlight.size);
        lastStart.set(key, ++seq);
        for (let i = Math.floor(Math.random() * 3); i > 0; i--) await new Promise<void>((res) => setImmediate(res));
        inFlight.delete(key);
      },
      { clock: new RealClock(), workers: 10 },
    );
    informer.markSynced();
    const running = controller.start(stop.signal);
    for (let round = 0; round < 5; round++) {
      for (let i = 0; i < 1000; i++) {
        if (round > 0 && Math.random() < 0.5) continue;
        const name = `k${i}`;
        lastAdd.set(`ns/${name}`, ++seq);
        informer.fire('update', obj(name));
      }
      await new Promise<void>((res) => setImmediate(res));
    }
    for (let i = 0; i < 10_000 && (controller.queue.len() > 0 || inFlight.size > 0); i++) await settle(1);
    await settle();
    expect(overlaps).to.equal(0);
    expect(maxParallel.value).to.be.within(2, 10);
    for (const [key, added] of lastAdd) expect(lastStart.get(key), key).to.be.greaterThan(added);
    stop.abort();
    await running;
  });
});
