import { expect } from 'chai';
import { clone, createMergePatch, deepEqual } from '../../../lib/machine/merge-patch.js';
import { mergePatch } from './memory-kube.js';

describe('createMergePatch', () => {
  it('sends only changed keys, nulls for removed ones, and whole arrays', () => {
    const base = { a: 1, b: { c: 'x', d: 'y' }, list: [1, 2], gone: 'z' };
    const next = { a: 1, b: { c: 'x', d: 'w', e: true }, list: [1, 2, 3] };
    expect(createMergePatch(base, next)).to.deep.equal({ b: { d: 'w', e: true }, list: [1, 2, 3], gone: null });
  });

  it('gives undefined when nothing changed (undefined-valued keys count as absent)', () => {
    expect(createMergePatch({ a: { b: [1] } }, { a: { b: [1] }, c: undefined })).to.equal(undefined);
  });

  it('round-trips: applying the patch to the base gives the modified object', () => {
    const base = { metadata: { labels: { a: 'b', c: 'd' } }, status: { conditions: [{ type: 'X' }], phase: 'P' } };
    const next = {
      metadata: { labels: { a: 'B' } },
      status: { conditions: [{ type: 'X' }, { type: 'Y' }], phase: 'Q', addresses: [] },
    };
    expect(deepEqual(mergePatch(base, createMergePatch(base, next)), next)).to.equal(true);
  });
});

describe('deepEqual and clone on values the API server stores', () => {
  /** A providerSpec value nested 10,000 levels deep, parsed from JSON text as the API server hands it over. */
  const deep = (leaf: string) =>
    JSON.parse(`${'{"a":['.repeat(5_000)}${JSON.stringify(leaf)}${']}'.repeat(5_000)}`) as unknown;

  it('compare and copy values nested 10,000 levels deep (recursion and structuredClone overflow the stack)', () => {
    const m = { spec: { providerSpec: { value: deep('x') } } };
    const copy = clone(m);
    expect(copy).not.to.equal(m);
    expect(deepEqual(copy, m)).to.equal(true);
    expect(deepEqual(copy, { spec: { providerSpec: { value: deep('y') } } })).to.equal(false);
  });

  it('clone copies every level, keeps undefined members, Dates and "__proto__" keys as own entries', () => {
    const at = new Date(0);
    const v = JSON.parse('{"a":{"b":[1,{"c":null}]},"__proto__":{"polluted":true}}') as Record<string, unknown>;
    Object.assign(v, { u: undefined, at });
    const c = clone(v);
    expect((c.a as { b: unknown[] }).b).to.deep.equal([1, { c: null }]);
    expect((c.a as { b: unknown[] }).b).not.to.equal((v.a as { b: unknown[] }).b);
    expect(Object.keys(c)).to.deep.equal(['a', '__proto__', 'u', 'at']);
    expect(Object.getPrototypeOf(c)).to.equal(Object.prototype);
    expect(c.at).to.be.instanceOf(Date).and.not.equal(at);
    expect((c.at as Date).getTime()).to.equal(0);
  });

  it('deepEqual tells arrays from objects and counts undefined members as absent', () => {
    expect(deepEqual({ a: [1] }, { a: { 0: 1 } })).to.equal(false);
    expect(deepEqual({ a: 1, b: undefined }, { a: 1 })).to.equal(true);
    expect(deepEqual([1, [2, [3]]], [1, [2, [3]]])).to.equal(true);
    expect(deepEqual([1, [2, [3]]], [1, [2, [4]]])).to.equal(false);
  });
});
