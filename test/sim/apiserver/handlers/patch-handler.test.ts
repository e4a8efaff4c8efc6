// Server-side apply and field ownership through the control plane's handlers, with
// @kubernetes/client-node: the request options kube checks, dryRun, the status subresource, the
// managers of ordinary writes.
import { expect } from 'chai';
import { apply, createNamespace, failure, merge, raw, startEnv, W, widget, type Env, type Json } from '../helpers.js';

describe('envtest control plane: server-side apply and managedFields', () => {
  let env: Env;
  const ns = 'ssa';
  const M = { ...W, namespace: ns };

  before(async () => {
    env = await startEnv();
    await createNamespace(env, ns);
  });
  after(async () => env.cp.stop());

  it('answers 422 naming "force" when a non-apply patch carries it', async () => {
    await env.custom.createNamespacedCustomObject({ ...M, body: widget('forced') });
    const r = await raw(env.cp, 'PATCH', `/apis/test.envtest.io/v1/namespaces/${ns}/widgets/forced?force=true`, {
      body: JSON.stringify({ spec: { color: 'red' } }),
      headers: { 'content-type': 'application/merge-patch+json' },
    });
    expect(r.status).to.equal(422);
    expect(r.json().details.causes).to.deep.equal([
      { reason: 'FieldValueForbidden', message: 'Forbidden: may not be specified for non-apply patch', field: 'force' },
    ]);
  });

  it("answers 400 to an applied configuration whose apiVersion is not the URL's", async () => {
    const r = await raw(
      env.cp,
      'PATCH',
      `/apis/test.envtest.io/v1/namespaces/${ns}/widgets/versioned?fieldManager=me`,
      {
        body: JSON.stringify({ kind: 'Widget', metadata: { name: 'versioned' }, spec: { size: 'small' } }),
        headers: { 'content-type': 'application/apply-patch+yaml' },
      },
    );
    expect(r.status).to.equal(400);
    expect(r.json().message).to.equal(
      'Incorrect version specified in apply patch. Specified patch version: , expected: test.envtest.io/v1',
    );
  });

  it('records the fieldManager of a create, a merge patch and a status write, each with its subresource', async () => {
    await env.custom.createNamespacedCustomObject({
      ...M,
      fieldManager: 'creator',
      body: widget('owned', { size: 'small', color: 'red' }),
    });
    await env.custom.patchNamespacedCustomObject(
      { ...M, name: 'owned', fieldManager: 'painter', body: { spec: { color: 'blue' } } },
      merge,
    );
    const w = await env.custom.patchNamespacedCustomObjectStatus(
      { ...M, name: 'owned', fieldManager: 'reporter', body: { status: { phase: 'Ready' } } },
      merge,
    );
    const entries = (w.metadata.managedFields as Json[]).map((e) => [
      e.manager,
      e.operation,
      e.subresource,
      e.fieldsV1,
    ]);
    expect(entries).to.deep.equal([
      ['creator', 'Update', undefined, { 'f:spec': { '.': {}, 'f:replicas': {}, 'f:size': {} } }],
      ['painter', 'Update', undefined, { 'f:spec': { 'f:color': {} } }],
      ['reporter', 'Update', 'status', { 'f:status': { '.': {}, 'f:phase': {} } }],
    ]);
  });

  it('an apply to /status owns status only, and an apply with dryRun stores nothing', async () => {
    await env.custom.patchNamespacedCustomObject(
      { ...M, name: 'applied', fieldManager: 'me', body: widget('applied', { size: 'small' }) },
      apply,
    );
    const s = await env.custom.patchNamespacedCustomObjectStatus(
      {
        ...M,
        name: 'applied',
        fieldManager: 'ctrl',
        body: { ...widget('applied', { size: 'large' }), status: { phase: 'Up' } },
      },
      apply,
    );
    expect(s.spec.size).to.equal('small');
    expect(s.status).to.deep.equal({ phase: 'Up' });
    expect((s.metadata.managedFields as Json[]).find((e) => e.manager === 'ctrl')).to.deep.include({
      operation: 'Apply',
      subresource: 'status',
      fieldsV1: { 'f:status': { 'f:phase': {} } },
    });
    const dry = await env.custom.patchNamespacedCustomObject(
      { ...M, name: 'applied', fieldManager: 'me', dryRun: 'All', body: widget('applied', { size: 'large' }) },
      apply,
    );
    expect(dry.spec.size).to.equal('large');
    const stored = await env.custom.getNamespacedCustomObject({ ...M, name: 'applied' });
    expect(stored.spec.size).to.equal('small');
  });

  it('a conflict is a 409 Status with a FieldManagerConflict cause per field', async () => {
    await env.custom.createNamespacedCustomObject({
      ...M,
      fieldManager: 'creator',
      body: widget('contested', { size: 'small', color: 'red' }),
    });
    const f = await failure(
      env.custom.patchNamespacedCustomObject(
        { ...M, name: 'contested', fieldManager: 'me', body: widget('contested', { size: 'large', color: 'blue' }) },
        apply,
      ),
    );
    expect(f.code).to.equal(409);
    expect(f.body.reason).to.equal('Conflict');
    expect(f.body.message).to.equal(
      'Apply failed with 2 conflicts: conflicts with "creator" using test.envtest.io/v1:\n- .spec.color\n- .spec.size',
    );
    expect(f.body.details.causes).to.deep.equal([
      {
        reason: 'FieldManagerConflict',
        message: 'conflict with "creator" using test.envtest.io/v1',
        field: '.spec.color',
      },
      {
        reason: 'FieldManagerConflict',
        message: 'conflict with "creator" using test.envtest.io/v1',
        field: '.spec.size',
      },
    ]);
  });
});
