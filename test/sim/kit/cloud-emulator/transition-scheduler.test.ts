import { expect } from 'chai';
import { FakeClock } from '../../../../lib/base/fake-clock.js';
import { TransitionScheduler } from '../../../../sim/kit/index.js';

function setup(): { clock: FakeClock; scheduler: TransitionScheduler; firedAt: number[] } {
  const clock = new FakeClock();
  const firedAt: number[] = [];
  const scheduler = new TransitionScheduler(clock, () => firedAt.push(clock.now()));
  return { clock, scheduler, firedAt };
}

describe('TransitionScheduler', () => {
  it('calls advance once the clock reaches the armed time, not before', () => {
    const { clock, scheduler, firedAt } = setup();
    const start = clock.now();
    scheduler.arm('i-1', start + 100);
    clock.step(99);
    expect(firedAt).to.deep.equal([]);
    clock.step(1);
    expect(firedAt).to.deep.equal([start + 100]);
  });

  it('fires at once (on the next clock step) for a time already past', () => {
    const { clock, scheduler, firedAt } = setup();
    scheduler.arm('i-1', clock.now() - 500);
    clock.step(0);
    expect(firedAt).to.have.length(1);
  });

  it('re-arming a key replaces its earlier timer', () => {
    const { clock, scheduler, firedAt } = setup();
    const start = clock.now();
    scheduler.arm('i-1', start + 100);
    scheduler.arm('i-1', start + 300);
    expect(scheduler.armed).to.equal(1);
    clock.step(200);
    expect(firedAt).to.deep.equal([]);
    clock.step(100);
    expect(firedAt).to.deep.equal([start + 300]);
  });

  it('arming with an undefined time only cancels the key', () => {
    const { clock, scheduler, firedAt } = setup();
    scheduler.arm('i-1', clock.now() + 10);
    scheduler.arm('i-1', undefined);
    expect(scheduler.armed).to.equal(0);
    clock.step(1_000);
    expect(firedAt).to.deep.equal([]);
  });

  it('keeps separate timers per key and cancels one without touching the others', () => {
    const { clock, scheduler, firedAt } = setup();
    const start = clock.now();
    scheduler.arm('a', start + 10);
    scheduler.arm('b', start + 20);
    scheduler.cancel('a');
    clock.step(50);
    expect(firedAt).to.deep.equal([start + 20]);
  });

  it('after close() cancels every timer and ignores later arm() calls', () => {
    const { clock, scheduler, firedAt } = setup();
    scheduler.arm('a', clock.now() + 10);
    scheduler.close();
    scheduler.arm('b', clock.now() + 10);
    expect(scheduler.armed).to.equal(0);
    clock.step(100);
    expect(firedAt).to.deep.equal([]);
  });
});
