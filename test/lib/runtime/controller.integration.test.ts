import { expect } from 'chai';
import { ConfigMaps, Namespaces } from '../../../lib/client/resources.js';
import { startTestEnv, type TestEnv } from '../../../sim/kit/test-env.js';
import { waitFor } from './support/wait.js';

describe('Controller on a Manager against the local control plane', function () {
  this.timeout(30_000);
  let env: TestEnv;
  before(async () => {
    env = await startTestEnv();
    await env.client.create(Namespaces, { metadata: { name: 'workers' } });
  });
  after(async () => env?.stop());

  it('with 10 workers reconciles each of 300 objects under random updates, never one key twice at once, and last sees its final state', async () => {
    const names = Array.from({ length: 300 }, (_, i) => `cm-${i}`);
    await Promise.all(
      names.map((name) =>
        env.client.create(ConfigMaps, { metadata: { name, namespace: 'workers' }, data: { v: '0' } }),
      ),
    );
    const mgr = env.newManager({ namespace: 'workers' });
    const informer = mgr.informer(ConfigMaps);
    const inFlight = new Set<string>();
    const lastSeen = new Map<string, string | undefined>();
    let overlaps = 0;
    let peak = 0;
    mgr.addController({
      name: 'parallel',
      maxConcurrentReconciles: 10,
      watches: [{ informer, enqueue: 'self' }],
      reconciler: {
        reconcile: async (req) => {
          const key = `${req.namespace}/${req.name}`;
          if (inFlight.has(key)) overlaps++;
          inFlight.add(key);
          peak = Math.max(peak, inFlight.size);
          try {
            const obj = informer.get(req);
            await new Promise((r) => setTimeout(r, Math.random() * 3));
            lastSeen.set(key, obj?.data?.v);
          } finally {
            inFlight.delete(key);
          }
        },
      },
    });
    const stop = new AbortController();
    const done = mgr.start(stop.signal);
    const finalValue = new Map<string, string>(names.map((n) => [`workers/${n}`, '0']));
    for (let round = 1; round <= 3; round++) {
      const picked = names.filter(() => Math.random() < 0.5);
      await Promise.all(
        picked.map(async (name) => {
          await env.client.patch(
            ConfigMaps,
            { namespace: 'workers', name },
            { type: 'merge', body: { data: { v: String(round) } } },
          );
          finalValue.set(`workers/${name}`, String(round));
        }),
      );
    }
    await waitFor(
      () => [...finalValue].every(([k, v]) => lastSeen.get(k) === v) && inFlight.size === 0,
      'every key reconciled at its final state',
      20_000,
    );
    expect(overlaps).to.equal(0);
    expect(peak).to.be.within(2, 10);
    stop.abort();
    await done;
  });
});
