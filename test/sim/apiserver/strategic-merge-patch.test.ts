import { expect } from 'chai';
import fc from 'fast-check';
import { applyStrategicMergePatch } from '../../../sim/apiserver/strategic-merge-patch.js';
import { applyMergePatch } from '../../../sim/apiserver/patch.js';
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

describe('applyStrategicMergePatch', () => {
  const node = {
    metadata: {
      name: 'n',
      labels: { a: '1' },
      finalizers: ['x'],
      ownerReferences: [{ uid: 'u1', name: 'm1', kind: 'Machine', apiVersion: 'v' }],
    },
    spec: { taints: [{ key: 'k1', effect: 'NoSchedule' }], podCIDRs: ['10.0.0.0/24'] },
    status: {
      conditions: [
        { type: 'Ready', status: 'True', reason: 'KubeletReady' },
        { type: 'MemoryPressure', status: 'False' },
      ],
      addresses: [{ type: 'InternalIP', address: '10.0.0.1' }],
    },
  };

  it('merges Node status.conditions by type, keeping the others', () => {
    const out = applyStrategicMergePatch(
      node,
      { status: { conditions: [{ type: 'Ready', status: 'False' }] } },
      'Node',
    ) as typeof node;
    expect(out.status.conditions).to.deep.equal([
      { type: 'Ready', status: 'False', reason: 'KubeletReady' },
      { type: 'MemoryPressure', status: 'False' },
    ]);
  });

  it('appends a condition whose type is new', () => {
    const out = applyStrategicMergePatch(
      node,
      { status: { conditions: [{ type: 'DiskPressure', status: 'False' }] } },
      'Node',
    ) as typeof node;
    expect(out.status.conditions.map((c) => c.type)).to.deep.equal(['Ready', 'MemoryPressure', 'DiskPressure']);
  });

  it('merges Node status.addresses by type', () => {
    const out = applyStrategicMergePatch(
      node,
      { status: { addresses: [{ type: 'ExternalIP', address: '1.2.3.4' }] } },
      'Node',
    ) as typeof node;
    expect(out.status.addresses).to.deep.equal([
      { type: 'InternalIP', address: '10.0.0.1' },
      { type: 'ExternalIP', address: '1.2.3.4' },
    ]);
  });

  it('replaces Node spec.taints, which has no patch strategy in Kubernetes', () => {
    const out = applyStrategicMergePatch(
      node,
      { spec: { taints: [{ key: 'k2', effect: 'NoExecute' }] } },
      'Node',
    ) as typeof node;
    expect(out.spec.taints).to.deep.equal([{ key: 'k2', effect: 'NoExecute' }]);
  });

  it('merges Node spec.podCIDRs as a set', () => {
    const out = applyStrategicMergePatch(
      node,
      { spec: { podCIDRs: ['10.0.0.0/24', 'fd00::/64'] } },
      'Node',
    ) as typeof node;
    expect(out.spec.podCIDRs).to.deep.equal(['10.0.0.0/24', 'fd00::/64']);
  });

  it('merges metadata.finalizers as a set and labels as a map', () => {
    const out = applyStrategicMergePatch(
      node,
      { metadata: { finalizers: ['y', 'x'], labels: { b: '2', a: null } } },
      'Node',
    ) as typeof node;
    expect(out.metadata.finalizers).to.deep.equal(['x', 'y']);
    expect(out.metadata.labels).to.deep.equal({ b: '2' });
  });

  it('removes values with $deleteFromPrimitiveList', () => {
    const out = applyStrategicMergePatch(
      node,
      { metadata: { '$deleteFromPrimitiveList/finalizers': ['x'] } },
      'Node',
    ) as typeof node;
    expect(out.metadata.finalizers).to.deep.equal([]);
    expect(out.metadata).to.not.have.property('$deleteFromPrimitiveList/finalizers');
  });

  it('merges ownerReferences by uid and deletes one with $patch: delete', () => {
    const add = applyStrategicMergePatch(
      node,
      { metadata: { ownerReferences: [{ uid: 'u2', name: 'm2', kind: 'Machine', apiVersion: 'v' }] } },
      'Pod',
    ) as typeof node;
    expect(add.metadata.ownerReferences.map((o) => o.uid)).to.deep.equal(['u1', 'u2']);
    const del = applyStrategicMergePatch(
      add,
      { metadata: { ownerReferences: [{ uid: 'u1', $patch: 'delete' }] } },
      'Pod',
    ) as typeof node;
    expect(del.metadata.ownerReferences.map((o) => o.uid)).to.deep.equal(['u2']);
  });

  it('replaces a whole merged list with a {$patch: replace} element', () => {
    const out = applyStrategicMergePatch(
      node,
      { status: { conditions: [{ $patch: 'replace' }, { type: 'Ready', status: 'Unknown' }] } },
      'Node',
    ) as typeof node;
    expect(out.status.conditions).to.deep.equal([{ type: 'Ready', status: 'Unknown' }]);
  });

  it('replaces a map with $patch: replace and deletes one with $patch: delete', () => {
    const replaced = applyStrategicMergePatch(
      node,
      { metadata: { labels: { z: '9', $patch: 'replace' } } },
      'Node',
    ) as typeof node;
    expect(replaced.metadata.labels).to.deep.equal({ z: '9' });
    const deleted = applyStrategicMergePatch(node, { spec: { $patch: 'delete' } }, 'Node') as Record<string, unknown>;
    expect(deleted).to.not.have.property('spec');
  });

  it('keeps only the $retainKeys fields of a map', () => {
    const pod = { spec: { volumes: [{ name: 'v', emptyDir: {}, hostPath: { path: '/x' } }] } };
    const out = applyStrategicMergePatch(
      pod,
      { spec: { volumes: [{ name: 'v', $retainKeys: ['name', 'emptyDir'], emptyDir: { medium: 'Memory' } }] } },
      'Pod',
    );
    expect(out).to.deep.equal({ spec: { volumes: [{ name: 'v', emptyDir: { medium: 'Memory' } }] } });
  });

  it('merges pod containers by name and their env by name', () => {
    const pod = {
      spec: {
        containers: [
          { name: 'a', image: 'i1', env: [{ name: 'X', value: '1' }] },
          { name: 'b', image: 'i2' },
        ],
      },
    };
    const out = applyStrategicMergePatch(
      pod,
      { spec: { containers: [{ name: 'a', env: [{ name: 'Y', value: '2' }] }] } },
      'Pod',
    );
    expect(out).to.deep.equal({
      spec: {
        containers: [
          {
            name: 'a',
            image: 'i1',
            env: [
              { name: 'X', value: '1' },
              { name: 'Y', value: '2' },
            ],
          },
          { name: 'b', image: 'i2' },
        ],
      },
    });
  });

  it('replaces pod tolerations, which have no patch strategy', () => {
    const pod = { spec: { tolerations: [{ key: 'a', operator: 'Exists' }] } };
    const out = applyStrategicMergePatch(pod, { spec: { tolerations: [{ key: 'b', operator: 'Exists' }] } }, 'Pod');
    expect(out).to.deep.equal({ spec: { tolerations: [{ key: 'b', operator: 'Exists' }] } });
  });

  it('orders a merged list by $setElementOrder, as kubectl edit sends it, and leaves no directive behind', () => {
    const out = applyStrategicMergePatch(
      node,
      {
        status: {
          '$setElementOrder/conditions': [{ type: 'MemoryPressure' }, { type: 'Ready' }],
          conditions: [{ type: 'Ready', status: 'False' }],
        },
      },
      'Node',
    ) as typeof node;
    expect(out.status.conditions).to.deep.equal([
      { type: 'MemoryPressure', status: 'False' },
      { type: 'Ready', status: 'False', reason: 'KubeletReady' },
    ]);
    expect(JSON.stringify(out)).to.not.include('$setElementOrder');
  });

  it('orders a merged primitive list by $setElementOrder, keeping unlisted values after', () => {
    const out = applyStrategicMergePatch(
      { metadata: { finalizers: ['a', 'b', 'c'] } },
      { metadata: { '$setElementOrder/finalizers': ['c', 'a'] } },
      'Pod',
    );
    expect(out).to.deep.equal({ metadata: { finalizers: ['c', 'a', 'b'] } });
  });

  it('treats the lists of other kinds as atomic, like a merge patch', () => {
    const out = applyStrategicMergePatch(
      { data: { a: 'x' }, items: [1, 2] },
      { data: { b: 'y' }, items: [3] },
      'Secret',
    );
    expect(out).to.deep.equal({ data: { a: 'x', b: 'y' }, items: [3] });
  });

  it('strips directives from elements it appends', () => {
    const out = applyStrategicMergePatch(
      {},
      { status: { conditions: [{ type: 'Ready', status: 'True', $patch: 'merge' }] } },
      'Node',
    );
    expect(out).to.deep.equal({ status: { conditions: [{ type: 'Ready', status: 'True' }] } });
  });

  const failures: Array<{ name: string; patch: unknown; code: number }> = [
    { name: 'a patch that is not an object', patch: [1], code: 400 },
    { name: 'an unknown $patch directive', patch: { spec: { $patch: 'explode' } }, code: 400 },
    { name: 'an element without its merge key', patch: { status: { conditions: [{ status: 'True' }] } }, code: 422 },
    { name: 'a scalar element in an object list', patch: { status: { conditions: ['Ready'] } }, code: 400 },
    {
      name: 'a $deleteFromPrimitiveList that is not a list',
      patch: { metadata: { '$deleteFromPrimitiveList/finalizers': 'x' } },
      code: 400,
    },
    { name: 'a field outside $retainKeys', patch: { spec: { $retainKeys: ['a'], b: 1 } }, code: 422 },
    {
      name: 'a $setElementOrder that is not a list',
      patch: { status: { '$setElementOrder/conditions': 'Ready' } },
      code: 400,
    },
  ];
  for (const f of failures) {
    it(`refuses ${f.name} with ${f.code}`, () => {
      expect(patchError(() => applyStrategicMergePatch(node, f.patch, 'Node')).code).to.equal(f.code);
    });
  }

  it('does not modify the target or the patch', () => {
    const target = structuredClone(node);
    const patch = { status: { conditions: [{ type: 'Ready', status: 'False' }] }, metadata: { finalizers: ['z'] } };
    const patchCopy = structuredClone(patch);
    applyStrategicMergePatch(target, patch, 'Node');
    expect(target).to.deep.equal(node);
    expect(patch).to.deep.equal(patchCopy);
  });

  it('behaves as a JSON merge patch when no list is involved', () => {
    const scalarMap = fc.dictionary(
      fc.constantFrom('a', 'b', 'c'),
      fc.oneof(fc.integer(), fc.string({ maxLength: 2 }), fc.constant(null)),
      { maxKeys: 3 },
    );
    const doc = fc.dictionary(fc.constantFrom('spec', 'data', 'x'), scalarMap, { maxKeys: 3 });
    fc.assert(
      fc.property(doc, doc, (target, patch) => {
        expect(applyStrategicMergePatch(target, patch, 'ConfigMap')).to.deep.equal(applyMergePatch(target, patch));
      }),
      { numRuns: 200 },
    );
  });
});
