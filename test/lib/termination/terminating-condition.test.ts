import { expect } from 'chai';
import type { NodeCondition } from '../../../lib/apis/core.js';
import {
  TerminatingConditionType,
  TerminationRequestedMessage,
  TerminationRequestedReason,
  withTerminatingCondition,
} from '../../../lib/termination/index.js';

const now = '2026-11-26T09:00:00Z';
const ready: NodeCondition = {
  type: 'Ready',
  status: 'True',
  reason: 'KubeletReady',
  lastTransitionTime: '2026-11-26T08:00:00Z',
};

describe('the Terminating node condition', () => {
  it("uses the reference handlers' type, reason and message", () => {
    expect(TerminatingConditionType).to.equal('Terminating');
    expect(TerminationRequestedReason).to.equal('TerminationRequested');
    expect(TerminationRequestedMessage).to.equal('The cloud provider has marked this instance for termination');
  });

  it("is appended as True after the node's other conditions, stamped with now", () => {
    expect(withTerminatingCondition([ready], now)).to.deep.equal([
      ready,
      {
        type: 'Terminating',
        status: 'True',
        reason: 'TerminationRequested',
        message: TerminationRequestedMessage,
        lastHeartbeatTime: now,
        lastTransitionTime: now,
      },
    ]);
    expect(withTerminatingCondition(undefined, now)).to.have.length(1);
  });

  it('is not written again when the node already says Terminating=True (set once)', () => {
    const marked = withTerminatingCondition([ready], '2026-11-26T08:30:00Z');
    expect(withTerminatingCondition(marked, now)).to.equal(undefined);
  });

  it('replaces a Terminating condition of another status in place, keeping every other condition', () => {
    const stale: NodeCondition = { type: 'Terminating', status: 'False', reason: 'Whatever' };
    const disk: NodeCondition = { type: 'DiskPressure', status: 'False' };
    const out = withTerminatingCondition([ready, stale, disk], now);
    expect(out?.map((c) => `${c.type}=${c.status}`)).to.deep.equal([
      'Ready=True',
      'Terminating=True',
      'DiskPressure=False',
    ]);
    expect(out?.[1]?.reason).to.equal('TerminationRequested');
  });
});
