import { expect } from 'chai';
import * as k8s from '@kubernetes/client-node';
import {
  apply,
  createNamespace,
  failure,
  jsonPatch,
  merge,
  raw,
  startEnv,
  strategic,
  W,
  widget,
  type Env,
  type Json,
} from './helpers.js';

describe('envtest control plane: patches', () => {
  let env: Env;
  const ns = 'patch';
  const M = { ...W, namespace: ns };

  before(async () => {
    env = await startEnv();
    await createNamespace(env, ns);
  });
  after(async () => env.cp.stop());

  it('applies a JSON merge patch, removing keys set to null', async () => {
    await env.custom.createNamespacedCustomObject({
      ...M,
      body: widget('m', { size: 'small', color: 'red' }, { labels: { a: '1', b: '2' } }),
    });
    const p = await env.custom.patchNamespacedCustomObject(
      { ...M, name: 'm', body: { metadata: { labels: { a: null, c: '3' } }, spec: { color: null } } },
      merge,
    );
    expect(p.metadata.labels).to.deep.equal({ b: '2', c: '3' });
    expect(p.spec).to.deep.equal({ size: 'small', replicas: 1 });
  });

  it('answers 409 to a merge patch carrying a resourceVersion other than the stored one', async () => {
    const obj = await env.custom.createNamespacedCustomObject({ ...M, body: widget('lock') });
    const ok = await env.custom.patchNamespacedCustomObject(
      {
        ...M,
        name: 'lock',
        body: { metadata: { resourceVersion: obj.metadata.resourceVersion }, spec: { color: 'a' } },
      },
      merge,
    );
    expect(ok.spec.color).to.equal('a');
    const f = await failure(
      env.custom.patchNamespacedCustomObject(
        {
          ...M,
          name: 'lock',
          body: { metadata: { resourceVersion: obj.metadata.resourceVersion }, spec: { color: 'b' } },
        },
        merge,
      ),
    );
    expect(f.code).to.equal(409);
    expect(f.body.reason).to.equal('Conflict');
  });

  it('applies a JSON patch and rejects one whose test fails with 422', async () => {
    const obj = await env.custom.createNamespacedCustomObject({ ...M, body: widget('jp') });
    const p = await env.custom.patchNamespacedCustomObject(
      {
        ...M,
        name: 'jp',
        body: [
          { op: 'test', path: '/metadata/resourceVersion', value: obj.metadata.resourceVersion },
          { op: 'replace', path: '/spec/size', value: 'large' },
        ],
      },
      jsonPatch,
    );
    expect(p.spec.size).to.equal('large');
    const f = await failure(
      env.custom.patchNamespacedCustomObject(
        {
          ...M,
          name: 'jp',
          body: [
            { op: 'test', path: '/metadata/resourceVersion', value: obj.metadata.resourceVersion },
            { op: 'replace', path: '/spec/size', value: 'small' },
          ],
        },
        jsonPatch,
      ),
    );
    expect(f.code).to.equal(422);
  });

  it('validates the patched object like any write', async () => {
    await env.custom.createNamespacedCustomObject({ ...M, body: widget('pv') });
    const f = await failure(
      env.custom.patchNamespacedCustomObject({ ...M, name: 'pv', body: { spec: { size: 'gigantic' } } }, merge),
    );
    expect(f.code).to.equal(422);
    expect(f.body.details.causes[0].field).to.equal('spec.size');
  });

  it('patches only status through /status', async () => {
    await env.custom.createNamespacedCustomObject({ ...M, body: widget('st') });
    const p = await env.custom.patchNamespacedCustomObjectStatus(
      { ...M, name: 'st', body: { spec: { size: 'large' }, status: { phase: 'Ready' } } },
      merge,
    );
    expect(p.spec.size).to.equal('small');
    expect(p.status.phase).to.equal('Ready');
  });

  it('answers 415 to a strategic merge patch on a custom resource and applies one to a built-in kind by merge key', async () => {
    await env.custom.createNamespacedCustomObject({ ...M, body: widget('smp') });
    const f = await failure(
      env.custom.patchNamespacedCustomObject({ ...M, name: 'smp', body: { spec: { color: 'x' } } }, strategic),
    );
    expect(f.code).to.equal(415);
    expect(f.body.reason).to.equal('UnsupportedMediaType');
    const conditions = [
      { type: 'Ready', status: 'True' },
      { type: 'DiskPressure', status: 'False' },
    ];
    await env.core.createNode({ body: { metadata: { name: 'smp-node' }, status: { conditions } } });
    const node = await env.core.patchNodeStatus(
      { name: 'smp-node', body: { status: { conditions: [{ type: 'Ready', status: 'False' }] } } },
      strategic,
    );
    expect(node.status?.conditions?.map((c: Json) => `${c.type}=${c.status}`)).to.deep.equal([
      'Ready=False',
      'DiskPressure=False',
    ]);
  });

  it('treats an apply patch as the merged full intent, creates when absent, and requires a fieldManager', async () => {
    const intent = widget('ssa', { size: 'medium', color: 'green' });
    const created = await env.custom.patchNamespacedCustomObject(
      { ...M, name: 'ssa', fieldManager: 'test', force: true, body: intent },
      apply,
    );
    expect(created.spec).to.deep.equal({ size: 'medium', color: 'green', replicas: 1 });
    const updated = await env.custom.patchNamespacedCustomObject(
      { ...M, name: 'ssa', fieldManager: 'test', force: true, body: widget('ssa', { size: 'large' }) },
      apply,
    );
    expect(updated.spec.size).to.equal('large');
    const r = await raw(env.cp, 'PATCH', `/apis/test.envtest.io/v1/namespaces/${ns}/widgets/ssa`, {
      body: JSON.stringify(intent),
      headers: { 'content-type': 'application/apply-patch+yaml' },
    });
    expect(r.status).to.equal(422);
    expect(r.json().details.causes[0].field).to.equal('fieldManager');
  });

  it('answers 415 to an unknown patch content type', async () => {
    await env.custom.createNamespacedCustomObject({ ...M, body: widget('ct') });
    const r = await raw(env.cp, 'PATCH', `/apis/test.envtest.io/v1/namespaces/${ns}/widgets/ct`, {
      body: '{}',
      headers: { 'content-type': 'text/plain' },
    });
    expect(r.status).to.equal(415);
  });

  it('rejects unknown fields with fieldValidation=Strict and warns by default', async () => {
    const strict = await raw(
      env.cp,
      'POST',
      `/apis/test.envtest.io/v1/namespaces/${ns}/widgets?fieldValidation=Strict`,
      {
        body: JSON.stringify(widget('strict', { size: 'small', bogus: true })),
        headers: { 'content-type': 'application/json' },
      },
    );
    expect(strict.status).to.equal(400);
    expect(strict.json().message).to.equal(
      'Widget in version "v1" cannot be handled as a Widget: strict decoding error: unknown field "spec.bogus"',
    );
    const warn = await raw(env.cp, 'POST', `/apis/test.envtest.io/v1/namespaces/${ns}/widgets`, {
      body: JSON.stringify(widget('warn', { size: 'small', bogus: true })),
      headers: { 'content-type': 'application/json' },
    });
    expect(warn.status).to.equal(201);
    expect(String(warn.headers.warning)).to.contain('unknown field \\"spec.bogus\\"');
  });

  it('patches built-in kinds with merge patches through the typed clients (cordon-style)', async () => {
    await env.core.createNode({ body: { metadata: { name: 'cordon' } } });
    const n = await env.core.patchNode({ name: 'cordon', body: { spec: { unschedulable: true } } }, merge);
    expect(n.spec?.unschedulable).to.equal(true);
    const list = await env.core.listNode({ fieldSelector: 'spec.unschedulable=true' });
    expect(list.items.map((x: Json) => x.metadata?.name)).to.deep.equal(['cordon']);
  });

  it('works through KubernetesObjectApi with discovery', async () => {
    const objs = k8s.KubernetesObjectApi.makeApiClient(env.kc);
    await objs.create({ ...widget('koa'), metadata: { name: 'koa', namespace: ns } });
    const read: Json = await objs.read({
      apiVersion: 'test.envtest.io/v1',
      kind: 'Widget',
      metadata: { name: 'koa', namespace: ns },
    });
    expect(read.spec.size).to.equal('small');
    const patched: Json = await objs.patch(
      {
        apiVersion: 'test.envtest.io/v1',
        kind: 'Widget',
        metadata: { name: 'koa', namespace: ns },
        spec: { color: 'c' },
      } as k8s.KubernetesObject,
      undefined,
      undefined,
      undefined,
      undefined,
      k8s.PatchStrategy.MergePatch,
    );
    expect(patched.spec.color).to.equal('c');
  });
});
