import { expect } from 'chai';
import { FakeClock, LeaseLostWriteRefusedError, LeaseWriteFence, RegionalRateLimiter } from '../../../lib/index.js';

const flush = () => new Promise((r) => setImmediate(r));

describe('RegionalRateLimiter', () => {
  it('lets a burst through, then paces callers at the configured rate', async () => {
    const clock = new FakeClock();
    const limiter = new RegionalRateLimiter({ describe: { qps: 10, burst: 2 }, mutate: { qps: 1, burst: 1 } }, clock);
    let done = 0;
    const all = [1, 2, 3, 4].map(() => limiter.acquire('us-east-1', 'describe').then(() => done++));
    await flush();
    expect(done).to.equal(2);
    clock.step(100);
    await flush();
    expect(done).to.equal(3);
    clock.step(100);
    await Promise.all(all);
    expect(done).to.equal(4);
  });

  it('lets a mutating call waiting for its token leave only while the leader fence is open (a paused leader resumes fenced)', async () => {
    const clock = new FakeClock();
    const fence = new LeaseWriteFence(clock);
    fence.holdUntil(clock.now() + 10_000);
    const limiter = new RegionalRateLimiter(
      { describe: { qps: 1, burst: 1 }, mutate: { qps: 1, burst: 1 } },
      clock,
      fence,
    );
    await limiter.acquire('us-east-1', 'mutate');
    // The second launch waits for a token; the process is paused past the fence before it gets one.
    const waiting = limiter.acquire('us-east-1', 'mutate').then(
      () => 'sent',
      (err: unknown) => err,
    );
    clock.step(15_000);
    expect(await waiting).to.be.instanceOf(LeaseLostWriteRefusedError);
    // Reads are not fenced: a replica that is not the leader may still look.
    await limiter.acquire('us-east-1', 'describe');
  });

  it('keeps separate buckets per region and per action class', async () => {
    const clock = new FakeClock();
    const limiter = new RegionalRateLimiter({ describe: { qps: 1, burst: 1 }, mutate: { qps: 1, burst: 1 } }, clock);
    await limiter.acquire('us-east-1', 'describe');
    await limiter.acquire('us-east-1', 'mutate');
    await limiter.acquire('eu-west-1', 'describe');
    expect(limiter.available('us-east-1', 'describe')).to.be.below(1);
    expect(limiter.available('ap-south-1', 'describe')).to.equal(1);
  });

  it('tells when a token is free without taking it', async () => {
    const clock = new FakeClock();
    const limiter = new RegionalRateLimiter({ describe: { qps: 10, burst: 1 }, mutate: { qps: 1, burst: 1 } }, clock);
    await limiter.whenAvailable('us-east-1', 'describe');
    expect(limiter.available('us-east-1', 'describe')).to.equal(1, 'waiting took nothing');
    await limiter.acquire('us-east-1', 'describe');
    let free = false;
    const waiting = limiter.whenAvailable('us-east-1', 'describe').then(() => (free = true));
    await flush();
    expect(free).to.equal(false);
    clock.step(100);
    await waiting;
    expect(limiter.available('us-east-1', 'describe')).to.equal(1);
  });
});
