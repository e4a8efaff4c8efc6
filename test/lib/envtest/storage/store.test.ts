import { expect } from 'chai';
import { Store } from '../../../../lib/envtest/storage/store.js';
import type { KubeObject } from '../../../../lib/apis/meta.js';

const obj = (ns: string, name: string, uid: string, owners: string[] = []): KubeObject => ({
  metadata: { namespace: ns, name, uid, ownerReferences: owners.map((o) => ({ apiVersion: 'v1', kind: 'X', name: o, uid: o })) },
});

describe('envtest Store', () => {
  it('gives every write the next global resourceVersion and lists in (namespace, name) order', () => {
    const s = new Store(10);
    s.put('g/a', obj('b', 'z', '1'));
    s.put('g/b', obj('a', 'y', '2'));
    s.put('g/a', obj('a', 'x', '3'));
    expect(s.currentRv()).to.equal(3);
    expect(s.list('g/a').map((o) => `${o.metadata.namespace}/${o.metadata.name}`)).to.deep.equal(['a/x', 'b/z']);
    expect(s.list('g/a', 'b').map((o) => o.metadata.resourceVersion)).to.deep.equal(['1']);
    expect(s.get('g/b', 'a', 'y')?.metadata.resourceVersion).to.equal('2');
  });

  it('replays a type’s events after a resourceVersion and reports older ones as gone once dropped', () => {
    const s = new Store(3);
    for (let i = 0; i < 5; i++) s.put('g/a', obj('n', `o${i}`, `u${i}`));
    expect(s.eventsSince('g/a', 2)?.map((e) => e.rv)).to.deep.equal([3, 4, 5]);
    expect(s.eventsSince('g/a', 1)).to.equal(undefined);
    expect(s.eventsSince('g/a', 5)).to.deep.equal([]);
    expect(s.oldestResumable('g/a')).to.equal(2);
  });

  it('keeps a type with no events resumable from any resourceVersion since the last compaction', () => {
    const s = new Store(3);
    s.put('g/a', obj('n', 'a', 'ua'));
    s.put('g/a', obj('n', 'b', 'ub'));
    expect(s.eventsSince('g/quiet', 0)).to.deep.equal([]);
    s.compactHistory();
    expect(s.eventsSince('g/quiet', 1)).to.equal(undefined);
    expect(s.eventsSince('g/quiet', 2)).to.deep.equal([]);
  });

  it('indexes uids and owners, and forgets them on removal', () => {
    const s = new Store(10);
    s.put('g/a', obj('n', 'owner', 'o1'));
    s.put('g/a', obj('n', 'dep', 'd1', ['o1']));
    expect(s.dependentsOf('o1')).to.deep.equal(['d1']);
    expect(s.lookupUid('d1')).to.deep.equal({ typeKey: 'g/a', namespace: 'n', name: 'dep' });
    const ev = s.remove('g/a', obj('n', 'dep', 'd1', ['o1']));
    expect(ev?.type).to.equal('DELETED');
    expect(ev?.object.metadata.resourceVersion).to.equal('3');
    expect(s.dependentsOf('o1')).to.deep.equal([]);
    expect(s.lookupUid('d1')).to.equal(undefined);
  });
});
