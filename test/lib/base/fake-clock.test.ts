import { expect } from 'chai';
import { FakeClock } from '../../../lib/base/fake-clock.js';

describe('FakeClock', () => {
  it('fires due timers in due-time order as time steps, including timers scheduled by timers', () => {
    const clock = new FakeClock(0);
    const fired: string[] = [];
    clock.setTimeout(() => fired.push('b@20'), 20);
    clock.setTimeout(() => {
      fired.push('a@10');
      clock.setTimeout(() => fired.push('c@15'), 5);
    }, 10);
    const cancelled = clock.setTimeout(() => fired.push('never'), 5);
    cancelled.cancel();
    clock.step(19);
    expect(fired).to.deep.equal(['a@10', 'c@15']);
    expect(clock.now()).to.equal(19);
    clock.step(1);
    expect(fired).to.deep.equal(['a@10', 'c@15', 'b@20']);
  });

  it('resolves sleep() through its timers and rejects it on abort', async () => {
    const clock = new FakeClock(0);
    let woke = false;
    const p = clock.sleep(100).then(() => (woke = true));
    clock.step(99);
    await Promise.resolve();
    expect(woke).to.equal(false);
    clock.step(1);
    await p;
    expect(woke).to.equal(true);
    const ac = new AbortController();
    const s = clock.sleep(100, ac.signal);
    ac.abort(new Error('stop'));
    await s.then(
      () => expect.fail('should reject'),
      (e: Error) => expect(e.message).to.equal('stop'),
    );
    expect(clock.pendingTimers()).to.equal(0);
  });
});
