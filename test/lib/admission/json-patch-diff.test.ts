import { expect } from 'chai';
import { diffToJsonPatch } from '../../../lib/admission/json-patch-diff.js';
import { applyJsonPatch } from '../../../sim/apiserver/json-patch.js';

/** The patch must turn `before` into `after` when an API server applies it. */
function roundTrip(before: unknown, after: unknown) {
  const ops = diffToJsonPatch(before, after);
  expect(applyJsonPatch(structuredClone(before), ops)).to.deep.equal(after);
  return ops;
}

describe('diffToJsonPatch', () => {
  it('is empty when nothing changed', () => {
    expect(roundTrip({ a: 1, b: [1, { c: 'x' }] }, { a: 1, b: [1, { c: 'x' }] })).to.deep.equal([]);
  });

  it('adds a defaulted field with one operation and leaves what the user wrote alone', () => {
    const before = { spec: { providerSpec: { value: { ami: { id: 'ami-1' } } } } };
    const after = { spec: { providerSpec: { value: { ami: { id: 'ami-1' }, instanceType: 'm5.large' } } } };
    expect(roundTrip(before, after)).to.deep.equal([
      { op: 'add', path: '/spec/providerSpec/value/instanceType', value: 'm5.large' },
    ]);
  });

  it('escapes "/" and "~" in keys as RFC 6901 says (label keys have slashes)', () => {
    const ops = roundTrip(
      { metadata: { labels: {} } },
      { metadata: { labels: { 'machine.openshift.io/cluster-api-cluster': 'c', 'a~b': 'x' } } },
    );
    expect(ops.map((o) => o.path)).to.deep.equal([
      '/metadata/labels/machine.openshift.io~1cluster-api-cluster',
      '/metadata/labels/a~0b',
    ]);
  });

  it('replaces changed scalars, removes dropped keys, and walks arrays of equal length element by element', () => {
    const ops = roundTrip(
      { a: 1, gone: true, disks: [{ type: '' }, { type: 'pd-ssd' }] },
      { a: 2, disks: [{ type: 'pd-standard' }, { type: 'pd-ssd' }] },
    );
    expect(ops).to.deep.equal([
      { op: 'remove', path: '/gone' },
      { op: 'replace', path: '/a', value: 2 },
      { op: 'replace', path: '/disks/0/type', value: 'pd-standard' },
    ]);
  });

  it('replaces an array whose length changed as a whole, and a value whose type changed', () => {
    expect(roundTrip({ tags: ['a'], x: { y: 1 } }, { tags: ['a', 'b'], x: 'flat' })).to.deep.equal([
      { op: 'replace', path: '/tags', value: ['a', 'b'] },
      { op: 'replace', path: '/x', value: 'flat' },
    ]);
  });

  it('keeps a "__proto__" key as an ordinary member', () => {
    const after = JSON.parse('{"labels":{"__proto__":"x"}}') as unknown;
    expect(roundTrip({ labels: {} }, after)).to.deep.equal([{ op: 'add', path: '/labels/__proto__', value: 'x' }]);
  });
});
