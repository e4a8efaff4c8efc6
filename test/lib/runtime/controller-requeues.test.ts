// The controller options that keep a key from being reconciled for nothing: the latest result replacing an
// earlier requeue, and a resync skipping a key reconciled a moment ago.
import { expect } from 'chai';
import { Registry } from 'prom-client';
import { ConfigMaps } from '../../../lib/client/resources.js';
import { ControllerImpl } from '../../../lib/runtime/controller.js';
import { FakeClock } from '../../../lib/base/fake-clock.js';
import { nullLogger } from '../../../lib/base/structured-logger.js';
import { runtimeMetrics } from '../../../lib/runtime/runtime-metrics.js';
import type { ControllerOptions, Result } from '../../../lib/runtime/types.js';
import { FakeInformer, obj } from './support/fake-informer.js';

const settle = async (n = 5) => {
  for (let i = 0; i < n; i++) await new Promise<void>((r) => setImmediate(r));
};

type Outcome = Result | void | (() => Promise<Result | void>);

/** A controller over one informer whose reconcile returns the next of `results` (then nothing) and notes when it ran. */
function setup(results: Outcome[], opts: Partial<ControllerOptions> = {}, delayMs?: number) {
  const clock = new FakeClock();
  const informer = new FakeInformer(ConfigMaps);
  const ran: number[] = [];
  const controller = new ControllerImpl(
    {
      name: 'test',
      reconciler: {
        reconcile: async () => {
          ran.push(clock.now());
          const next = results.shift();
          return typeof next === 'function' ? next() : next;
        },
      },
      watches: [{ informer, enqueue: 'self', ...(delayMs ? { delayMs } : {}) }],
      maxConcurrentReconciles: 1,
      ...opts,
    },
    { clock, logger: nullLogger(), metrics: runtimeMetrics(new Registry()) },
  );
  const stop = new AbortController();
  informer.markSynced();
  const running = controller.start(stop.signal);
  const step = async (ms: number) => {
    clock.step(ms);
    await settle();
  };
  const end = async () => {
    stop.abort();
    await running;
  };
  return { clock, informer, ran, step, end, t0: clock.now() };
}

describe('Controller: reconciles that do no work', () => {
  describe('latestResultReplacesRequeue', () => {
    it('drops the requeue an earlier reconcile asked for once a later one (brought by an event) has decided', async () => {
      const c = setup([{ requeueAfterMs: 30_000 }, undefined], { latestResultReplacesRequeue: true });
      c.informer.fire('add', obj('a'));
      await settle();
      await c.step(5_000);
      c.informer.fire('update', obj('a', 'ns', { resourceVersion: '2' }), obj('a'));
      await settle();
      await c.step(60_000);
      expect(c.ran.map((t) => t - c.t0)).to.deep.equal([0, 5_000]);
      await c.end();
    });

    it("keeps the later reconcile's own requeue", async () => {
      const c = setup([{ requeueAfterMs: 30_000 }, { requeueAfterMs: 10_000 }], { latestResultReplacesRequeue: true });
      c.informer.fire('add', obj('a'));
      await settle();
      await c.step(5_000);
      c.informer.fire('update', obj('a', 'ns', { resourceVersion: '2' }), obj('a'));
      await settle();
      for (let i = 0; i < 6; i++) await c.step(10_000);
      expect(c.ran.map((t) => t - c.t0)).to.deep.equal([0, 5_000, 15_000]);
      await c.end();
    });

    it('without it, as controller-runtime: the earlier requeue still runs', async () => {
      const c = setup([{ requeueAfterMs: 30_000 }, undefined]);
      c.informer.fire('add', obj('a'));
      await settle();
      await c.step(5_000);
      c.informer.fire('update', obj('a', 'ns', { resourceVersion: '2' }), obj('a'));
      await settle();
      await c.step(25_000);
      expect(c.ran.map((t) => t - c.t0)).to.deep.equal([0, 5_000, 30_000]);
      await c.end();
    });

    it('is off for a watch that delays its events: an event that came during a reconcile still runs after its delay', async () => {
      let release: () => void = () => undefined;
      const held = () => new Promise<void>((r) => (release = r));
      const c = setup([held], { latestResultReplacesRequeue: true }, 1_000);
      c.informer.fire('add', obj('a'));
      await c.step(1_000);
      expect(c.ran).to.have.length(1);
      c.informer.fire('update', obj('a', 'ns', { resourceVersion: '2' }), obj('a'));
      await settle();
      release();
      await settle();
      await c.step(1_000);
      expect(c.ran.map((t) => t - c.t0)).to.deep.equal([1_000, 2_000]);
      await c.end();
    });
  });

  describe('skipResyncWithinMs', () => {
    it('skips a resync of a key reconciled less than that long ago, and reconciles one that was not', async () => {
      const c = setup([], { skipResyncWithinMs: 3_000 });
      const a = obj('a');
      c.informer.fire('add', a);
      await settle();
      await c.step(2_000);
      c.informer.fire('update', a, a);
      await settle();
      expect(c.ran).to.have.length(1);
      await c.step(2_000);
      c.informer.fire('update', a, a);
      await settle();
      expect(c.ran.map((t) => t - c.t0)).to.deep.equal([0, 4_000]);
      await c.end();
    });

    it('never skips a real update, however recent the last reconcile', async () => {
      const c = setup([], { skipResyncWithinMs: 3_000 });
      c.informer.fire('add', obj('a'));
      await settle();
      await c.step(10);
      c.informer.fire('update', obj('a', 'ns', { resourceVersion: '2' }), obj('a'));
      await settle();
      expect(c.ran).to.have.length(2);
      await c.end();
    });
  });
});
