import { expect } from 'chai';
import { Store } from '../../../../sim/apiserver/storage/store.js';
import type { KubeObject } from '../../../../lib/apis/meta.js';

const obj = (ns: string, name: string, uid: string, owners: string[] = []): KubeObject => ({
  metadata: {
    namespace: ns,
    name,
    uid,
    ownerReferences: owners.map((o) => ({ apiVersion: 'v1', kind: 'X', name: o, uid: o })),
  },
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

  it('bounds watch history in bytes across all types, evicting the oldest event of any type first', () => {
    const big = (ns: string, name: string): KubeObject => ({
      metadata: { namespace: ns, name, uid: name, annotations: { pad: 'x'.repeat(900) } },
    });
    const s = new Store(1000, 0, 5_000);
    s.put('g/quiet', big('n', 'q0'));
    for (let i = 0; i < 3; i++) s.put('g/busy', big('n', `b${i}`));
    expect(s.eventsSince('g/quiet', 0)?.length).to.equal(1);
    for (let i = 3; i < 8; i++) s.put('g/busy', big('n', `b${i}`));
    expect(s.historySize()).to.be.at.most(5_000).and.greaterThan(3_000);
    // The quiet type's only event was the oldest of all: resuming it from before that is 410 now.
    expect(s.eventsSince('g/quiet', 0)).to.equal(undefined);
    expect(s.oldestResumable('g/quiet')).to.equal(1);
    expect(s.eventsSince('g/quiet', 1)).to.deep.equal([]);
    const busy = s.eventsSince('g/busy', s.oldestResumable('g/busy'));
    // Each event is just under 1,000 bytes: the five newest fit in 5,000.
    expect(busy?.map((e) => e.rv)).to.deep.equal([5, 6, 7, 8, 9]);
    expect(s.eventsSince('g/busy', 2)).to.equal(undefined);
  });

  it('charges a replacing event for the object it replaced too, since it keeps that object alive', () => {
    const s = new Store(1000);
    const first = s.put('g/a', obj('n', 'x', 'u'));
    const second = s.put('g/a', obj('n', 'x', 'u'));
    expect(first.size).to.equal(Buffer.byteLength(JSON.stringify(first.object)));
    expect(second.size).to.equal(first.size + Buffer.byteLength(JSON.stringify(second.object)));
    expect(s.historySize()).to.equal(first.size + second.size);
  });
});
