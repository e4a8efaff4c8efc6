import { expect } from 'chai';
import type { KubeObject } from '../../../lib/apis/meta.js';
import {
  addFinalizer,
  deepCopy,
  getControllerOf,
  hasFinalizer,
  isDeleting,
  namespacedKey,
  objectKey,
  removeFinalizer,
  splitObjectKey,
} from '../../../lib/apis/objects.js';

describe('object helpers', () => {
  it('objectKey is "namespace/name", or the bare name when cluster-scoped', () => {
    expect(objectKey({ metadata: { namespace: 'openshift-machine-api', name: 'm-1' } })).to.equal(
      'openshift-machine-api/m-1',
    );
    expect(objectKey({ metadata: { name: 'node-1' } })).to.equal('node-1');
    expect(splitObjectKey('ns/m-1')).to.deep.equal({ namespace: 'ns', name: 'm-1' });
    expect(splitObjectKey('node-1')).to.deep.equal({ namespace: '', name: 'node-1' });
  });

  it('namespacedKey gives a request, an ObjectKey and object metadata the same key as objectKey', () => {
    expect(namespacedKey({ namespace: 'ns', name: 'm-1' })).to.equal('ns/m-1');
    expect(namespacedKey({ namespace: '', name: 'node-1' })).to.equal('node-1');
    expect(namespacedKey({ name: 'node-1' })).to.equal('node-1');
    const pod = { metadata: { namespace: 'ns', name: 'p' } };
    expect(namespacedKey(pod.metadata)).to.equal(objectKey(pod));
  });

  it('getControllerOf returns the controller owner only', () => {
    const ref = (name: string, controller?: boolean) => ({
      apiVersion: 'v1',
      kind: 'K',
      name,
      uid: name,
      ...(controller === undefined ? {} : { controller }),
    });
    expect(getControllerOf({ metadata: {} })).to.equal(undefined);
    expect(getControllerOf({ metadata: { ownerReferences: [ref('a'), ref('b', false)] } })).to.equal(undefined);
    expect(getControllerOf({ metadata: { ownerReferences: [ref('a'), ref('b', true)] } })?.name).to.equal('b');
  });

  it('isDeleting follows deletionTimestamp', () => {
    expect(isDeleting({ metadata: {} })).to.equal(false);
    expect(isDeleting({ metadata: { deletionTimestamp: '2026-11-22T05:00:00Z' } })).to.equal(true);
  });

  it('addFinalizer mutates the given object once and reports whether it changed', () => {
    const obj: KubeObject = { metadata: { name: 'x' } };
    expect(hasFinalizer(obj, 'f')).to.equal(false);
    expect(addFinalizer(obj, 'f')).to.equal(true);
    expect(addFinalizer(obj, 'f')).to.equal(false);
    expect(addFinalizer(obj, 'g')).to.equal(true);
    expect(obj.metadata.finalizers).to.deep.equal(['f', 'g']);
    expect(hasFinalizer(obj, 'f')).to.equal(true);
  });

  it('removeFinalizer removes every copy and drops an emptied list', () => {
    const obj: KubeObject = { metadata: { finalizers: ['f', 'g', 'f'] } };
    expect(removeFinalizer(obj, 'x')).to.equal(false);
    expect(removeFinalizer(obj, 'f')).to.equal(true);
    expect(obj.metadata.finalizers).to.deep.equal(['g']);
    expect(removeFinalizer(obj, 'g')).to.equal(true);
    expect(obj.metadata).to.not.have.property('finalizers');
    expect(removeFinalizer({ metadata: {} }, 'g')).to.equal(false);
  });

  it('deepCopy shares nothing with the original', () => {
    const obj: KubeObject = { metadata: { labels: { a: 'b' }, finalizers: ['f'] } };
    const copy = deepCopy(obj);
    copy.metadata.labels!.a = 'c';
    addFinalizer(copy, 'g');
    expect(obj.metadata.labels!.a).to.equal('b');
    expect(obj.metadata.finalizers).to.deep.equal(['f']);
  });
});
