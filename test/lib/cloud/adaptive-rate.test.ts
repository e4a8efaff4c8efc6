import { expect } from 'chai';
import { AdaptiveRate, FakeClock, RegionalRateLimiter, TokenBucket } from '../../../lib/index.js';

const flush = () => new Promise((r) => setImmediate(r));

class Throttled extends Error {}

/**
 * N launches by `workers` concurrent workers through the limiter (by default capped at 20/s, burst 200) against
 * a cloud that meters them with its own token bucket (by default EC2's mutating bucket: 200, refilling 5/s). A refused
 * launch is sent again by its worker. Returns how long the N took and how many replies were refusals.
 */
async function throttledLaunches(
  n: number,
  cloudBurst = 200,
  workers = 20,
  { cap = { qps: 20, burst: 200 }, cloudQps = 5 } = {},
): Promise<{ seconds: number; refused: number }> {
  const clock = new FakeClock();
  const limiter = new RegionalRateLimiter({ describe: { qps: 20, burst: 100 }, mutate: cap }, clock);
  const cloud = new TokenBucket(cloudQps, cloudBurst, clock);
  let left = n;
  let refused = 0;
  const launch = () =>
    limiter.send(
      'us-east-1',
      'mutate',
      async () => {
        if (cloud.available() < 1) {
          refused++;
          throw new Throttled();
        }
        cloud.reserve();
      },
      { isThrottling: (err) => err instanceof Throttled },
    );
  const worker = async () => {
    while (left > 0) {
      left--;
      for (;;) {
        try {
          await launch();
          break;
        } catch {
          // refused: the worker sends it again
        }
      }
    }
  };
  const start = clock.now();
  const running = Array.from({ length: workers }, () => worker());
  let done = false;
  void Promise.all(running).then(() => (done = true));
  while (!done) {
    clock.step(10);
    await flush();
  }
  return { seconds: (clock.now() - start) / 1000, refused };
}

describe('AdaptiveRate', () => {
  it('stays at the cap while the cloud admits every call', () => {
    const clock = new FakeClock();
    const rate = new AdaptiveRate({ capQps: 20 }, clock);
    for (let i = 0; i < 100; i++) {
      clock.step(50);
      expect(rate.admitted()).to.equal(20);
    }
  });

  it('halves on a first refusal, then follows what the cloud admits (plus 5 %) while it keeps refusing', () => {
    const clock = new FakeClock();
    const rate = new AdaptiveRate({ capQps: 20 }, clock);
    expect(rate.throttled()).to.equal(10);
    // Two seconds in which the cloud admits 5 calls a second and refuses the rest.
    for (let ms = 0; ms < 2_000; ms += 100) {
      clock.step(100);
      if (ms % 200 === 0) rate.admitted();
      else rate.throttled();
    }
    expect(rate.current()).to.be.within(5, 5.5);
  });

  it('climbs back toward the cap once the cloud has not refused for a window, and starts the next episode at the rate it measured', () => {
    const clock = new FakeClock();
    const rate = new AdaptiveRate({ capQps: 20, windowMs: 5_000, growthPerSecond: 0.2 }, clock);
    rate.throttled();
    for (let ms = 0; ms < 2_000; ms += 100) {
      clock.step(100);
      if (ms % 200 === 0) rate.admitted();
      else rate.throttled();
    }
    const measured = rate.current();
    clock.step(5_000);
    expect(rate.current(), 'the episode ended: no refusal for a window').to.be.closeTo(measured, 0.01);
    clock.step(3_000);
    expect(rate.current()).to.be.closeTo(measured * 1.2 ** 3, 0.05);
    clock.step(60_000);
    expect(rate.current()).to.equal(20);
    expect(rate.throttled(), 'straight back to the measured rate, not half the cap').to.be.closeTo(measured, 0.01);
  });

  it("climbs back after a quiet second when the refusals were only the edge of a burst larger than the cloud's", () => {
    const clock = new FakeClock();
    const rate = new AdaptiveRate({ capQps: 5, windowMs: 5_000, growthPerSecond: 0.2 }, clock);
    // Our burst of 20 met a cloud bucket of 2: eight refusals at once, then none at the cut rate.
    for (let i = 0; i < 8; i++) rate.throttled();
    expect(rate.current()).to.equal(2.5);
    clock.step(1_000);
    expect(rate.current(), 'a quiet second ends the episode').to.equal(2.5);
    clock.step(2_000);
    expect(rate.current()).to.be.closeTo(2.5 * 1.2 ** 2, 0.01);
  });

  it('keeps a lone refusal at low traffic from pinning the rate to that traffic', () => {
    const clock = new FakeClock();
    const rate = new AdaptiveRate({ capQps: 20 }, clock);
    clock.step(1_000);
    rate.admitted();
    expect(rate.throttled()).to.equal(10);
    clock.step(2_000);
    rate.admitted();
    clock.step(20_000);
    expect(rate.current()).to.equal(20);
  });

  it('never goes below its floor nor above its cap', () => {
    const clock = new FakeClock();
    const rate = new AdaptiveRate({ capQps: 20, floorQps: 2 }, clock);
    for (let i = 0; i < 100; i++) {
      clock.step(100);
      rate.throttled();
    }
    expect(rate.current()).to.equal(2);
  });
});

describe('RegionalRateLimiter learning from throttling replies', () => {
  it("keeps a 1,000-launch scale-up within 10 % of the time the cloud's bucket needs, with under 5 % of replies refused", async function () {
    this.timeout(60_000);
    const floorSeconds = (1_000 - 200) / 5;
    const { seconds, refused } = await throttledLaunches(1_000);
    expect(seconds).to.be.within(floorSeconds, floorSeconds * 1.1);
    expect(refused / (1_000 + refused)).to.be.below(0.05);
  });

  it('drops the tokens it saved up when the cloud first refuses: a cloud with a smaller burst than ours is not flooded', async function () {
    this.timeout(60_000);
    const floorSeconds = (300 - 20) / 5;
    const { seconds, refused } = await throttledLaunches(300, 20);
    expect(seconds).to.be.within(floorSeconds, floorSeconds * 1.1);
    expect(refused / (300 + refused)).to.be.below(0.1);
  });

  it("keeps within 5 % of the floor when only its burst was refused (a cap at the cloud's rate, a smaller cloud bucket)", async function () {
    this.timeout(60_000);
    const floorSeconds = (300 - 2) / 5;
    const { seconds } = await throttledLaunches(300, 2, 10, { cap: { qps: 5, burst: 20 } });
    expect(seconds).to.be.within(floorSeconds, floorSeconds * 1.05);
  });

  it('pauses the whole class for the wait a throttling reply asked for', async () => {
    const clock = new FakeClock();
    const limiter = new RegionalRateLimiter(
      { describe: { qps: 100, burst: 100 }, mutate: { qps: 100, burst: 100 } },
      clock,
    );
    await limiter
      .send('r', 'mutate', () => Promise.reject(new Throttled()), { isThrottling: () => true, pauseMsOf: () => 2_000 })
      .catch(() => undefined);
    let sent = false;
    const next = limiter.acquire('r', 'mutate').then(() => (sent = true));
    clock.step(1_900);
    await flush();
    expect(sent, 'held back by the pause').to.equal(false);
    await limiter.acquire('r', 'describe');
    clock.step(200);
    await next;
    expect(sent).to.equal(true);
  });
});
