import { expect } from 'chai';
import { FakeClock } from '../../../lib/base/fake-clock.js';
import { TokenBucket } from '../../../lib/base/token-bucket.js';

describe('TokenBucket', () => {
  it('starts full: burst reservations are free, then each waits 1/qps more', () => {
    const clock = new FakeClock();
    const b = new TokenBucket(10, 3, clock);
    expect([b.reserve(), b.reserve(), b.reserve()]).to.deep.equal([0, 0, 0]);
    expect(b.reserve()).to.be.closeTo(100, 1e-9);
    expect(b.reserve()).to.be.closeTo(200, 1e-9);
  });

  it('refills at qps up to burst', () => {
    const clock = new FakeClock();
    const b = new TokenBucket(10, 2, clock);
    b.reserve();
    b.reserve();
    clock.step(100);
    expect(b.reserve()).to.equal(0);
    expect(b.reserve()).to.be.closeTo(100, 1e-9);
    clock.step(60_000);
    expect(b.available()).to.equal(2);
  });

  it('wait() resolves after the reserved delay on the clock and an abort returns the token', async () => {
    const clock = new FakeClock();
    const b = new TokenBucket(1, 1, clock);
    await b.wait();
    let done = false;
    const p = b.wait().then(() => (done = true));
    await new Promise((r) => setImmediate(r));
    expect(done).to.equal(false);
    clock.step(1000);
    await p;
    expect(done).to.equal(true);

    const ac = new AbortController();
    const aborted = b.wait(ac.signal);
    const before = b.available();
    ac.abort(new Error('stop'));
    await aborted.then(
      () => expect.fail('should reject'),
      (e: Error) => expect(e.message).to.equal('stop'),
    );
    expect(b.available()).to.equal(before + 1);
  });

  it('lets waiters go first come first served, at the rate of the moment: a rate lowered while they wait holds them back', async () => {
    const clock = new FakeClock();
    const b = new TokenBucket(10, 1, clock);
    await b.wait();
    const order: number[] = [];
    const waiting = [0, 1, 2].map((i) => b.wait().then(() => order.push(i)));
    expect(b.available()).to.be.closeTo(-3, 1e-9);
    clock.step(100);
    await new Promise((r) => setImmediate(r));
    expect(order).to.deep.equal([0]);
    b.setQps(1);
    clock.step(100);
    await new Promise((r) => setImmediate(r));
    expect(order, 'at 10/s the next would have gone by now').to.deep.equal([0]);
    clock.step(900);
    await new Promise((r) => setImmediate(r));
    expect(order).to.deep.equal([0, 1]);
    clock.step(1000);
    await Promise.all(waiting);
    expect(order).to.deep.equal([0, 1, 2]);
  });

  it('empty() drops the saved-up tokens and refills from nothing', () => {
    const clock = new FakeClock();
    const b = new TokenBucket(10, 100, clock);
    b.empty();
    expect(b.available()).to.equal(0);
    clock.step(200);
    expect(b.available()).to.be.closeTo(2, 1e-9);
  });
});
