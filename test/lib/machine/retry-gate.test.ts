import { expect } from 'chai';
import { RetryGate } from '../../../lib/machine/retry-gate.js';
import { FakeClock } from '../../../lib/base/fake-clock.js';

describe('RetryGate (hot-loop guard)', () => {
  it('holds a failed key back for an exponentially growing delay, capped', () => {
    const clock = new FakeClock();
    const gate = new RetryGate(clock, 1_000, 5_000);
    expect(gate.failed('k', 'g1')).to.equal(1_000);
    expect(gate.remaining('k', 'g1')).to.equal(1_000);
    clock.step(1_000);
    expect(gate.remaining('k', 'g1')).to.equal(undefined);
    expect(gate.failed('k', 'g1')).to.equal(2_000);
    expect(gate.failed('k', 'g1')).to.equal(4_000);
    expect(gate.failed('k', 'g1')).to.equal(5_000);
  });

  it('lets a key through at once when the object changed meaningfully, or after success', () => {
    const clock = new FakeClock();
    const gate = new RetryGate(clock, 1_000, 5_000);
    gate.failed('k', 'gen-1');
    expect(gate.remaining('k', 'gen-2')).to.equal(undefined);
    gate.succeeded('k');
    expect(gate.remaining('k', 'gen-1')).to.equal(undefined);
  });

  it('holds for exactly a requested requeue delay without losing the failure count', () => {
    const clock = new FakeClock();
    const gate = new RetryGate(clock, 1_000, 60_000);
    gate.failed('k', 'g');
    gate.hold('k', 'g', 20_000);
    expect(gate.remaining('k', 'g')).to.equal(20_000);
    expect(gate.failed('k', 'g')).to.equal(2_000);
  });
});
