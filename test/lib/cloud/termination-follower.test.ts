import { expect } from 'chai';
import { TerminationFollower } from '../../../lib/cloud/termination-follower.js';
import { FakeClock } from '../../../lib/base/fake-clock.js';

describe('TerminationFollower', () => {
  it('waits about 1 s at first, then half of how long the wait has lasted, capped at 10 s', () => {
    const clock = new FakeClock();
    const f = new TerminationFollower(clock);
    const waits: number[] = [];
    for (let i = 0; i < 14; i++) {
      const ms = f.next('m');
      waits.push(ms);
      clock.step(ms);
    }
    expect(waits).to.deep.equal([
      1_000, 1_000, 1_000, 1_500, 2_250, 3_375, 5_063, 7_594, 10_000, 10_000, 10_000, 10_000, 10_000, 10_000,
    ]);
  });

  it('notices the end of a termination of T within max(1 s, T/2) of it', () => {
    for (const t of [500, 1_000, 2_500, 6_000, 15_000]) {
      const clock = new FakeClock();
      const f = new TerminationFollower(clock);
      const start = clock.now();
      while (clock.now() - start < t) clock.step(f.next('m'));
      expect(clock.now() - start - t, `T = ${t} ms`).to.be.at.most(Math.max(1_000, t / 2));
    }
  });

  it('starts afresh after done, and follows keys independently', () => {
    const clock = new FakeClock();
    const f = new TerminationFollower(clock);
    f.next('a');
    clock.step(20_000);
    expect(f.next('a')).to.equal(10_000);
    expect(f.next('b')).to.equal(1_000);
    f.done('a');
    expect(f.next('a')).to.equal(1_000);
  });

  it('rejects a policy that cannot work, naming the field', () => {
    const clock = new FakeClock();
    expect(() => new TerminationFollower(clock, { firstMs: 0 })).to.throw(RangeError, /firstMs/);
    expect(() => new TerminationFollower(clock, { growth: -1 })).to.throw(RangeError, /growth/);
    expect(() => new TerminationFollower(clock, { firstMs: 5_000, maxMs: 1_000 })).to.throw(RangeError, /maxMs/);
  });
});
