import { expect } from 'chai';
import { FakeClock, RegionalRateLimiter } from '../../../lib/index.js';

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
