import { expect } from 'chai';
import fc from 'fast-check';
import { applyJsonPatch } from '../../../sim/apiserver/json-patch.js';
import { PatchError } from '../../../sim/apiserver/patch-error.js';

function patchError(fn: () => unknown): PatchError {
  try {
    fn();
  } catch (err) {
    expect(err).to.be.instanceOf(PatchError);
    return err as PatchError;
  }
  expect.fail('expected a PatchError');
}

describe('applyJsonPatch (RFC 6902)', () => {
  const doc = {
    metadata: { labels: { a: '1' }, annotations: { 'machine.openshift.io/instance-state': 'running' } },
    list: [1, 2, 3],
  };

  const cases: Array<{ name: string; ops: unknown[]; want: unknown }> = [
    {
      name: 'add a member',
      ops: [{ op: 'add', path: '/metadata/labels/b', value: '2' }],
      want: { ...doc, metadata: { ...doc.metadata, labels: { a: '1', b: '2' } } },
    },
    {
      name: 'add over an existing member',
      ops: [{ op: 'add', path: '/metadata/labels/a', value: 'x' }],
      want: { ...doc, metadata: { ...doc.metadata, labels: { a: 'x' } } },
    },
    {
      name: 'insert into an array',
      ops: [{ op: 'add', path: '/list/1', value: 9 }],
      want: { ...doc, list: [1, 9, 2, 3] },
    },
    { name: 'append with -', ops: [{ op: 'add', path: '/list/-', value: 4 }], want: { ...doc, list: [1, 2, 3, 4] } },
    {
      name: 'append at index == length',
      ops: [{ op: 'add', path: '/list/3', value: 4 }],
      want: { ...doc, list: [1, 2, 3, 4] },
    },
    { name: 'remove an array element', ops: [{ op: 'remove', path: '/list/0' }], want: { ...doc, list: [2, 3] } },
    {
      name: 'remove a member named with ~1 escaping',
      ops: [{ op: 'remove', path: '/metadata/annotations/machine.openshift.io~1instance-state' }],
      want: { ...doc, metadata: { ...doc.metadata, annotations: {} } },
    },
    {
      name: 'replace a value',
      ops: [{ op: 'replace', path: '/list/2', value: 'x' }],
      want: { ...doc, list: [1, 2, 'x'] },
    },
    {
      name: 'move a member',
      ops: [{ op: 'move', from: '/metadata/labels', path: '/labels' }],
      want: { metadata: { annotations: doc.metadata.annotations }, list: [1, 2, 3], labels: { a: '1' } },
    },
    {
      name: 'move within an array',
      ops: [{ op: 'move', from: '/list/0', path: '/list/2' }],
      want: { ...doc, list: [2, 3, 1] },
    },
    { name: 'copy a member', ops: [{ op: 'copy', from: '/list', path: '/copy' }], want: { ...doc, copy: [1, 2, 3] } },
    {
      name: 'pass a test, then apply the rest',
      ops: [
        { op: 'test', path: '/metadata/labels', value: { a: '1' } },
        { op: 'remove', path: '/list' },
      ],
      want: { metadata: doc.metadata },
    },
    { name: 'replace the whole document', ops: [{ op: 'replace', path: '', value: { x: 1 } }], want: { x: 1 } },
    { name: 'apply nothing for an empty patch', ops: [], want: doc },
    {
      name: 'use ~0 for a tilde',
      ops: [{ op: 'add', path: '/metadata/labels/a~0b', value: 'x' }],
      want: { ...doc, metadata: { ...doc.metadata, labels: { a: '1', 'a~b': 'x' } } },
    },
  ];
  for (const c of cases) {
    it(`can ${c.name}`, () => {
      expect(applyJsonPatch(doc, c.ops)).to.deep.equal(c.want);
    });
  }

  const failures: Array<{ name: string; ops: unknown; code: number }> = [
    { name: 'a failed test', ops: [{ op: 'test', path: '/list/0', value: 2 }], code: 422 },
    { name: 'a test of a missing path', ops: [{ op: 'test', path: '/nope', value: 2 }], code: 422 },
    { name: 'removing a missing member', ops: [{ op: 'remove', path: '/metadata/nope' }], code: 422 },
    { name: 'replacing a missing member', ops: [{ op: 'replace', path: '/nope', value: 1 }], code: 422 },
    { name: 'adding under a missing parent', ops: [{ op: 'add', path: '/a/b', value: 1 }], code: 422 },
    { name: 'an array index out of bounds', ops: [{ op: 'add', path: '/list/5', value: 1 }], code: 422 },
    { name: 'a non-numeric array index', ops: [{ op: 'replace', path: '/list/x', value: 1 }], code: 422 },
    { name: 'an array index with a leading zero', ops: [{ op: 'remove', path: '/list/01' }], code: 422 },
    {
      name: 'moving a value into its own child',
      ops: [{ op: 'move', from: '/metadata', path: '/metadata/x' }],
      code: 422,
    },
    { name: 'a patch that is not an array', ops: { op: 'add' }, code: 400 },
    { name: 'an unknown op', ops: [{ op: 'frobnicate', path: '/a' }], code: 400 },
    { name: 'a missing path', ops: [{ op: 'add', value: 1 }], code: 400 },
    { name: 'a path without a leading slash', ops: [{ op: 'add', path: 'a', value: 1 }], code: 400 },
    { name: 'an add without a value', ops: [{ op: 'add', path: '/a' }], code: 400 },
    { name: 'a copy without from', ops: [{ op: 'copy', path: '/a' }], code: 400 },
    { name: 'an operation that is not an object', ops: ['add'], code: 400 },
  ];
  for (const f of failures) {
    it(`refuses ${f.name} with ${f.code}`, () => {
      expect(patchError(() => applyJsonPatch(doc, f.ops)).code).to.equal(f.code);
    });
  }

  it('applies all operations or none: a later failure leaves the target untouched', () => {
    const target = { a: 1 };
    patchError(() =>
      applyJsonPatch(target, [
        { op: 'replace', path: '/a', value: 2 },
        { op: 'test', path: '/a', value: 1 },
      ]),
    );
    expect(target).to.deep.equal({ a: 1 });
  });

  it('either applies or throws a PatchError for any sequence of operations, never touching the target', () => {
    const pointer = fc
      .array(fc.constantFrom('a', 'b', '0', '1', '-', 'x~1y'), { maxLength: 3 })
      .map((t) => (t.length === 0 ? '' : `/${t.join('/')}`));
    const op = fc.record({
      op: fc.constantFrom('add', 'remove', 'replace', 'move', 'copy', 'test', 'bogus'),
      path: pointer,
      from: pointer,
      value: fc.jsonValue({ maxDepth: 2 }),
    });
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 3 }), fc.array(op, { maxLength: 4 }), (target, ops) => {
        const before = JSON.stringify(target);
        try {
          applyJsonPatch(target, ops);
        } catch (err) {
          expect(err).to.be.instanceOf(PatchError);
        }
        expect(JSON.stringify(target)).to.equal(before);
      }),
      { numRuns: 300 },
    );
  });

  it('adds a null value (unlike a merge patch, which deletes)', () => {
    expect(applyJsonPatch({}, [{ op: 'add', path: '/a', value: null }])).to.deep.equal({ a: null });
  });

  it('sets a "__proto__" member as data, never as a prototype', () => {
    const out = applyJsonPatch({}, [{ op: 'add', path: '/__proto__', value: { polluted: true } }]) as Record<
      string,
      unknown
    >;
    expect(Object.hasOwn(out, '__proto__')).to.equal(true);
    expect((out as { polluted?: boolean }).polluted).to.equal(undefined);
  });
});
