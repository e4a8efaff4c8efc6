import { expect } from 'chai';
import { createMergePatch, deepEqual } from '../../../lib/machine/merge-patch.js';
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
    const next = { metadata: { labels: { a: 'B' } }, status: { conditions: [{ type: 'X' }, { type: 'Y' }], phase: 'Q', addresses: [] } };
    expect(deepEqual(mergePatch(base, createMergePatch(base, next)), next)).to.equal(true);
  });
});
