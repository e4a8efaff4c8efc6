import { expect } from 'chai';
import type { KubeObject } from '../../../lib/apis/meta.js';
import type { KubeClient, ListResult, WatchEvent } from '../../../lib/client/kube-client.js';
import { ConfigMaps, Nodes, type Resource } from '../../../lib/client/resources.js';
import { FakeClock } from '../../../lib/base/fake-clock.js';
import { nullLogger } from '../../../lib/base/structured-logger.js';
import { SharedInformer } from '../../../lib/runtime/shared-informer.js';

const settle = async (n = 5) => {
  for (let i = 0; i < n; i++) await new Promise<void>((r) => setImmediate(r));
};
const cm = (name: string, rv: string): KubeObject => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace: 'ns', resourceVersion: rv },
});

type WatchScript = (onEvent: (e: WatchEvent<KubeObject>) => void, signal: AbortSignal) => Promise<void>;

/** A client whose list answers and watch sessions the test scripts one by one. */
function scriptedClient(lists: Array<ListResult<KubeObject> | Error>, watches: WatchScript[]) {
  const calls: string[] = [];
  const client = {
    list: async () => {
      calls.push('list');
      const next = lists.shift();
      if (!next) throw new Error('no more lists scripted');
      if (next instanceof Error) throw next;
      return next;
    },
    watch: async (
      _r: unknown,
      opts: { resourceVersion?: string },
      onEvent: (e: WatchEvent<KubeObject>) => void,
      signal: AbortSignal,
    ) => {
      calls.push(`watch@${opts.resourceVersion}`);
      const next = watches.shift() ?? ((_on, s) => new Promise<void>((r) => s.addEventListener('abort', () => r())));
      return next(onEvent, signal);
    },
  } as unknown as KubeClient;
  return { client, calls };
}

/** An informer on a scripted client: no resync, a FakeClock unless given one. */
function scriptedInformer<T extends KubeObject>(client: KubeClient, resource: Resource<T>, clock = new FakeClock()) {
  return new SharedInformer({ client, resource, clock, logger: nullLogger(), resyncPeriodMs: 0 });
}

describe('SharedInformer (scripted client)', () => {
  it('re-lists when the watch stream carries an ERROR 410 event', async () => {
    const { client, calls } = scriptedClient(
      [
        { items: [cm('a', '1')], metadata: { resourceVersion: '1' } },
        { items: [cm('a', '5')], metadata: { resourceVersion: '5' } },
      ],
      [async (on) => on({ type: 'ERROR', object: { kind: 'Status', code: 410, message: 'too old', metadata: {} } })],
    );
    const informer = scriptedInformer(client, ConfigMaps);
    const updates: string[] = [];
    informer.on('update', (o, old) => updates.push(`${old?.metadata.resourceVersion}->${o.metadata.resourceVersion}`));
    const stop = new AbortController();
    const running = informer.start(stop.signal);
    await settle();
    expect(calls).to.deep.equal(['list', 'watch@1', 'list', 'watch@5']);
    expect(updates).to.deep.equal(['1->5']);
    stop.abort();
    await running;
  });

  it('tells relist handlers when each full list was sent, the first one and every one after a 410', async () => {
    const clock = new FakeClock();
    const { client } = scriptedClient(
      [
        { items: [cm('a', '1')], metadata: { resourceVersion: '1' } },
        { items: [], metadata: { resourceVersion: '5' } },
      ],
      [async (on) => on({ type: 'ERROR', object: { kind: 'Status', code: 410, message: 'too old', metadata: {} } })],
    );
    const informer = scriptedInformer(client, ConfigMaps, clock);
    const relists: number[] = [];
    informer.onRelist((sentAt) => relists.push(sentAt));
    const stop = new AbortController();
    const running = informer.start(stop.signal);
    await settle();
    expect(relists).to.deep.equal([clock.now(), clock.now()]);
    expect(informer.list()).to.deep.equal([]);
    stop.abort();
    await running;
  });

  it('backs off 800 ms, 1.6 s, … on errors and does not sync until a list succeeds', async () => {
    const clock = new FakeClock();
    const { client, calls } = scriptedClient(
      [
        new Error('connection refused'),
        new Error('connection refused'),
        { items: [], metadata: { resourceVersion: '3' } },
      ],
      [],
    );
    const informer = scriptedInformer(client, ConfigMaps, clock);
    const stop = new AbortController();
    const running = informer.start(stop.signal);
    await settle();
    expect(calls).to.deep.equal(['list']);
    clock.step(799);
    await settle();
    expect(calls).to.have.length(1);
    clock.step(1);
    await settle();
    expect(calls).to.deep.equal(['list', 'list']);
    expect(informer.hasSynced()).to.equal(false);
    clock.step(1600);
    await settle();
    expect(calls).to.deep.equal(['list', 'list', 'list', 'watch@3']);
    expect(informer.hasSynced()).to.equal(true);
    stop.abort();
    await running;
  });

  it('resumes from the last event resourceVersion (bookmarks included) when a stream ends, without re-listing', async () => {
    const { client, calls } = scriptedClient(
      [{ items: [], metadata: { resourceVersion: '1' } }],
      [
        async (on) => {
          on({ type: 'ADDED', object: cm('a', '2') });
          on({ type: 'BOOKMARK', object: { metadata: { resourceVersion: '9' } } });
        },
        async (on) => {
          on({ type: 'ADDED', object: cm('a', '2') }); // a replay of a state already seen: no second add
          on({ type: 'DELETED', object: cm('a', '10') });
          on({ type: 'DELETED', object: cm('ghost', '11') }); // never seen: nothing to delete
        },
      ],
    );
    const informer = scriptedInformer(client, ConfigMaps);
    const events: string[] = [];
    for (const ev of ['add', 'update', 'delete'] as const)
      informer.on(ev, (o) => events.push(`${ev}:${o.metadata.name}@${o.metadata.resourceVersion}`));
    const stop = new AbortController();
    const running = informer.start(stop.signal);
    await settle();
    expect(calls).to.deep.equal(['list', 'watch@1', 'watch@9', 'watch@11']);
    expect(events).to.deep.equal(['add:a@2', 'delete:a@10']);
    stop.abort();
    await running;
  });

  it("keeps neither metadata.managedFields nor a Node's status.images, from the list and from the watch, and leaves what it was handed as it was", async () => {
    const managedFields = [
      { manager: 'kubelet', operation: 'Update', fieldsType: 'FieldsV1', fieldsV1: { 'f:status': {} } },
    ];
    const node = (name: string, rv: string) => ({
      apiVersion: 'v1',
      kind: 'Node',
      metadata: { name, resourceVersion: rv, labels: { role: 'worker' }, managedFields },
      status: {
        images: [{ names: ['quay.io/a@sha256:1'], sizeBytes: 1 }],
        conditions: [{ type: 'Ready', status: 'True' }],
      },
    });
    const listed = node('a', '1');
    const watched = node('b', '2');
    const { client } = scriptedClient(
      [{ items: [listed], metadata: { resourceVersion: '1' } }],
      [async (on) => on({ type: 'ADDED', object: watched })],
    );
    const informer = scriptedInformer(client, Nodes);
    const added: KubeObject[] = [];
    informer.on('add', (o) => added.push(o));
    const stop = new AbortController();
    const running = informer.start(stop.signal);
    await settle();
    for (const name of ['a', 'b']) {
      const cached = informer.get({ name }) as unknown as ReturnType<typeof node>;
      expect(cached.metadata).to.deep.equal({
        name,
        resourceVersion: name === 'a' ? '1' : '2',
        labels: { role: 'worker' },
      });
      expect(cached.status).to.deep.equal({ conditions: [{ type: 'Ready', status: 'True' }] });
    }
    expect(added.map((o) => 'managedFields' in o.metadata)).to.deep.equal([false, false]);
    expect(listed.metadata.managedFields).to.equal(managedFields);
    expect(watched.status.images).to.have.length(1);
    stop.abort();
    await running;
  });

  it('keeps metadata.managedFields out of the cache of any other kind too', async () => {
    const withFields = { ...cm('a', '1'), metadata: { ...cm('a', '1').metadata, managedFields: [{ manager: 'x' }] } };
    const { client } = scriptedClient([{ items: [withFields], metadata: { resourceVersion: '1' } }], []);
    const informer = scriptedInformer(client, ConfigMaps);
    const stop = new AbortController();
    const running = informer.start(stop.signal);
    await settle();
    expect(informer.get({ namespace: 'ns', name: 'a' })?.metadata).to.deep.equal({
      name: 'a',
      namespace: 'ns',
      resourceVersion: '1',
    });
    stop.abort();
    await running;
  });
});
