import { expect } from 'chai';
import { CapacityAvailableCondition } from '../../../lib/apis/constants.js';
import { firstRefusalOf, judgeRefusal } from '../../../lib/machine/capacity-window.js';
import { machine } from './fixtures.js';

describe('capacity retry window', () => {
  const t0 = Date.UTC(2026, 10, 22, 6, 0, 0);

  it('starts at the first refusal when none is on record', () => {
    expect(judgeRefusal(120_000, undefined, t0)).to.deep.equal({ fail: false, sinceMs: t0, windowLeftMs: 120_000 });
  });

  it('is measured from the recorded first refusal and fails once it is over', () => {
    expect(judgeRefusal(120_000, t0, t0 + 119_000)).to.deep.equal({ fail: false, sinceMs: t0, windowLeftMs: 1_000 });
    expect(judgeRefusal(120_000, t0, t0 + 120_000)).to.deep.equal({ fail: true, sinceMs: t0 });
  });

  it('0 fails at once', () => {
    expect(judgeRefusal(0, undefined, t0)).to.deep.equal({ fail: true, sinceMs: t0 });
  });

  it('a first refusal in the future (the clock went back) starts now: never a longer window', () => {
    expect(judgeRefusal(60_000, t0 + 3_600_000, t0)).to.deep.equal({ fail: false, sinceMs: t0, windowLeftMs: 60_000 });
  });

  it('reads the first refusal only from a CapacityAvailable=False InsufficientCapacity condition', () => {
    const at = '2026-11-22T06:00:00Z';
    const withCond = (status: 'True' | 'False' | 'Unknown', reason: string) =>
      machine('m1', {
        status: { conditions: [{ type: CapacityAvailableCondition, status, reason, lastTransitionTime: at }] },
      });
    expect(firstRefusalOf(withCond('False', 'InsufficientCapacity'))).to.equal(t0);
    expect(firstRefusalOf(withCond('True', 'InstanceCreated'))).to.equal(undefined);
    expect(firstRefusalOf(withCond('Unknown', 'CreateFailed'))).to.equal(undefined);
    expect(firstRefusalOf(machine('m1'))).to.equal(undefined);
  });
});
