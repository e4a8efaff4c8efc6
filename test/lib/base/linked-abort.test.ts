import { expect } from 'chai';
import { FakeClock } from '../../../lib/base/fake-clock.js';
import { linkedAbort } from '../../../lib/base/linked-abort.js';
import { signalFollowers } from './support/signal-followers.js';

describe('linkedAbort', () => {
  it("aborts with the parent's reason while it follows it, and with its own when aborted itself", () => {
    const parent = new AbortController();
    const a = linkedAbort(parent.signal);
    const b = linkedAbort(parent.signal);
    b.abort(new Error('timed out'));
    expect(String(b.signal.reason)).to.match(/timed out/);
    parent.abort(new Error('stopping'));
    expect(a.signal.aborted).to.equal(true);
    expect(String(a.signal.reason)).to.match(/stopping/);
    expect(String(b.signal.reason)).to.match(/timed out/);
  });

  it('starts aborted under a parent already aborted, and works alone without a parent', () => {
    const parent = new AbortController();
    parent.abort('gone');
    expect(linkedAbort(parent.signal).signal.reason).to.equal('gone');
    const alone = linkedAbort(undefined);
    expect(alone.signal.aborted).to.equal(false);
    alone.abort('mine');
    expect(alone.signal.reason).to.equal('mine');
  });

  it('leaves nothing on a long-lived parent once released or aborted (10,000 links)', () => {
    const parent = new AbortController();
    for (let i = 0; i < 10_000; i++) {
      const l = linkedAbort(parent.signal);
      if (i % 2 === 0) l.release();
      else l.abort(new Error('done'));
      l.release();
    }
    expect(signalFollowers(parent.signal)).to.deep.equal({ listeners: 0, anyDependants: 0 });
  });

  it('no longer follows the parent once released', () => {
    const parent = new AbortController();
    const l = linkedAbort(parent.signal);
    l.release();
    parent.abort('late');
    expect(l.signal.aborted).to.equal(false);
  });

  it("aborts at its deadline with the deadline's reason, and a release cancels the deadline", () => {
    const clock = new FakeClock();
    const timedOut = linkedAbort(undefined, { clock, ms: 1_000, reason: () => new Error('timed out') });
    const released = linkedAbort(undefined, { clock, ms: 1_000, reason: () => new Error('timed out') });
    released.release();
    clock.step(999);
    expect(timedOut.signal.aborted).to.equal(false);
    clock.step(1);
    expect(String(timedOut.signal.reason)).to.match(/timed out/);
    expect(released.signal.aborted).to.equal(false);
  });
});
