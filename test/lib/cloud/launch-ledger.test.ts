import { expect } from 'chai';
import { LaunchLedger } from '../../../lib/cloud/launch-ledger.js';
import { FakeClock } from '../../../lib/base/fake-clock.js';

describe('LaunchLedger', () => {
  const ledger = (clock: FakeClock) => new LaunchLedger({ clock, windowMs: 600_000, unknownIdWaitMs: 60_000 });

  it('guards a launched instance until the status records its id', () => {
    const clock = new FakeClock();
    const l = ledger(clock);
    l.sending('u1');
    l.launched('u1', 'i-1');
    expect(l.unconfirmed('u1')).to.equal(true);
    expect(l.instanceIdOf('u1', undefined)).to.equal('i-1');
    expect(l.instanceIdOf('u1', 'i-1')).to.equal('i-1');
    expect(l.unconfirmed('u1'), 'recorded: the status guards it now').to.equal(false);
  });

  it('waits at most unknownIdWaitMs for a launch whose reply never came, and the window for a known id', () => {
    const clock = new FakeClock();
    const l = ledger(clock);
    l.sending('lost');
    l.launched('known', 'i-2');
    clock.step(59_999);
    expect(l.unconfirmed('lost')).to.equal(true);
    clock.step(1);
    expect(l.unconfirmed('lost')).to.equal(false);
    expect(l.unconfirmed('known')).to.equal(true);
    clock.step(540_000);
    expect(l.unconfirmed('known')).to.equal(false);
  });

  it('forgets a refused launch, and keeps a recorded id that differs from its own launch', () => {
    const clock = new FakeClock();
    const l = ledger(clock);
    l.sending('u');
    l.refused('u');
    expect(l.unconfirmed('u')).to.equal(false);
    l.launched('v', 'i-mine');
    expect(l.instanceIdOf('v', 'i-other')).to.equal('i-other');
    expect(l.unconfirmed('v'), 'a different instance on record does not settle this launch').to.equal(true);
    l.forget('v');
    expect(l.unconfirmed('v')).to.equal(false);
  });
});
