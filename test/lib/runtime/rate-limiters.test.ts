import { expect } from 'chai';
import { FakeClock } from '../../../lib/base/fake-clock.js';
import {
  BucketRateLimiter,
  defaultControllerRateLimiter,
  ItemExponentialFailureRateLimiter,
  MaxOfRateLimiter,
} from '../../../lib/runtime/rate-limiters.js';
import { RateLimitingQueue } from '../../../lib/runtime/rate-limiting-queue.js';

describe('ItemExponentialFailureRateLimiter', () => {
  it('doubles the delay per failure from the base and caps it at the maximum', () => {
    const l = new ItemExponentialFailureRateLimiter<string>(5, 1_000_000);
    const seq = Array.from({ length: 20 }, () => l.when('a'));
    expect(seq.slice(0, 5)).to.deep.equal([5, 10, 20, 40, 80]);
    expect(seq[17]).to.equal(5 * 2 ** 17);
    expect(seq[18]).to.equal(1_000_000);
    expect(seq[19]).to.equal(1_000_000);
    expect(l.numRequeues('a')).to.equal(20);
  });

  it('stays at the cap even after enough failures to overflow a float', () => {
    const l = new ItemExponentialFailureRateLimiter<string>(5, 1000);
    for (let i = 0; i < 2000; i++) l.when('a');
    expect(l.when('a')).to.equal(1000);
  });

  it('keeps failures per item and resets them on forget', () => {
    const l = new ItemExponentialFailureRateLimiter<string>(1, 100);
    l.when('a');
    l.when('a');
    expect(l.when('b')).to.equal(1);
    expect(l.numRequeues('a')).to.equal(2);
    l.forget('a');
    expect(l.numRequeues('a')).to.equal(0);
    expect(l.when('a')).to.equal(1);
  });

  it('rejects a base delay that is not positive', () => {
    expect(() => new ItemExponentialFailureRateLimiter(0, 10)).to.throw(/baseDelayMs/);
  });
});

describe('defaultControllerRateLimiter', () => {
  it('gives the max of per-item backoff and the 10 qps / burst 100 bucket', () => {
    const clock = new FakeClock();
    const l = defaultControllerRateLimiter<string>(clock);
    for (let i = 0; i < 100; i++) expect(l.when(`k${i}`)).to.equal(5);
    expect(l.when('k100')).to.be.closeTo(100, 1e-9);
    expect(l.when('k101')).to.be.closeTo(200, 1e-9);
    // A key with a long per-item backoff keeps it even when the bucket is generous.
    clock.step(3_600_000);
    const seq = Array.from({ length: 12 }, () => l.when('hot'));
    expect(seq[11]).to.equal(5 * 2 ** 11);
  });

  it('forget resets the per-item part and numRequeues reports the max', () => {
    const clock = new FakeClock();
    const l = new MaxOfRateLimiter(
      new ItemExponentialFailureRateLimiter<string>(5, 1000),
      new BucketRateLimiter<string>(10, 100, clock),
    );
    l.when('a');
    l.when('a');
    expect(l.numRequeues('a')).to.equal(2);
    l.forget('a');
    expect(l.numRequeues('a')).to.equal(0);
    expect(l.when('a')).to.equal(5);
  });
});

describe('RateLimitingQueue', () => {
  it('re-adds a failing key after 5 ms, 10 ms, 20 ms …, and forget restarts at 5 ms', async () => {
    const clock = new FakeClock();
    const q = new RateLimitingQueue<string>(clock, defaultControllerRateLimiter(clock));
    const delays: number[] = [];
    for (let i = 0; i < 4; i++) {
      q.addRateLimited('a');
      const start = clock.now();
      while (q.len() === 0) clock.step(1);
      delays.push(clock.now() - start);
      const r = await q.get();
      q.done(r.item!);
    }
    expect(delays).to.deep.equal([5, 10, 20, 40]);
    expect(q.numRequeues('a')).to.equal(4);
    q.forget('a');
    q.addRateLimited('a');
    clock.step(4);
    expect(q.len()).to.equal(0);
    clock.step(1);
    expect(q.len()).to.equal(1);
  });
});
