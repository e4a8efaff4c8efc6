// applyMergePatch lives in sim/apiserver/patch.ts; test/sim/apiserver/patch.test.ts holds the control plane's
// end-to-end PATCH tests, so the pure function is tested here.
import { expect } from 'chai';
import fc from 'fast-check';
import { applyMergePatch } from '../../../sim/apiserver/patch.js';

/** The RFC 7386 merge patch that turns `from` into `to`. */
function mergeDiff(from: unknown, to: unknown): unknown {
  const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
  if (!isObj(from) || !isObj(to)) return to;
  const patch: Record<string, unknown> = {};
  for (const k of Object.keys(from)) if (!(k in to)) patch[k] = null;
  for (const [k, v] of Object.entries(to)) {
    if (!(k in from)) patch[k] = v;
    else if (JSON.stringify(from[k]) !== JSON.stringify(v)) patch[k] = mergeDiff(from[k], v);
  }
  return patch;
}

describe('applyMergePatch (RFC 7386)', () => {
  // The examples of RFC 7386, appendix A.
  const rfcCases: Array<[unknown, unknown, unknown]> = [
    [{ a: 'b' }, { a: 'c' }, { a: 'c' }],
    [{ a: 'b' }, { b: 'c' }, { a: 'b', b: 'c' }],
    [{ a: 'b' }, { a: null }, {}],
    [{ a: 'b', b: 'c' }, { a: null }, { b: 'c' }],
    [{ a: ['b'] }, { a: 'c' }, { a: 'c' }],
    [{ a: 'c' }, { a: ['b'] }, { a: ['b'] }],
    [{ a: { b: 'c' } }, { a: { b: 'd', c: null } }, { a: { b: 'd' } }],
    [{ a: [{ b: 'c' }] }, { a: [1] }, { a: [1] }],
    [
      ['a', 'b'],
      ['c', 'd'],
      ['c', 'd'],
    ],
    [{ a: 'b' }, ['c'], ['c']],
    [{ a: 'foo' }, null, null],
    [{ a: 'foo' }, 'bar', 'bar'],
    [{ e: null }, { a: 1 }, { e: null, a: 1 }],
    [[1, 2], { a: 'b', c: null }, { a: 'b' }],
    [{}, { a: { bb: { ccc: null } } }, { a: { bb: {} } }],
  ];
  rfcCases.forEach(([target, patch, want], i) => {
    it(`matches RFC 7386 example ${i + 1}`, () => {
      expect(applyMergePatch(target, patch)).to.deep.equal(want);
    });
  });

  it('modifies neither the target nor the patch, and shares no structure with them', () => {
    const target = { a: { b: [1] }, c: 1 };
    const patch = { a: { d: { e: 1 } } };
    const out = applyMergePatch(target, patch) as { a: { b: number[]; d: { e: number } } };
    out.a.b.push(2);
    out.a.d.e = 2;
    expect(target).to.deep.equal({ a: { b: [1] }, c: 1 });
    expect(patch).to.deep.equal({ a: { d: { e: 1 } } });
  });

  it('sets a "__proto__" key as data, never as a prototype', () => {
    const out = applyMergePatch({}, JSON.parse('{"__proto__": {"polluted": true}}')) as Record<string, unknown>;
    expect(Object.hasOwn(out, '__proto__')).to.equal(true);
    expect(({} as Record<string, unknown>).polluted).to.equal(undefined);
    expect((out as { polluted?: boolean }).polluted).to.equal(undefined);
  });

  it('reproduces the target from the merge diff of any two objects', () => {
    // Merge patches cannot express a null value, so generated documents carry none.
    const value = fc.letrec((tie) => ({
      v: fc.oneof(
        { depthSize: 'small' },
        fc.integer(),
        fc.string({ maxLength: 3 }),
        fc.boolean(),
        fc.array(tie('v'), { maxLength: 2 }),
        tie('o'),
      ),
      o: fc.dictionary(fc.constantFrom('a', 'b', 'c', 'd'), tie('v'), { maxKeys: 4 }),
    }));
    fc.assert(
      fc.property(value.o, value.o, (from, to) => {
        expect(applyMergePatch(from, mergeDiff(from, to))).to.deep.equal(to);
      }),
      { numRuns: 300 },
    );
  });
});
