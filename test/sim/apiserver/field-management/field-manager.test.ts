// Field ownership through Update and Apply, as kube-apiserver's field manager records it.
import { expect } from 'chai';
import {
  applyConfiguration,
  recordUpdate,
  type FieldContext,
} from '../../../../sim/apiserver/field-management/index.js';
import { rootSchema } from '../../../../sim/apiserver/field-management/shape.js';
import { StatusError } from '../../../../sim/apiserver/errors.js';

type Json = Record<string, unknown>;

const ctx = (now: string): FieldContext => ({
  schema: rootSchema({
    type: 'object',
    properties: {
      spec: { type: 'object', properties: { replicas: { type: 'integer' }, size: { type: 'string' } } },
      status: { type: 'object' },
    },
  }),
  apiVersion: 'test.envtest.io/v1',
  now,
  statusSubresource: true,
});
const t1 = '2026-01-01T00:00:01Z';
const t2 = '2026-01-01T00:00:02Z';

function managed(obj: Json): Array<Record<string, unknown>> {
  return (obj.metadata as { managedFields: Array<Record<string, unknown>> }).managedFields;
}

function withFields(obj: Json, mf: unknown): Json {
  return { ...obj, metadata: { ...(obj.metadata as Json), managedFields: mf } };
}

const widget = (spec: Json, labels?: Record<string, string>): Json => ({
  apiVersion: 'test.envtest.io/v1',
  kind: 'Widget',
  metadata: { name: 'w', namespace: 'ns', ...(labels ? { labels } : {}) },
  spec,
});

describe('field manager (Update and Apply ownership)', () => {
  it('a create records an Update entry owning every field it set, server-set metadata excepted', () => {
    const mf = recordUpdate(
      { manager: 'kubectl-create', operation: 'Update' },
      undefined,
      {
        ...widget({ size: 's' }, { app: 'a' }),
        metadata: { name: 'w', namespace: 'ns', uid: 'u', labels: { app: 'a' } },
      },
      ctx(t1),
    );
    expect(mf).to.deep.equal([
      {
        manager: 'kubectl-create',
        operation: 'Update',
        apiVersion: 'test.envtest.io/v1',
        time: t1,
        fieldsType: 'FieldsV1',
        fieldsV1: { 'f:metadata': { 'f:labels': { '.': {}, 'f:app': {} } }, 'f:spec': { '.': {}, 'f:size': {} } },
      },
    ]);
  });

  it('an Update takes the fields it changes from other managers; one that changes nothing keeps the entries as they were', () => {
    const created = widget({ size: 's', replicas: 1 });
    const base = withFields(created, recordUpdate({ manager: 'a', operation: 'Update' }, undefined, created, ctx(t1)));
    const scaled = withFields({ ...created, spec: { size: 's', replicas: 3 } }, managed(base));
    const mf = recordUpdate(
      { manager: 'kubectl', operation: 'Update', subresource: 'scale' },
      base,
      scaled,
      ctx(t2),
    ) as Array<Json>;
    expect(mf.map((e) => [e.manager, e.subresource, e.fieldsV1])).to.deep.equal([
      ['a', undefined, { 'f:spec': { '.': {}, 'f:size': {} } }],
      ['kubectl', 'scale', { 'f:spec': { 'f:replicas': {} } }],
    ]);
    expect(recordUpdate({ manager: 'b', operation: 'Update' }, base, base, ctx(t2))).to.equal(managed(base));
  });

  it('an Apply after a scale: omitting replicas keeps the scaled value; setting them is a conflict naming the manager and field; force takes them', () => {
    const applied = applyConfiguration(
      { manager: 'kubectl', operation: 'Apply' },
      undefined,
      widget({ size: 's', replicas: 1 }),
      ctx(t1),
    );
    const scaledObj = { ...applied, spec: { size: 's', replicas: 5 } };
    const scaled = withFields(
      scaledObj,
      recordUpdate({ manager: 'kubectl', operation: 'Update', subresource: 'scale' }, applied, scaledObj, ctx(t2)),
    );
    expect(managed(scaled).map((e) => e.fieldsV1)).to.deep.equal([
      { 'f:spec': { 'f:size': {} } },
      { 'f:spec': { 'f:replicas': {} } },
    ]);

    const again = applyConfiguration(
      { manager: 'kubectl', operation: 'Apply' },
      scaled,
      widget({ size: 's' }),
      ctx(t2),
    );
    expect(again.spec).to.deep.equal({ size: 's', replicas: 5 });

    let err: unknown;
    try {
      applyConfiguration(
        { manager: 'kubectl', operation: 'Apply' },
        scaled,
        widget({ size: 's', replicas: 2 }),
        ctx(t2),
      );
    } catch (e) {
      err = e;
    }
    expect(err).to.be.instanceOf(StatusError);
    expect((err as StatusError).code).to.equal(409);
    expect((err as StatusError).message).to.equal(
      'Apply failed with 1 conflict: conflict with "kubectl" with subresource "scale" using test.envtest.io/v1: .spec.replicas',
    );
    expect((err as StatusError).details?.causes).to.deep.equal([
      {
        reason: 'FieldManagerConflict',
        message: 'conflict with "kubectl" with subresource "scale" using test.envtest.io/v1',
        field: '.spec.replicas',
      },
    ]);

    const forced = applyConfiguration(
      { manager: 'kubectl', operation: 'Apply', force: true },
      scaled,
      widget({ size: 's', replicas: 2 }),
      ctx(t2),
    );
    expect(forced.spec).to.deep.equal({ size: 's', replicas: 2 });
    expect(managed(forced).map((e) => [e.manager, e.operation, e.fieldsV1])).to.deep.equal([
      ['kubectl', 'Apply', { 'f:spec': { 'f:replicas': {}, 'f:size': {} } }],
    ]);
  });

  it('setting a field another manager owns to the value it has is no conflict: both own it', () => {
    const created = widget({ size: 's' });
    const base = withFields(
      created,
      recordUpdate({ manager: 'other', operation: 'Update' }, undefined, created, ctx(t1)),
    );
    const out = applyConfiguration({ manager: 'me', operation: 'Apply' }, base, widget({ size: 's' }), ctx(t2));
    expect(managed(out).map((e) => [e.manager, e.fieldsV1])).to.deep.equal([
      ['me', { 'f:spec': { 'f:size': {} } }],
      ['other', { 'f:spec': { '.': {}, 'f:size': {} } }],
    ]);
  });

  it('a field the applier stops applying is removed, unless another manager owns it', () => {
    const first = applyConfiguration(
      { manager: 'me', operation: 'Apply' },
      undefined,
      widget({ size: 's' }, { a: '1', b: '2' }),
      ctx(t1),
    );
    const second = applyConfiguration(
      { manager: 'me', operation: 'Apply' },
      first,
      widget({ size: 's' }, { a: '1' }),
      ctx(t2),
    );
    expect((second.metadata as Json).labels).to.deep.equal({ a: '1' });

    const labelled = { ...first, metadata: { ...(first.metadata as Json), labels: { a: '1', b: '3' } } };
    const shared = withFields(
      labelled,
      recordUpdate({ manager: 'other', operation: 'Update' }, first, labelled, ctx(t2)),
    );
    const third = applyConfiguration(
      { manager: 'me', operation: 'Apply' },
      shared,
      widget({ size: 's' }, { a: '1' }),
      ctx(t2),
    );
    expect((third.metadata as Json).labels).to.deep.equal({ a: '1', b: '3' });
  });

  it('an Apply that changes nothing keeps the stored entries, timestamps included', () => {
    const first = applyConfiguration({ manager: 'me', operation: 'Apply' }, undefined, widget({ size: 's' }), ctx(t1));
    const again = applyConfiguration({ manager: 'me', operation: 'Apply' }, first, widget({ size: 's' }), ctx(t2));
    expect(managed(again)).to.equal(managed(first));
  });

  it("the main resource's applier never owns status; a status applier owns only status", () => {
    const main = applyConfiguration(
      { manager: 'me', operation: 'Apply' },
      undefined,
      { ...widget({ size: 's' }), status: { ready: true } },
      ctx(t1),
    );
    expect(main.status).to.equal(undefined);
    const status = applyConfiguration(
      { manager: 'ctrl', operation: 'Apply', subresource: 'status' },
      main,
      { ...widget({ size: 'XXL' }), status: { ready: true } },
      ctx(t2),
    );
    expect(status.spec).to.deep.equal({ size: 's' });
    expect(managed(status).map((e) => [e.manager, e.subresource, e.fieldsV1])).to.deep.equal([
      ['me', undefined, { 'f:spec': { 'f:size': {} } }],
      ['ctrl', 'status', { 'f:status': { 'f:ready': {} } }],
    ]);
  });

  it('a write leaves the entries of managers whose fields it does not touch as they were stored', () => {
    const created = widget({ size: 's' });
    const base = withFields(created, recordUpdate({ manager: 'a', operation: 'Update' }, undefined, created, ctx(t1)));
    const next = withFields({ ...created, status: { ready: true } }, managed(base));
    const mf = recordUpdate(
      { manager: 'ctrl', operation: 'Update', subresource: 'status' },
      base,
      next,
      ctx(t2),
    ) as Array<Json>;
    expect(mf[0]).to.equal(managed(base)[0]);
    expect(mf[1]).to.deep.include({
      manager: 'ctrl',
      subresource: 'status',
      fieldsV1: { 'f:status': { '.': {}, 'f:ready': {} } },
    });
  });

  it('entries a client sends are checked (400 naming the entry), and [{}] clears them', () => {
    const created = widget({ size: 's' });
    const base = withFields(created, recordUpdate({ manager: 'a', operation: 'Update' }, undefined, created, ctx(t1)));
    const bad = withFields({ ...created, spec: { size: 'm' } }, [{ manager: 'x', operation: 'Patch', fieldsV1: {} }]);
    expect(() => recordUpdate({ manager: 'b', operation: 'Update' }, base, bad, ctx(t2))).to.throw(
      StatusError,
      'metadata.managedFields[0]: operation: Unsupported value: "Patch"',
    );
    const cleared = withFields({ ...created, spec: { size: 'm' } }, [{}]);
    expect(
      (recordUpdate({ manager: 'b', operation: 'Update' }, base, cleared, ctx(t2)) as Array<Json>).map(
        (e) => e.manager,
      ),
    ).to.deep.equal(['b']);
  });
});
