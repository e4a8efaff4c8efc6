// At most 10 Update managers per object: past that, the oldest fold into "ancient-changes".
import { expect } from 'chai';
import { recordUpdate, type FieldContext } from '../../../../sim/apiserver/field-management/index.js';
import { rootSchema } from '../../../../sim/apiserver/field-management/shape.js';
import { capUpdateManagers } from '../../../../sim/apiserver/field-management/update-manager-cap.js';

type Json = Record<string, unknown>;
type Entry = {
  manager: string;
  operation: string;
  apiVersion: string;
  time?: string;
  fieldsV1: Json;
  subresource?: string;
};

const ctx = (second: number, apiVersion = 'v1'): FieldContext => ({
  schema: rootSchema({
    type: 'object',
    properties: { data: { type: 'object', additionalProperties: { type: 'string' } } },
  }),
  apiVersion,
  now: `2026-01-01T00:00:${String(second).padStart(2, '0')}Z`,
  statusSubresource: false,
});

/** Writes data.k<i> as manager m<i>, one after the other, and returns the object. */
function writtenBy(n: number, apiVersionOf: (i: number) => string = () => 'v1'): Json {
  let obj: Json = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' }, data: {} };
  for (let i = 0; i < n; i++) {
    const next: Json = { ...obj, data: { ...(obj.data as Json), [`k${i}`]: 'v' } };
    const mf = recordUpdate({ manager: `m${i}`, operation: 'Update' }, obj, next, ctx(i, apiVersionOf(i)));
    obj = { ...next, metadata: { ...(next.metadata as Json), managedFields: mf } };
  }
  return obj;
}

const entries = (obj: Json) => (obj.metadata as { managedFields: Entry[] }).managedFields;

describe('field manager: the cap of 10 Update managers', () => {
  it('keeps 10 managers as they are', () => {
    expect(entries(writtenBy(10)).map((e) => e.manager)).to.deep.equal([
      'm0',
      'm1',
      'm2',
      'm3',
      'm4',
      'm5',
      'm6',
      'm7',
      'm8',
      'm9',
    ]);
  });

  it('folds the oldest into "ancient-changes" past 10: it owns their fields and has the newest folded time', () => {
    const mf = entries(writtenBy(12));
    expect(mf).to.have.length(10);
    const ancient = mf.find((e) => e.manager === 'ancient-changes');
    expect(ancient).to.deep.include({ operation: 'Update', apiVersion: 'v1', time: '2026-01-01T00:00:02Z' });
    expect(ancient!.fieldsV1).to.deep.equal({ 'f:data': { 'f:k0': {}, 'f:k1': {}, 'f:k2': {} } });
    expect(mf.map((e) => e.manager).filter((m) => m !== 'ancient-changes')).to.deep.equal([
      'm3',
      'm4',
      'm5',
      'm6',
      'm7',
      'm8',
      'm9',
      'm10',
      'm11',
    ]);
  });

  it('keeps folding into the same entry as more managers come', () => {
    const mf = entries(writtenBy(15));
    expect(mf).to.have.length(10);
    expect(mf.filter((e) => e.manager === 'ancient-changes')).to.have.length(1);
    expect(Object.keys(mf.find((e) => e.manager === 'ancient-changes')!.fieldsV1['f:data'] as Json)).to.have.length(6);
  });

  it('folds per apiVersion, and never counts or folds Apply entries', () => {
    const apply: Entry = {
      manager: 'applier',
      operation: 'Apply',
      apiVersion: 'v1',
      time: '2026-01-01T00:00:00Z',
      fieldsV1: { 'f:data': { 'f:a': {} } },
    };
    const updates: Entry[] = Array.from({ length: 12 }, (_, i) => ({
      manager: `m${i}`,
      operation: 'Update',
      apiVersion: i % 2 === 0 ? 'v1' : 'v2',
      time: `2026-01-01T00:00:${String(10 + i)}Z`,
      fieldsV1: { 'f:data': { [`f:k${i}`]: {} } },
    }));
    const out = capUpdateManagers([apply, ...updates]) as unknown as Entry[];
    expect(out.filter((e) => e.operation === 'Update')).to.have.length(10);
    expect(out.find((e) => e.operation === 'Apply')).to.deep.include({ manager: 'applier' });
    const buckets = out
      .filter((e) => e.manager === 'ancient-changes')
      .map((e) => [e.apiVersion, Object.keys(e.fieldsV1['f:data'] as Json)]);
    expect(buckets).to.deep.equal([
      ['v1', ['f:k0', 'f:k2']],
      ['v2', ['f:k1', 'f:k3']],
    ]);
  });
});
