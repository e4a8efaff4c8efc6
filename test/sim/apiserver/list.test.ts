import { expect } from 'chai';
import { createNamespace, failure, raw, startEnv, W, widget, type Env, type Json } from './helpers.js';

describe('envtest control plane: lists and selectors', () => {
  let env: Env;
  const M = { ...W, namespace: 'l1' };

  before(async () => {
    env = await startEnv();
    await createNamespace(env, 'l1');
    await createNamespace(env, 'l2');
    for (const [i, tier] of ['gold', 'gold', 'tin', 'tin', 'tin'].entries()) {
      await env.custom.createNamespacedCustomObject({
        ...M,
        body: widget(`w${i}`, { size: 'small' }, { labels: { tier } }),
      });
    }
    await env.custom.createNamespacedCustomObject({
      ...W,
      namespace: 'l2',
      body: widget('x0', { size: 'small' }, { labels: { tier: 'gold' } }),
    });
  });
  after(async () => env.cp.stop());

  it('lists one namespace or all, in name order, with the current resourceVersion', async () => {
    const one = await env.custom.listNamespacedCustomObject({ ...M });
    expect(one.kind).to.equal('WidgetList');
    expect(one.items.map((i: Json) => i.metadata.name)).to.deep.equal(['w0', 'w1', 'w2', 'w3', 'w4']);
    const all = await env.custom.listClusterCustomObject({ ...W });
    expect(all.items.map((i: Json) => `${i.metadata.namespace}/${i.metadata.name}`)).to.deep.equal([
      'l1/w0',
      'l1/w1',
      'l1/w2',
      'l1/w3',
      'l1/w4',
      'l2/x0',
    ]);
    expect(Number(all.metadata.resourceVersion)).to.be.greaterThan(0);
  });

  it('filters by label selector (set-based too) and by metadata field selectors', async () => {
    const gold = await env.custom.listClusterCustomObject({ ...W, labelSelector: 'tier=gold' });
    expect(gold.items.map((i: Json) => i.metadata.name)).to.deep.equal(['w0', 'w1', 'x0']);
    const notTin = await env.custom.listNamespacedCustomObject({ ...M, labelSelector: 'tier notin (tin)' });
    expect(notTin.items).to.have.length(2);
    const byName = await env.custom.listClusterCustomObject({ ...W, fieldSelector: 'metadata.name=w3' });
    expect(byName.items.map((i: Json) => i.metadata.name)).to.deep.equal(['w3']);
    const byNs = await env.custom.listClusterCustomObject({ ...W, fieldSelector: 'metadata.namespace!=l1' });
    expect(byNs.items.map((i: Json) => i.metadata.name)).to.deep.equal(['x0']);
  });

  it('rejects unsupported field selectors and malformed label selectors with 400', async () => {
    expect(
      (await failure(env.custom.listClusterCustomObject({ ...W, fieldSelector: 'spec.size=small' }))).body.message,
    ).to.equal('field label not supported: spec.size');
    expect((await failure(env.custom.listClusterCustomObject({ ...W, labelSelector: 'a in (' }))).code).to.equal(400);
  });

  it('selects pods by spec.nodeName and status.phase', async () => {
    for (const [name, node] of [
      ['p1', 'n1'],
      ['p2', 'n2'],
      ['p3', 'n1'],
    ]) {
      await env.core.createNamespacedPod({
        namespace: 'l1',
        body: { metadata: { name }, spec: { nodeName: node, containers: [{ name: 'c', image: 'i' }] } },
      });
    }
    const p3 = await env.core.readNamespacedPod({ namespace: 'l1', name: 'p3' });
    await env.core.replaceNamespacedPodStatus({
      namespace: 'l1',
      name: 'p3',
      body: { ...p3, status: { phase: 'Running' } },
    });
    const onN1 = await env.core.listPodForAllNamespaces({ fieldSelector: 'spec.nodeName=n1' });
    expect(onN1.items.map((p: Json) => p.metadata?.name)).to.deep.equal(['p1', 'p3']);
    const running = await env.core.listPodForAllNamespaces({ fieldSelector: 'spec.nodeName=n1,status.phase=Running' });
    expect(running.items.map((p: Json) => p.metadata?.name)).to.deep.equal(['p3']);
  });

  it('pages with limit and continue', async () => {
    const first = await env.custom.listClusterCustomObject({ ...W, limit: 4 });
    expect(first.items.map((i: Json) => i.metadata.name)).to.deep.equal(['w0', 'w1', 'w2', 'w3']);
    expect(first.metadata.remainingItemCount).to.equal(2);
    const second = await env.custom.listClusterCustomObject({ ...W, limit: 4, _continue: first.metadata.continue });
    expect(second.items.map((i: Json) => i.metadata.name)).to.deep.equal(['w4', 'x0']);
    expect(second.metadata.continue).to.equal(undefined);
    const r = await raw(env.cp, 'GET', '/apis/test.envtest.io/v1/widgets?limit=1&continue=garbage');
    expect(r.status).to.equal(400);
  });

  it('pages across namespaces where one name is a prefix of another ("p" and "p-q"): every object once, in order', async () => {
    for (const ns of ['p', 'p-q']) {
      await createNamespace(env, ns);
      for (const name of ['a', 'b'])
        await env.custom.createNamespacedCustomObject({
          ...W,
          namespace: ns,
          body: widget(name, { size: 'small' }, { labels: { page: 'yes' } }),
        });
    }
    const seen: string[] = [];
    let cont: string | undefined;
    for (let page = 0; page < 10; page++) {
      const r = await env.custom.listClusterCustomObject({
        ...W,
        labelSelector: 'page=yes',
        limit: 1,
        ...(cont ? { _continue: cont } : {}),
      });
      seen.push(...r.items.map((i: Json) => `${i.metadata.namespace}/${i.metadata.name}`));
      cont = r.metadata.continue;
      if (!cont) break;
    }
    expect(seen).to.deep.equal(['p/a', 'p/b', 'p-q/a', 'p-q/b']);
  });
});
