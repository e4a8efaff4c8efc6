import { KubeConfig } from '@kubernetes/client-node';
import { expect } from 'chai';
import type { ConfigMap, Pod } from '../../../lib/apis/core.js';
import {
  ApiError,
  isConflict,
  isNotFound,
  isTooManyRequests,
  ignoreNotFound,
  isAlreadyExists,
} from '../../../lib/client/errors.js';
import { createKubeClient } from '../../../lib/client/http-kube-client.js';
import { kubeConfigFor } from '../../../lib/client/kube-config.js';
import type { WatchEvent } from '../../../lib/client/kube-client.js';
import { ConfigMaps, Machines, Namespaces, Nodes, PodDisruptionBudgets, Pods } from '../../../lib/client/resources.js';
import { startTestEnv, type TestEnv } from '../../../sim/kit/test-env.js';

const ns = 'client';

describe('KubeClient against the local control plane', function () {
  this.timeout(20_000);
  let env: TestEnv;
  before(async () => {
    env = await startTestEnv();
    await env.client.create(Namespaces, { metadata: { name: ns } });
  });
  after(async () => env?.stop());

  it('creates, gets, lists by label, updates and deletes, filling apiVersion and kind', async () => {
    const c = env.client;
    const created = await c.create(ConfigMaps, {
      metadata: { name: 'crud', namespace: ns, labels: { app: 'x' } },
      data: { a: '1' },
    });
    expect(created.metadata.uid).to.be.a('string');
    const got = await c.get(ConfigMaps, { namespace: ns, name: 'crud' });
    expect(got.data).to.deep.equal({ a: '1' });
    const listed = await c.list(ConfigMaps, { namespace: ns, labelSelector: 'app=x' });
    expect(listed.items.map((i) => [i.metadata.name, i.kind, i.apiVersion])).to.deep.equal([
      ['crud', 'ConfigMap', 'v1'],
    ]);
    expect(listed.metadata.resourceVersion).to.be.a('string');
    const updated = await c.update(ConfigMaps, { ...got, data: { a: '2' } });
    expect(updated.data).to.deep.equal({ a: '2' });
    await c.delete(ConfigMaps, { namespace: ns, name: 'crud' });
    const err = await c.get(ConfigMaps, { namespace: ns, name: 'crud' }).catch((e: unknown) => e);
    expect(err).to.be.instanceOf(ApiError);
    expect(isNotFound(err)).to.equal(true);
    expect((err as ApiError).status.reason).to.equal('NotFound');
    expect(() => ignoreNotFound(err)).not.to.throw();
  });

  it('reports a stale update and a duplicate create as 409 ApiErrors', async () => {
    const c = env.client;
    const first = await c.create(ConfigMaps, { metadata: { name: 'conflict', namespace: ns } });
    await c.update(ConfigMaps, { ...first, data: { v: '1' } });
    const stale = await c.update(ConfigMaps, { ...first, data: { v: '2' } }).catch((e: unknown) => e);
    expect(isConflict(stale)).to.equal(true);
    const dup = await c.create(ConfigMaps, { metadata: { name: 'conflict', namespace: ns } }).catch((e: unknown) => e);
    expect(isAlreadyExists(dup)).to.equal(true);
  });

  it('applies merge and JSON patches, and with resourceVersion set refuses to patch a moved object (409)', async () => {
    const c = env.client;
    const base = await c.create(ConfigMaps, { metadata: { name: 'patch', namespace: ns }, data: { a: '1' } });
    const merged = await c.patch(
      ConfigMaps,
      { namespace: ns, name: 'patch' },
      { type: 'merge', body: { data: { b: '2' } } },
      { resourceVersion: base.metadata.resourceVersion },
    );
    expect(merged.data).to.deep.equal({ a: '1', b: '2' });
    const json = await c.patch(
      ConfigMaps,
      { namespace: ns, name: 'patch' },
      { type: 'json', body: [{ op: 'replace', path: '/data/a', value: '3' }] },
      { resourceVersion: merged.metadata.resourceVersion },
    );
    expect(json.data).to.deep.equal({ a: '3', b: '2' });
    for (const patch of [
      { type: 'merge' as const, body: { data: { a: 'x' } } },
      { type: 'json' as const, body: [{ op: 'replace' as const, path: '/data/a', value: 'x' }] },
    ]) {
      const err = await c
        .patch(ConfigMaps, { namespace: ns, name: 'patch' }, patch, { resourceVersion: base.metadata.resourceVersion })
        .catch((e: unknown) => e);
      expect(isConflict(err), patch.type).to.equal(true);
    }
    expect((await c.get(ConfigMaps, { namespace: ns, name: 'patch' })).data?.a).to.equal('3');
  });

  it('writes the status subresource separately from the spec', async () => {
    const c = env.client;
    const m = await c.create(Machines, {
      apiVersion: 'machine.openshift.io/v1beta1',
      kind: 'Machine',
      metadata: { name: 'm1', namespace: ns },
      spec: {},
    });
    const withStatus = await c.updateStatus(Machines, { ...m, status: { phase: 'Provisioning' } });
    expect(withStatus.status?.phase).to.equal('Provisioning');
    const patched = await c.patch(
      Machines,
      { namespace: ns, name: 'm1' },
      { type: 'merge', body: { status: { phase: 'Running' } } },
      { subresource: 'status' },
    );
    expect(patched.status?.phase).to.equal('Running');
    const ignored = await c.patch(
      Machines,
      { namespace: ns, name: 'm1' },
      { type: 'merge', body: { status: { phase: 'Failed' } } },
    );
    expect(ignored.status?.phase).to.equal('Running', 'the main resource ignores status');
  });

  it('evicts a pod, and answers 429 while a PodDisruptionBudget forbids it', async () => {
    const c = env.client;
    const pod = (name: string): Pod => ({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name, namespace: ns, labels: { app: name } },
      spec: { containers: [{ name: 'c', image: 'i' }] },
    });
    for (const name of ['free', 'guarded']) {
      const p = await c.create(Pods, pod(name));
      await c.updateStatus(Pods, {
        ...p,
        status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] },
      });
    }
    // The control plane keeps the budget's status current itself, as the disruption controller does.
    await c.create(PodDisruptionBudgets, {
      apiVersion: 'policy/v1',
      kind: 'PodDisruptionBudget',
      metadata: { name: 'guard', namespace: ns },
      spec: { minAvailable: 1, selector: { matchLabels: { app: 'guarded' } } },
    });
    await c.evict({ namespace: ns, name: 'free' });
    const blocked = await c.evict({ namespace: ns, name: 'guarded' }).catch((e: unknown) => e);
    expect(isTooManyRequests(blocked)).to.equal(true);
  });

  it('streams watch events in order and rejects a watch from compacted history with 410', async () => {
    const c = env.client;
    const start = await c.list(ConfigMaps, { namespace: ns });
    const events: WatchEvent<ConfigMap>[] = [];
    const ac = new AbortController();
    const watching = c.watch(
      ConfigMaps,
      { namespace: ns, resourceVersion: start.metadata.resourceVersion },
      (e) => events.push(e),
      ac.signal,
    );
    await c.create(ConfigMaps, { metadata: { name: 'w', namespace: ns } });
    await c.delete(ConfigMaps, { namespace: ns, name: 'w' });
    for (let i = 0; i < 200 && events.length < 2; i++) await new Promise((r) => setTimeout(r, 10));
    ac.abort();
    await watching;
    expect(events.map((e) => `${e.type} ${e.object.metadata.name}`)).to.deep.equal(['ADDED w', 'DELETED w']);
    env.controlPlane.compactHistory();
    const gone = await c
      .watch(
        ConfigMaps,
        { namespace: ns, resourceVersion: start.metadata.resourceVersion },
        () => undefined,
        new AbortController().signal,
      )
      .catch((e: unknown) => e);
    expect(gone).to.be.instanceOf(ApiError);
    expect((gone as ApiError).code).to.equal(410);
  });

  it('works on cluster-scoped kinds and refuses a namespaced kind without a namespace', async () => {
    const c = env.client;
    await c.create(Nodes, { metadata: { name: 'node-a' } });
    expect((await c.get(Nodes, { name: 'node-a' })).metadata.name).to.equal('node-a');
    const err = await c.get(ConfigMaps, { name: 'x' }).catch((e: unknown) => e);
    expect(String(err)).to.match(/namespace is required/);
  });

  it('turns a wrong token into a 401 ApiError and a dead server into a plain network error', async () => {
    const kc = new KubeConfig();
    kc.loadFromOptions({
      clusters: env.kubeConfig.clusters,
      users: [{ name: 'intruder', token: 'wrong-token' }],
      contexts: [{ name: 'bad', cluster: env.kubeConfig.getCurrentCluster()!.name, user: 'intruder' }],
      currentContext: 'bad',
    });
    const bad = createKubeClient({ kubeConfig: kc });
    const unauthorized = await bad.get(Nodes, { name: 'node-a' }).catch((e: unknown) => e);
    expect(unauthorized).to.be.instanceOf(ApiError);
    expect((unauthorized as ApiError).code).to.equal(401);
    const dead = createKubeClient({ kubeConfig: kubeConfigFor('http://127.0.0.1:1', 't') });
    const netErr = await dead.get(Nodes, { name: 'x' }).catch((e: unknown) => e);
    expect(netErr).to.be.instanceOf(Error);
    expect(netErr).not.to.be.instanceOf(ApiError);
    expect(String(netErr)).to.match(/ECONNREFUSED/);
    bad.close();
    dead.close();
  });

  it('holds requests to the client-side QPS after the burst', async () => {
    const slow = createKubeClient({ kubeConfig: env.kubeConfig, qps: 20, burst: 2 });
    const t0 = Date.now();
    await Promise.all(Array.from({ length: 6 }, () => slow.get(Nodes, { name: 'node-a' })));
    // 2 at once, then 4 more at 50 ms intervals.
    expect(Date.now() - t0).to.be.greaterThanOrEqual(180);
    slow.close();
  });
});
