import { expect } from 'chai';
import * as k8s from '@kubernetes/client-node';
import { createNamespace, eventually, merge, raw, startEnv, W, widget, type Env, type Json } from './helpers.js';

interface Seen {
  type: string;
  name: string;
  rv: string;
  obj: Json;
}

function watchInto(env: Env, path: string, params: Record<string, string | number | boolean | undefined>) {
  const events: Seen[] = [];
  let done: { err: Json } | undefined;
  const started = new k8s.Watch(env.kc).watch(
    path,
    params,
    (type, obj: Json) => events.push({ type, name: obj?.metadata?.name, rv: obj?.metadata?.resourceVersion, obj }),
    (err) => {
      done = { err };
    },
  );
  return { events, started, isDone: () => done, abort: async () => (await started).abort() };
}

describe('envtest control plane: watch', () => {
  let env: Env;
  const ns = 'watch';
  const M = { ...W, namespace: ns };
  const path = `/apis/test.envtest.io/v1/namespaces/${ns}/widgets`;

  before(async () => {
    env = await startEnv({ bookmarkIntervalMs: 50, watchHistoryLimit: 50 });
    await createNamespace(env, ns);
  });
  after(async () => env.cp.stop());

  it('sends the current objects as ADDED when started without a resourceVersion, then live changes in order', async () => {
    await env.custom.createNamespacedCustomObject({ ...M, body: widget('w0') });
    const w = watchInto(env, path, {});
    await w.started;
    await eventually(() => w.events.length === 1);
    await env.custom.patchNamespacedCustomObject({ ...M, name: 'w0', body: { spec: { color: 'x' } } }, merge);
    await env.custom.deleteNamespacedCustomObject({ ...M, name: 'w0' });
    await eventually(() => w.events.length === 3);
    expect(w.events.map((e: Json) => `${e.type} ${e.name}`)).to.deep.equal(['ADDED w0', 'MODIFIED w0', 'DELETED w0']);
    expect(Number(w.events[2]!.rv)).to.be.greaterThan(Number(w.events[1]!.rv));
    await w.abort();
  });

  it('replays the changes after a given resourceVersion', async () => {
    const a = await env.custom.createNamespacedCustomObject({ ...M, body: widget('r1') });
    await env.custom.createNamespacedCustomObject({ ...M, body: widget('r2') });
    await env.custom.patchNamespacedCustomObject({ ...M, name: 'r1', body: { spec: { color: 'y' } } }, merge);
    const w = watchInto(env, path, { resourceVersion: a.metadata.resourceVersion });
    await eventually(() => w.events.length === 2);
    expect(w.events.map((e: Json) => `${e.type} ${e.name}`)).to.deep.equal(['ADDED r2', 'MODIFIED r1']);
    await w.abort();
  });

  it('answers 410 Gone to a resourceVersion older than the kept history', async () => {
    const first = await env.custom.createNamespacedCustomObject({ ...M, body: widget('old') });
    await env.custom.createNamespacedCustomObject({ ...M, body: widget('newer') });
    env.cp.compactHistory();
    const r = await raw(env.cp, 'GET', `${path}?watch=true&resourceVersion=${first.metadata.resourceVersion}`);
    expect(r.status).to.equal(410);
    expect(r.json()).to.include({ reason: 'Expired', code: 410 });
    const w = watchInto(env, path, { resourceVersion: first.metadata.resourceVersion });
    await eventually(() => w.isDone());
    expect(w.isDone()!.err.statusCode).to.equal(410);
  });

  it('forgets history beyond watchHistoryLimit', async () => {
    const start = await env.custom.createNamespacedCustomObject({ ...M, body: widget('lim') });
    for (let i = 0; i < 60; i++)
      await env.custom.patchNamespacedCustomObject({ ...M, name: 'lim', body: { spec: { color: `c${i}` } } }, merge);
    const r = await raw(env.cp, 'GET', `${path}?watch=true&resourceVersion=${start.metadata.resourceVersion}`);
    expect(r.status).to.equal(410);
  });

  it('can always watch from the resourceVersion of a fresh list', async () => {
    env.cp.compactHistory();
    const list = await env.custom.listNamespacedCustomObject({ ...M });
    const w = watchInto(env, path, { resourceVersion: list.metadata.resourceVersion });
    await w.started;
    await env.custom.createNamespacedCustomObject({ ...M, body: widget('after-list') });
    await eventually(() => w.events.some((e) => e.name === 'after-list'));
    await w.abort();
  });

  it('sends an in-stream ERROR 410 when watches are expired', async () => {
    const w = watchInto(env, path, { resourceVersion: '0' });
    await w.started;
    await eventually(() => env.cp.openWatchCount() === 1);
    env.cp.expireWatches();
    await eventually(() => w.isDone());
    const err = w.events.find((e: Json) => e.type === 'ERROR');
    expect(err?.obj).to.include({ kind: 'Status', code: 410, reason: 'Expired' });
    expect(env.cp.openWatchCount()).to.equal(0);
  });

  it('sends bookmarks when allowed', async () => {
    const w = watchInto(env, path, { resourceVersion: '0', allowWatchBookmarks: true });
    await eventually(() => w.events.some((e) => e.type === 'BOOKMARK'));
    const b = w.events.find((e: Json) => e.type === 'BOOKMARK')!;
    expect(b.obj.kind).to.equal('Widget');
    expect(Number(b.rv)).to.be.greaterThan(0);
    await w.abort();
  });

  it('ends the stream after timeoutSeconds', async () => {
    const w = watchInto(env, path, { timeoutSeconds: 1 });
    await eventually(() => w.isDone(), 3000);
    expect(w.isDone()!.err).to.equal(null);
  });

  it('filters by label selector, turning moves out of the selection into DELETED', async () => {
    const w = watchInto(env, path, {
      labelSelector: 'tier=gold',
      resourceVersion: String((await env.custom.listNamespacedCustomObject({ ...M })).metadata.resourceVersion),
    });
    await w.started;
    await env.custom.createNamespacedCustomObject({
      ...M,
      body: widget('sel', { size: 'small' }, { labels: { tier: 'gold' } }),
    });
    await env.custom.createNamespacedCustomObject({
      ...M,
      body: widget('other', { size: 'small' }, { labels: { tier: 'tin' } }),
    });
    await env.custom.patchNamespacedCustomObject(
      { ...M, name: 'sel', body: { metadata: { labels: { tier: 'tin' } } } },
      merge,
    );
    await env.custom.patchNamespacedCustomObject(
      { ...M, name: 'other', body: { metadata: { labels: { tier: 'gold' } } } },
      merge,
    );
    await eventually(() => w.events.length === 3);
    expect(w.events.map((e: Json) => `${e.type} ${e.name}`)).to.deep.equal(['ADDED sel', 'DELETED sel', 'ADDED other']);
    await w.abort();
  });

  it('frees everything when watches close: 1,000 opened and closed leave none open', async function () {
    this.timeout(20000);
    const timers = () => process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;
    const timersBefore = timers();
    const controllers: AbortController[] = [];
    for (let i = 0; i < 1000; i += 100) {
      const batch = await Promise.all(
        Array.from({ length: 100 }, () =>
          new k8s.Watch(env.kc).watch(
            path,
            { resourceVersion: '0' },
            () => {},
            () => {},
          ),
        ),
      );
      controllers.push(...batch);
    }
    await eventually(() => env.cp.openWatchCount() === 1000, 10000);
    expect(timers()).to.be.at.least(timersBefore + 1000);
    for (const c of controllers) c.abort();
    await eventually(() => env.cp.openWatchCount() === 0, 10000);
    // Each watch's timeout timer is cleared with it: nothing is left behind.
    await eventually(() => timers() < timersBefore + 10, 5000);
  });

  it('closes every stream on dropWatches; clients see a clean end', async () => {
    const w = watchInto(env, path, {});
    await eventually(() => env.cp.openWatchCount() === 1);
    env.cp.dropWatches();
    await eventually(() => w.isDone());
    expect(w.isDone()!.err).to.equal(null);
    expect(env.cp.openWatchCount()).to.equal(0);
  });

  it('feeds an informer, which re-lists after 410 and sees changes made meanwhile', async () => {
    const informer = k8s.makeInformer<k8s.KubernetesObject>(
      env.kc,
      path,
      () => env.custom.listNamespacedCustomObject({ ...M }) as Promise<k8s.KubernetesListObject<k8s.KubernetesObject>>,
    );
    let stopping = false;
    informer.on('error', () => {
      if (!stopping) setTimeout(() => void informer.start(), 10);
    });
    await informer.start();
    await env.custom.createNamespacedCustomObject({ ...M, body: widget('inf1') });
    await eventually(() => informer.get('inf1', ns));
    env.cp.compactHistory();
    env.cp.expireWatches();
    await env.custom.createNamespacedCustomObject({ ...M, body: widget('inf2') });
    await eventually(() => informer.get('inf2', ns));
    await env.custom.deleteNamespacedCustomObject({ ...M, name: 'inf1' });
    await eventually(() => !informer.get('inf1', ns));
    stopping = true;
    await informer.stop();
  });

  it('counts requests per verb and resource', async () => {
    env.cp.resetRequestCounts();
    await env.custom.createNamespacedCustomObject({ ...M, body: widget('count') });
    await env.custom.getNamespacedCustomObject({ ...M, name: 'count' });
    await env.custom.patchNamespacedCustomObjectStatus(
      { ...M, name: 'count', body: { status: { phase: 'x' } } },
      merge,
    );
    await env.custom.listNamespacedCustomObject({ ...M });
    expect(env.cp.requestCounts()).to.deep.equal({
      'create widgets': 1,
      'get widgets': 1,
      'patch widgets/status': 1,
      'list widgets': 1,
    });
  });
});
