import { expect } from 'chai';
import { createNamespace, eventually, failure, merge, startEnv, W, widget, type Env, type Json } from './helpers.js';

describe('envtest control plane: deletion, finalizers and garbage collection', () => {
  let env: Env;
  const ns = 'del';
  const M = { ...W, namespace: ns };
  const exists = async (name: string) => {
    try {
      await env.custom.getNamespacedCustomObject({ ...M, name });
      return true;
    } catch {
      return false;
    }
  };
  const owned = (name: string, owner: Json, block = false) =>
    widget(
      name,
      { size: 'small' },
      {
        ownerReferences: [
          {
            apiVersion: 'test.envtest.io/v1',
            kind: 'Widget',
            name: owner.metadata.name,
            uid: owner.metadata.uid,
            ...(block ? { blockOwnerDeletion: true } : {}),
          },
        ],
      },
    );

  before(async () => {
    env = await startEnv();
    await createNamespace(env, ns);
  });
  after(async () => env.cp.stop());

  it('only marks an object with finalizers, bumping generation; it goes when the last finalizer is removed', async () => {
    await env.custom.createNamespacedCustomObject({
      ...M,
      body: widget('fin', { size: 'small' }, { finalizers: ['test/a', 'test/b'] }),
    });
    const marked = await env.custom.deleteNamespacedCustomObject({ ...M, name: 'fin' });
    expect(marked.metadata.deletionTimestamp).to.be.a('string');
    expect(marked.metadata.generation).to.equal(2);
    const got = await env.custom.getNamespacedCustomObject({ ...M, name: 'fin' });
    expect(got.metadata.deletionTimestamp).to.equal(marked.metadata.deletionTimestamp);
    const f = await failure(
      env.custom.patchNamespacedCustomObject(
        { ...M, name: 'fin', body: { metadata: { finalizers: ['test/a', 'test/b', 'test/c'] } } },
        merge,
      ),
    );
    expect(f.code).to.equal(422);
    await env.custom.patchNamespacedCustomObject(
      { ...M, name: 'fin', body: { metadata: { finalizers: ['test/b'] } } },
      merge,
    );
    expect(await exists('fin')).to.equal(true);
    await env.custom.patchNamespacedCustomObject(
      { ...M, name: 'fin', body: { metadata: { finalizers: null } } },
      merge,
    );
    expect(await exists('fin')).to.equal(false);
  });

  it('checks delete preconditions', async () => {
    const obj = await env.custom.createNamespacedCustomObject({ ...M, body: widget('pre') });
    const f = await failure(
      env.custom.deleteNamespacedCustomObject({ ...M, name: 'pre', body: { preconditions: { uid: 'other' } } }),
    );
    expect(f.code).to.equal(409);
    await env.custom.deleteNamespacedCustomObject({
      ...M,
      name: 'pre',
      body: { preconditions: { uid: obj.metadata.uid, resourceVersion: obj.metadata.resourceVersion } },
    });
    expect(await exists('pre')).to.equal(false);
  });

  it('deletes dependents in the background when their owner goes', async () => {
    const owner = await env.custom.createNamespacedCustomObject({ ...M, body: widget('bg-owner') });
    await env.custom.createNamespacedCustomObject({ ...M, body: owned('bg-dep', owner) });
    await env.core.createNamespacedConfigMap({
      namespace: ns,
      body: {
        metadata: {
          name: 'bg-cm',
          ownerReferences: [
            { apiVersion: 'test.envtest.io/v1', kind: 'Widget', name: 'bg-owner', uid: owner.metadata.uid },
          ],
        },
      },
    });
    await env.custom.deleteNamespacedCustomObject({ ...M, name: 'bg-owner' });
    await eventually(async () => !(await exists('bg-dep')));
    await eventually(
      async () =>
        (await env.core.listNamespacedConfigMap({ namespace: ns, fieldSelector: 'metadata.name=bg-cm' })).items
          .length === 0,
    );
  });

  it('keeps a dependent that has another live owner, dropping only the dangling reference', async () => {
    const a = await env.custom.createNamespacedCustomObject({ ...M, body: widget('two-a') });
    const b = await env.custom.createNamespacedCustomObject({ ...M, body: widget('two-b') });
    const dep: Json = owned('two-dep', a);
    dep.metadata.ownerReferences.push({
      apiVersion: 'test.envtest.io/v1',
      kind: 'Widget',
      name: 'two-b',
      uid: b.metadata.uid,
    });
    await env.custom.createNamespacedCustomObject({ ...M, body: dep });
    await env.custom.deleteNamespacedCustomObject({ ...M, name: 'two-a' });
    await eventually(
      async () =>
        (await env.custom.getNamespacedCustomObject({ ...M, name: 'two-dep' })).metadata.ownerReferences.length === 1,
    );
  });

  it('deletes in the foreground: the owner waits (foregroundDeletion) until blocking dependents are gone', async () => {
    const owner = await env.custom.createNamespacedCustomObject({ ...M, body: widget('fg-owner') });
    await env.custom.createNamespacedCustomObject({
      ...M,
      body: {
        ...owned('fg-dep', owner, true),
        metadata: { ...owned('fg-dep', owner, true).metadata, finalizers: ['test/hold'] },
      },
    });
    const marked = await env.custom.deleteNamespacedCustomObject({
      ...M,
      name: 'fg-owner',
      propagationPolicy: 'Foreground',
    });
    expect(marked.metadata.finalizers).to.include('foregroundDeletion');
    await eventually(
      async () => (await env.custom.getNamespacedCustomObject({ ...M, name: 'fg-dep' })).metadata.deletionTimestamp,
    );
    expect(await exists('fg-owner')).to.equal(true);
    await env.custom.patchNamespacedCustomObject(
      { ...M, name: 'fg-dep', body: { metadata: { finalizers: null } } },
      merge,
    );
    await eventually(async () => !(await exists('fg-owner')));
  });

  it('orphans dependents: references are removed, dependents stay', async () => {
    const owner = await env.custom.createNamespacedCustomObject({ ...M, body: widget('or-owner') });
    await env.custom.createNamespacedCustomObject({ ...M, body: owned('or-dep', owner) });
    await env.custom.deleteNamespacedCustomObject({ ...M, name: 'or-owner', propagationPolicy: 'Orphan' });
    await eventually(async () => !(await exists('or-owner')));
    const dep = await env.custom.getNamespacedCustomObject({ ...M, name: 'or-dep' });
    expect(dep.metadata.ownerReferences).to.equal(undefined);
  });

  it('collects objects whose owner never existed', async () => {
    await env.custom.createNamespacedCustomObject({
      ...M,
      body: owned('dangling', { metadata: { name: 'ghost', uid: '00000000-0000-0000-0000-000000000000' } }),
    });
    await eventually(async () => !(await exists('dangling')));
  });

  it('deletes a namespace with its content, honouring finalizers, then the namespace itself', async () => {
    await createNamespace(env, 'doomed');
    await env.custom.createNamespacedCustomObject({
      ...W,
      namespace: 'doomed',
      body: widget('held', { size: 'small' }, { finalizers: ['test/hold'] }),
    });
    await env.core.createNamespacedSecret({ namespace: 'doomed', body: { metadata: { name: 's' } } });
    const marked = await env.core.deleteNamespace({ name: 'doomed' });
    expect((marked as Json).status?.phase).to.equal('Terminating');
    await eventually(async () => (await env.core.listNamespacedSecret({ namespace: 'doomed' })).items.length === 0);
    const f = await failure(
      env.core.createNamespacedConfigMap({ namespace: 'doomed', body: { metadata: { name: 'late' } } }),
    );
    expect(f.code).to.equal(403);
    expect((await env.core.readNamespace({ name: 'doomed' })).status?.phase).to.equal('Terminating');
    await env.custom.patchNamespacedCustomObject(
      { ...W, namespace: 'doomed', name: 'held', body: { metadata: { finalizers: null } } },
      merge,
    );
    await eventually(async () => (await failure(env.core.readNamespace({ name: 'doomed' }))).code === 404);
  });

  it('deletes a collection by label selector', async () => {
    await env.custom.createNamespacedCustomObject({
      ...M,
      body: widget('col1', { size: 'small' }, { labels: { batch: 'x' } }),
    });
    await env.custom.createNamespacedCustomObject({
      ...M,
      body: widget('col2', { size: 'small' }, { labels: { batch: 'x' } }),
    });
    await env.custom.createNamespacedCustomObject({
      ...M,
      body: widget('col3', { size: 'small' }, { labels: { batch: 'y' } }),
    });
    await env.custom.deleteCollectionNamespacedCustomObject({ ...M, labelSelector: 'batch=x' });
    expect([await exists('col1'), await exists('col2'), await exists('col3')]).to.deep.equal([false, false, true]);
  });

  it('does nothing on a dryRun delete', async () => {
    await env.custom.createNamespacedCustomObject({ ...M, body: widget('drydel') });
    await env.custom.deleteNamespacedCustomObject({ ...M, name: 'drydel', dryRun: 'All' });
    expect(await exists('drydel')).to.equal(true);
  });
});
