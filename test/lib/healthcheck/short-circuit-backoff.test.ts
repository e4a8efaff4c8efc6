import { expect } from 'chai';
import { shortCircuitDelayMs, ShortCircuitEpisodes } from '../../../lib/healthcheck/short-circuit-backoff.js';

const o = { baseMs: 30_000, maxMs: 5 * 60_000 };

describe('MachineHealthCheck short-circuit backoff', () => {
  it('waits as long as the short-circuit has lasted, at least the base and at most the maximum', () => {
    expect(shortCircuitDelayMs(0, o)).to.equal(30_000);
    expect(shortCircuitDelayMs(29_000, o)).to.equal(30_000);
    expect(shortCircuitDelayMs(60_000, o)).to.equal(60_000);
    expect(shortCircuitDelayMs(240_000, o)).to.equal(240_000);
    expect(shortCircuitDelayMs(3_600_000, o)).to.equal(300_000);
  });

  it('does not grow with the number of passes in a burst of events', () => {
    const episodes = new ShortCircuitEpisodes(o);
    const t0 = Date.UTC(2026, 0, 1);
    const burst = Array.from({ length: 20 }, (_, i) => episodes.delayMs('ns/mhc', t0 + i * 5));
    expect(new Set(burst)).to.deep.equal(new Set([30_000]));
  });

  it('grows with time over an episode: rechecking after each delay doubles it up to the maximum', () => {
    const episodes = new ShortCircuitEpisodes(o);
    let now = Date.UTC(2026, 0, 1);
    const delays: number[] = [];
    for (let i = 0; i < 7; i++) {
      const d = episodes.delayMs('ns/mhc', now);
      delays.push(d);
      now += d;
    }
    expect(delays).to.deep.equal([30_000, 30_000, 60_000, 120_000, 240_000, 300_000, 300_000]);
  });

  it('starts over once remediation was allowed again, and keeps MHCs apart', () => {
    const episodes = new ShortCircuitEpisodes(o);
    const t0 = Date.UTC(2026, 0, 1);
    episodes.delayMs('ns/a', t0);
    episodes.delayMs('ns/b', t0);
    expect(episodes.delayMs('ns/a', t0 + 200_000)).to.equal(200_000);
    episodes.end('ns/a');
    expect(episodes.delayMs('ns/a', t0 + 400_000)).to.equal(30_000);
    expect(episodes.delayMs('ns/b', t0 + 400_000)).to.equal(300_000);
  });
});
