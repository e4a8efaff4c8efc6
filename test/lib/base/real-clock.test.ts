import { expect } from 'chai';
import { RealClock } from '../../../lib/base/real-clock.js';

describe('RealClock', () => {
  it('never runs a timer before now() has reached its due time', async () => {
    const clock = new RealClock();
    const early: number[] = [];
    await Promise.all(
      Array.from(
        { length: 200 },
        (_, i) =>
          new Promise<void>((resolve) => {
            const due = clock.now() + (i % 7);
            clock.setTimeout(() => {
              if (clock.now() < due) early.push(due - clock.now());
              resolve();
            }, i % 7);
          }),
      ),
    );
    expect(early).to.deep.equal([]);
  });

  it('does not run a cancelled timer', async () => {
    const clock = new RealClock();
    let ran = false;
    clock
      .setTimeout(() => {
        ran = true;
      }, 1)
      .cancel();
    await clock.sleep(10);
    expect(ran).to.equal(false);
  });
});
