import { expect } from 'chai';
import { MachineSetExpectations } from '../../../lib/machineset/expectations.js';
import { FakeClock } from '../../../lib/base/fake-clock.js';

describe('MachineSet expectations', () => {
  it('are satisfied for a key nothing was expected of', () => {
    const e = new MachineSetExpectations(new FakeClock());
    expect(e.satisfied('ns/a')).to.equal(true);
    expect(e.expiresInMs('ns/a')).to.equal(undefined);
  });

  it('stay unsatisfied until every expected creation is observed', () => {
    const e = new MachineSetExpectations(new FakeClock());
    e.expectCreations('ns/a', 2);
    expect(e.satisfied('ns/a')).to.equal(false);
    e.creationObserved('ns/a');
    expect(e.satisfied('ns/a')).to.equal(false);
    e.creationObserved('ns/a');
    expect(e.satisfied('ns/a')).to.equal(true);
    e.creationObserved('ns/a');
    expect(e.pending('ns/a')).to.deep.equal({ adds: 0, deletes: 0 });
  });

  it('track deletions by UID so an unrelated deletion does not count', () => {
    const e = new MachineSetExpectations(new FakeClock());
    e.expectDeletions('ns/a', ['u1', 'u2']);
    e.deletionObserved('ns/a', 'other');
    expect(e.pending('ns/a')).to.deep.equal({ adds: 0, deletes: 2 });
    e.deletionObserved('ns/a', 'u1');
    e.deletionObserved('ns/a', 'u1');
    expect(e.satisfied('ns/a')).to.equal(false);
    e.deletionObserved('ns/a', 'u2');
    expect(e.satisfied('ns/a')).to.equal(true);
  });

  it("are settled by a full list sent after the round's writes returned, never by one sent while they were in flight", () => {
    const clock = new FakeClock();
    const e = new MachineSetExpectations(clock);
    e.expectCreations('ns/a', 1);
    const sentDuringWrites = clock.now();
    clock.step(10);
    e.writesDone('ns/a');
    expect(e.relisted(sentDuringWrites)).to.deep.equal([]);
    expect(e.satisfied('ns/a'), 'a list sent before the create returned may not show it').to.equal(false);
    clock.step(10);
    // Created and deleted while no watch was open: the informer never sees an add, but the list settles it.
    expect(e.relisted(clock.now())).to.deep.equal(['ns/a']);
    expect(e.satisfied('ns/a')).to.equal(true);
    e.expectCreations('ns/b', 1);
    expect(e.relisted(clock.now()), 'writes still in flight').to.deep.equal([]);
  });

  it('expire after their TTL so a lost watch event cannot block a MachineSet for ever', () => {
    const clock = new FakeClock();
    const e = new MachineSetExpectations(clock, 1000);
    e.expectCreations('ns/a', 1);
    expect(e.expiresInMs('ns/a')).to.equal(1001);
    clock.step(1000);
    expect(e.satisfied('ns/a')).to.equal(false);
    clock.step(1);
    expect(e.satisfied('ns/a')).to.equal(true);
    // A new round starts from zero rather than adding to the stale count.
    e.expectCreations('ns/a', 1);
    e.creationObserved('ns/a');
    expect(e.satisfied('ns/a')).to.equal(true);
  });

  it('keep keys apart and forget a deleted MachineSet', () => {
    const e = new MachineSetExpectations(new FakeClock());
    e.expectCreations('ns/a', 1);
    expect(e.satisfied('ns/b')).to.equal(true);
    e.delete('ns/a');
    expect(e.satisfied('ns/a')).to.equal(true);
  });
});
