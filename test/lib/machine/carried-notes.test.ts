// What one reconcile read reaches the next only when that one is the echo of its own write.
import { expect } from 'chai';
import { FakeClock } from '../../../lib/base/fake-clock.js';
import { CarriedNotes } from '../../../lib/machine/carried-notes.js';
import { NoteKey, ReconcileNotes } from '../../../lib/machine/reconcile-notes.js';

const SEEN = new NoteKey<string>('seen');

describe('CarriedNotes', () => {
  let clock: FakeClock;
  let carried: CarriedNotes;
  const wrote = (rv: string | undefined, value = 'instance-1') => {
    const notes = carried.begin('ns/m', '1');
    notes.set(SEEN, value);
    carried.end('ns/m', rv, notes);
  };

  beforeEach(() => {
    clock = new FakeClock();
    carried = new CarriedNotes(clock, 1_000);
  });

  it('hands the echo of a write (the version it produced, moments later) what that reconcile noted, once', () => {
    wrote('7');
    const echo = carried.begin('ns/m', '7');
    expect(echo.takeCarried(SEEN)).to.equal('instance-1');
    expect(echo.takeCarried(SEEN), 'once within the reconcile').to.equal(undefined);
    expect(carried.begin('ns/m', '7').takeCarried(SEEN), 'and once across reconciles').to.equal(undefined);
  });

  it('carries nothing to a copy someone else changed since the write', () => {
    wrote('7');
    expect(carried.begin('ns/m', '8').takeCarried(SEEN)).to.equal(undefined);
  });

  it('carries nothing once the carry time has passed', () => {
    wrote('7');
    clock.step(1_001);
    expect(carried.begin('ns/m', '7').takeCarried(SEEN)).to.equal(undefined);
  });

  it('carries nothing from a reconcile that wrote nothing, nor after the Machine is gone', () => {
    wrote(undefined);
    expect(carried.begin('ns/m', '1').takeCarried(SEEN)).to.equal(undefined);
    wrote('9');
    carried.forget('ns/m');
    expect(carried.size).to.equal(0);
    expect(carried.begin('ns/m', '9').takeCarried(SEEN)).to.equal(undefined);
  });

  it('never carries what was itself carried: a reconcile passes on only what it read itself', () => {
    wrote('7');
    const echo = carried.begin('ns/m', '7');
    echo.setHandedOn(SEEN, echo.takeCarried(SEEN) ?? '');
    expect(echo.get(SEEN), 'used by this reconcile').to.equal('instance-1');
    carried.end('ns/m', '8', echo);
    expect(carried.begin('ns/m', '8').takeCarried(SEEN)).to.equal(undefined);
  });

  it("keeps a reconcile's own notes apart from the carried ones", () => {
    const notes = new ReconcileNotes(new Map([[SEEN, 'old']]));
    expect(notes.get(SEEN)).to.equal(undefined);
    notes.set(SEEN, 'new');
    expect(notes.get(SEEN)).to.equal('new');
    expect(notes.takeCarried(SEEN)).to.equal('old');
  });
});
