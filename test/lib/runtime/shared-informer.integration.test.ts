import { expect } from 'chai';
import type { ConfigMap } from '../../../lib/apis/core.js';
import type { KubeClient } from '../../../lib/client/kube-client.js';
import { ConfigMaps, Namespaces } from '../../../lib/client/resources.js';
import { FakeClock } from '../../../lib/base/fake-clock.js';
import { nullLogger } from '../../../lib/base/structured-logger.js';
import { SharedInformer } from '../../../lib/runtime/shared-informer.js';
import { startTestEnv, type TestEnv } from '../../../sim/kit/test-env.js';

type Seen = { event: string; name: string; rv: string | undefined; data?: string };

function cm(name: string, value: string, labels?: Record<string, string>): ConfigMap {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'inf', labels }, data: { v: value } };
}

/** Only ends a wait that can never be met, to name what it waited for; no passing wait comes near it. */
const FAILURE_GUARD_MS = 60_000;

/**
 * Waits on what the informer delivers: each condition is checked again whenever something changes (an
 * informer event, a watch opening), never by the wall clock, so a busy machine only makes a test slower.
 */
class Changes {
  private readonly checks = new Set<() => void>();

  readonly notify = (): void => {
    for (const check of [...this.checks]) check();
  };

  until(cond: () => boolean, what: string): Promise<void> {
    return new Promise((resolve, reject) => {
      const guard = setTimeout(() => {
        this.checks.delete(check);
        reject(new Error(`never saw ${what} (failure guard: ${FAILURE_GUARD_MS} ms)`));
      }, FAILURE_GUARD_MS);
      const check = (): void => {
        if (!cond()) return;
        this.checks.delete(check);
        clearTimeout(guard);
        resolve();
      };
      this.checks.add(check);
      check();
    });
  }
}

/**
 * A client whose new watches wait while `paused`, to hold the informer disconnected. watchesOpened()
 * counts watch calls, not watches the server holds yet: only an event that came through a watch shows
 * the server has it.
 */
function gatedClient(inner: KubeClient, onWatchOpened: () => void) {
  let release: (() => void) | undefined;
  let gate: Promise<void> = Promise.resolve();
  let watchesOpened = 0;
  const client: KubeClient = {
    get: (r, k, o) => inner.get(r, k, o),
    list: (r, o) => inner.list(r, o),
    create: (r, o, w) => inner.create(r, o, w),
    update: (r, o, w) => inner.update(r, o, w),
    updateStatus: (r, o, w) => inner.updateStatus(r, o, w),
    patch: (r, k, p, o) => inner.patch(r, k, p, o),
    delete: (r, k, o) => inner.delete(r, k, o),
    evict: (k, e, o) => inner.evict(k, e, o),
    watch: async (r, o, on, signal) => {
      await gate;
      watchesOpened++;
      onWatchOpened();
      return inner.watch(r, o, on, signal);
    },
  };
  return {
    client,
    pause: () => {
      gate = new Promise((r) => (release = r));
    },
    resume: () => release?.(),
    watchesOpened: () => watchesOpened,
  };
}

describe('SharedInformer against the local control plane', function () {
  this.timeout(2 * FAILURE_GUARD_MS);
  let env: TestEnv;
  let changes: Changes;
  beforeEach(() => {
    changes = new Changes();
  });
  before(async () => {
    env = await startTestEnv();
    await env.client.create(Namespaces, { metadata: { name: 'inf' } });
  });
  after(async () => env?.stop());

  afterEach(async () => {
    const { items } = await env.client.list(ConfigMaps, { namespace: 'inf' });
    await Promise.all(items.map((i) => env.client.delete(ConfigMaps, { namespace: 'inf', name: i.metadata.name! })));
  });

  function startInformer(
    client: KubeClient,
    opts: { resyncPeriodMs?: number; labelSelector?: string; listPageSize?: number; clock?: FakeClock } = {},
  ) {
    const informer = new SharedInformer({
      client,
      resource: ConfigMaps,
      namespace: 'inf',
      logger: nullLogger(),
      backoffInitialMs: 20,
      backoffMaxMs: 200,
      resyncPeriodMs: 0,
      ...opts,
    });
    const seen: Seen[] = [];
    for (const event of ['add', 'update', 'delete'] as const) {
      informer.on(event, (o) => {
        seen.push({ event, name: o.metadata.name!, rv: o.metadata.resourceVersion, data: o.data?.v });
        changes.notify();
      });
    }
    const stop = new AbortController();
    const running = informer.start(stop.signal);
    return {
      informer,
      seen,
      stop: async () => {
        stop.abort();
        await running;
      },
    };
  }

  it('lists existing objects, then sees every create, update and delete', async () => {
    await env.client.create(ConfigMaps, cm('pre', '0'));
    const { informer, seen, stop } = startInformer(env.client);
    await informer.waitForSync();
    expect(informer.hasSynced()).to.equal(true);
    expect(seen).to.deep.include({
      event: 'add',
      name: 'pre',
      rv: informer.get({ namespace: 'inf', name: 'pre' })?.metadata.resourceVersion,
      data: '0',
    });

    await env.client.create(ConfigMaps, cm('a', '1'));
    const updated = await env.client.patch(
      ConfigMaps,
      { namespace: 'inf', name: 'a' },
      { type: 'merge', body: { data: { v: '2' } } },
    );
    await env.client.delete(ConfigMaps, { namespace: 'inf', name: 'pre' });
    await changes.until(() => seen.some((s) => s.event === 'delete' && s.name === 'pre'), 'the delete');
    await changes.until(
      () =>
        informer.get({ namespace: 'inf', name: 'a' })?.metadata.resourceVersion === updated.metadata.resourceVersion,
      'the update',
    );
    expect(seen.filter((s) => s.name === 'a').map((s) => `${s.event}:${s.data}`)).to.deep.equal(['add:1', 'update:2']);
    expect(informer.get({ namespace: 'inf', name: 'pre' })).to.equal(undefined);
    expect(informer.list({ namespace: 'inf' }).map((o) => o.metadata.name)).to.deep.equal(['a']);
    await stop();
  });

  it('restricts the cache to a label selector when given one', async () => {
    await env.client.create(ConfigMaps, cm('in', '1', { team: 'a' }));
    await env.client.create(ConfigMaps, cm('out', '1', { team: 'b' }));
    const { informer, seen, stop } = startInformer(env.client, { labelSelector: 'team=a' });
    await informer.waitForSync();
    await env.client.create(ConfigMaps, cm('in2', '1', { team: 'a' }));
    await env.client.create(ConfigMaps, cm('out2', '1', { team: 'b' }));
    await changes.until(() => seen.some((s) => s.name === 'in2'), 'the matching create');
    expect(
      informer
        .list()
        .map((o) => o.metadata.name)
        .sort(),
    ).to.deep.equal(['in', 'in2']);
    await stop();
  });

  it('hands out its cached objects frozen: no copy per read, and an edit throws instead of changing the cache', async () => {
    await env.client.create(ConfigMaps, cm('copy', '1'));
    const { informer, stop } = startInformer(env.client);
    await informer.waitForSync();
    const mine = informer.get({ namespace: 'inf', name: 'copy' })!;
    expect(informer.get({ namespace: 'inf', name: 'copy' })).to.equal(mine);
    expect(() => {
      mine.data = { v: 'edited' };
    }).to.throw(TypeError);
    expect(() => {
      informer.list()[0]!.metadata.labels = { edited: 'yes' };
    }).to.throw(TypeError);
    const edited = structuredClone(mine);
    edited.data = { v: 'edited' };
    expect(informer.get({ namespace: 'inf', name: 'copy' })?.data).to.deep.equal({ v: '1' });
    await stop();
  });

  it('keeps indexes and answers label-selector lists from the cache', async () => {
    const { informer, stop } = startInformer(env.client);
    informer.addIndex('color', (o) => [o.metadata.labels?.color ?? '']);
    await informer.waitForSync();
    await env.client.create(ConfigMaps, cm('r', '1', { color: 'red' }));
    await env.client.create(ConfigMaps, cm('b', '1', { color: 'blue' }));
    await changes.until(() => informer.list().length === 2, 'both objects');
    expect(informer.byIndex('color', 'red').map((o) => o.metadata.name)).to.deep.equal(['r']);
    expect(informer.list({ labelSelector: 'color in (blue)' }).map((o) => o.metadata.name)).to.deep.equal(['b']);
    expect(
      informer.list({ labelSelector: { matchLabels: { color: 'red' } } }).map((o) => o.metadata.name),
    ).to.deep.equal(['r']);
    await env.client.patch(
      ConfigMaps,
      { namespace: 'inf', name: 'r' },
      { type: 'merge', body: { metadata: { labels: { color: 'blue' } } } },
    );
    await changes.until(() => informer.byIndex('color', 'blue').length === 2, 'the re-index');
    expect(informer.byIndex('color', 'red')).to.deep.equal([]);
    await stop();
  });

  it('resumes after the server closes the watch mid-stream without losing or repeating a state', async () => {
    const gated = gatedClient(env.client, changes.notify);
    const { informer, seen, stop } = startInformer(gated.client);
    await informer.waitForSync();
    await env.client.create(ConfigMaps, cm('a', '1'));
    // Made after the list, so it came through the watch: the server holds the watch dropped below.
    await changes.until(() => seen.length === 1, 'the add');
    gated.pause();
    env.controlPlane.dropWatches();
    await env.client.patch(ConfigMaps, { namespace: 'inf', name: 'a' }, { type: 'merge', body: { data: { v: '2' } } });
    await env.client.create(ConfigMaps, cm('b', '1'));
    gated.resume();
    await changes.until(
      () =>
        informer.get({ namespace: 'inf', name: 'a' })?.data?.v === '2' &&
        !!informer.get({ namespace: 'inf', name: 'b' }),
      'the changes made while disconnected',
    );
    expect(gated.watchesOpened()).to.be.greaterThanOrEqual(2);
    expect(seen.map((s) => `${s.event}:${s.name}:${s.data}`)).to.deep.equal(['add:a:1', 'update:a:2', 'add:b:1']);
    await stop();
  });

  it('re-lists after 410 Gone and emits delete for vanished, update for changed, add for new objects, nothing for unchanged', async () => {
    for (const n of ['keep', 'change', 'vanish']) await env.client.create(ConfigMaps, cm(n, '1'));
    const gated = gatedClient(env.client, changes.notify);
    const { informer, seen, stop } = startInformer(gated.client, { listPageSize: 2 });
    await informer.waitForSync();
    expect(
      informer
        .list()
        .map((o) => o.metadata.name)
        .sort(),
    ).to.deep.equal(['change', 'keep', 'vanish'], 'all pages listed');
    // Drop the watch only once the server holds it: dropWatches() before the watch request reaches the
    // server leaves it open, the informer sees the changes below live, and there is no 410 to test.
    await env.client.patch(
      ConfigMaps,
      { namespace: 'inf', name: 'keep' },
      { type: 'merge', body: { data: { v: '2' } } },
    );
    await changes.until(
      () => seen.some((s) => s.name === 'keep' && s.data === '2'),
      'an update through the first watch',
    );
    expect(gated.watchesOpened()).to.equal(1);
    seen.length = 0;

    gated.pause();
    env.controlPlane.dropWatches();
    await env.client.patch(
      ConfigMaps,
      { namespace: 'inf', name: 'change' },
      { type: 'merge', body: { data: { v: '2' } } },
    );
    await env.client.delete(ConfigMaps, { namespace: 'inf', name: 'vanish' });
    await env.client.create(ConfigMaps, cm('new', '1'));
    env.controlPlane.compactHistory();
    gated.resume();

    await changes.until(() => seen.length >= 3 && !!informer.get({ namespace: 'inf', name: 'new' }), 'the re-list');
    await changes.until(() => gated.watchesOpened() >= 3, 'the watch after the re-list');
    await env.client.patch(
      ConfigMaps,
      { namespace: 'inf', name: 'keep' },
      { type: 'merge', body: { data: { v: '3' } } },
    );
    await changes.until(() => seen.some((s) => s.name === 'keep'), 'an update after recovery');
    expect(seen.map((s) => `${s.event}:${s.name}:${s.data}`).sort()).to.deep.equal([
      'add:new:1',
      'delete:vanish:1',
      'update:change:2',
      'update:keep:3',
    ]);
    expect(
      informer
        .list()
        .map((o) => o.metadata.name)
        .sort(),
    ).to.deep.equal(['change', 'keep', 'new']);
    await stop();
  });

  it('re-delivers update for every cached object on each resync period', async () => {
    await env.client.create(ConfigMaps, cm('x', '1'));
    const clock = new FakeClock();
    const { informer, seen, stop } = startInformer(env.client, { resyncPeriodMs: 100, clock });
    await informer.waitForSync();
    const resyncs = () => seen.filter((s) => s.event === 'update' && s.name === 'x').map((s) => s.data);
    clock.step(99);
    expect(resyncs(), 'before the first period ends').to.deep.equal([]);
    clock.step(1);
    expect(resyncs(), 'after one period').to.deep.equal(['1']);
    clock.step(100);
    expect(resyncs(), 'after two periods').to.deep.equal(['1', '1']);
    await stop();
  });

  it('replays adds to a handler registered after the cache has synced', async () => {
    await env.client.create(ConfigMaps, cm('late', '1'));
    const { informer, stop } = startInformer(env.client);
    await informer.waitForSync();
    const late: string[] = [];
    informer.on('add', (o) => late.push(o.metadata.name!));
    expect(late).to.deep.equal(['late']);
    await stop();
  });
});
