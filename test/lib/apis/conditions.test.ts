import { expect } from 'chai';
import {
  conditionTime,
  falseCondition,
  getCondition,
  hasSameState,
  isConditionFalse,
  isConditionTrue,
  isConditionUnknown,
  isEquivalentTo,
  markFalse,
  markTrue,
  removeCondition,
  setCondition,
  trueCondition,
  trueConditionWithReason,
  unknownCondition,
} from '../../../lib/apis/conditions.js';
import type { Condition, Machine, MachineHealthCheck, MachineSet } from '../../../lib/apis/machine-types.js';

const T0 = Date.parse('2026-11-22T05:01:02.789Z');
const T1 = Date.parse('2026-11-22T06:00:00.001Z');

const machine = (conditions?: Condition[]): Machine => ({
  metadata: { name: 'm' },
  status: conditions ? { conditions } : undefined,
});

describe('conditionTime', () => {
  it('formats UTC RFC 3339 truncated to whole seconds, from ms or a Date', () => {
    expect(conditionTime(T0)).to.equal('2026-11-22T05:01:02Z');
    expect(conditionTime(new Date(T0))).to.equal('2026-11-22T05:01:02Z');
    expect(conditionTime(Date.parse('2026-11-22T05:01:02.999Z'))).to.equal('2026-11-22T05:01:02Z');
  });

  it('rejects an invalid instant', () => {
    expect(() => conditionTime(Number.NaN)).to.throw(RangeError);
  });
});

describe('condition constructors', () => {
  it('trueCondition has only type and status', () => {
    expect(trueCondition('Drained')).to.deep.equal({ type: 'Drained', status: 'True' });
  });

  it('trueConditionWithReason has a reason and message but no severity', () => {
    expect(trueConditionWithReason('InstanceExists', 'Found', 'instance i-1 exists')).to.deep.equal({
      type: 'InstanceExists',
      status: 'True',
      reason: 'Found',
      message: 'instance i-1 exists',
    });
  });

  it('falseCondition carries a severity; unknownCondition does not', () => {
    expect(
      falseCondition('Drainable', 'HookPresent', 'Warning', 'Drain operation currently blocked by: [x]'),
    ).to.deep.equal({
      type: 'Drainable',
      status: 'False',
      reason: 'HookPresent',
      severity: 'Warning',
      message: 'Drain operation currently blocked by: [x]',
    });
    expect(unknownCondition('InstanceExists', 'ErrorCheckingProvider', 'boom')).to.deep.equal({
      type: 'InstanceExists',
      status: 'Unknown',
      reason: 'ErrorCheckingProvider',
      message: 'boom',
    });
  });

  it('omits empty reason, message and severity as the omitempty JSON fields do', () => {
    expect(falseCondition('X', '', '', '')).to.deep.equal({ type: 'X', status: 'False' });
    expect(unknownCondition('X', 'R')).to.deep.equal({ type: 'X', status: 'Unknown', reason: 'R' });
  });
});

describe('hasSameState / isEquivalentTo', () => {
  const a: Condition = {
    type: 'A',
    status: 'False',
    reason: 'r',
    severity: 'Error',
    message: 'm',
    lastTransitionTime: 'x',
  };

  it('ignore lastTransitionTime and treat missing strings as empty', () => {
    expect(hasSameState(a, { ...a, lastTransitionTime: 'y' })).to.equal(true);
    expect(
      hasSameState({ type: 'A', status: 'True' }, { type: 'A', status: 'True', reason: '', message: '', severity: '' }),
    ).to.equal(true);
  });

  it('differ on type, status, reason, severity or message', () => {
    for (const change of [
      { type: 'B' },
      { status: 'True' as const },
      { reason: 'q' },
      { severity: 'Warning' as const },
      { message: 'n' },
    ]) {
      expect(hasSameState(a, { ...a, ...change }), JSON.stringify(change)).to.equal(false);
    }
  });

  it('isEquivalentTo: both missing → true, one missing → false', () => {
    expect(isEquivalentTo(undefined, undefined)).to.equal(true);
    expect(isEquivalentTo(null, undefined)).to.equal(true);
    expect(isEquivalentTo(a, undefined)).to.equal(false);
    expect(isEquivalentTo(undefined, a)).to.equal(false);
    expect(isEquivalentTo(a, { ...a, lastTransitionTime: 'z' })).to.equal(true);
  });
});

describe('setCondition on an object', () => {
  it('creates status and appends a new condition stamped with now', () => {
    const m = machine();
    const stored = setCondition(m, trueCondition('Drained'), T0);
    expect(stored).to.deep.equal({ type: 'Drained', status: 'True', lastTransitionTime: '2026-11-22T05:01:02Z' });
    expect(m.status?.conditions).to.deep.equal([stored]);
  });

  it('keeps a time the new condition already carries, without modifying the argument', () => {
    const m = machine([]);
    const incoming: Condition = { type: 'A', status: 'True', lastTransitionTime: '2020-01-01T00:00:00Z' };
    setCondition(m, incoming, T0);
    expect(getCondition(m, 'A')?.lastTransitionTime).to.equal('2020-01-01T00:00:00Z');
    const bare = trueCondition('B');
    setCondition(m, bare, T0);
    expect(bare).to.deep.equal({ type: 'B', status: 'True' });
  });

  it('leaves the stored condition untouched (same object, same time) when the state is the same', () => {
    const existing: Condition = { type: 'A', status: 'True', lastTransitionTime: '2026-01-01T00:00:00Z' };
    const m = machine([existing]);
    const stored = setCondition(m, { type: 'A', status: 'True', lastTransitionTime: '2030-01-01T00:00:00Z' }, T1);
    expect(stored).to.equal(existing);
    expect(m.status!.conditions![0]).to.equal(existing);
    expect(existing.lastTransitionTime).to.equal('2026-01-01T00:00:00Z');
  });

  it('replaces the condition and stamps now (ignoring a carried time) when the state changes', () => {
    const m = machine([{ type: 'A', status: 'True', lastTransitionTime: '2026-01-01T00:00:00Z' }]);
    setCondition(m, falseCondition('A', 'R', 'Error', 'msg'), T0);
    expect(m.status!.conditions).to.deep.equal([
      {
        type: 'A',
        status: 'False',
        reason: 'R',
        severity: 'Error',
        message: 'msg',
        lastTransitionTime: '2026-11-22T05:01:02Z',
      },
    ]);
    setCondition(m, { ...falseCondition('A', 'R', 'Error', 'other'), lastTransitionTime: '1999-01-01T00:00:00Z' }, T1);
    expect(getCondition(m, 'A')).to.include({ message: 'other', lastTransitionTime: '2026-11-22T06:00:00Z' });
  });

  it('a message-only change is a state change', () => {
    const m = machine();
    setCondition(m, unknownCondition('A', 'R', 'one'), T0);
    setCondition(m, unknownCondition('A', 'R', 'two'), T1);
    expect(getCondition(m, 'A')?.lastTransitionTime).to.equal('2026-11-22T06:00:00Z');
  });

  it('sorts the list by type ascending after every set', () => {
    const m = machine([
      { type: 'b', status: 'True' },
      { type: 'a', status: 'True' },
    ]);
    setCondition(m, { type: 'b', status: 'True' }, T0); // same state: still sorted afterwards
    expect(m.status!.conditions!.map((c) => c.type)).to.deep.equal(['a', 'b']);
    setCondition(m, trueCondition('InstanceExists'), T0);
    setCondition(m, trueCondition('Drained'), T0);
    setCondition(m, trueCondition('MachineCreated'), T0);
    expect(m.status!.conditions!.map((c) => c.type)).to.deep.equal([
      'Drained',
      'InstanceExists',
      'MachineCreated',
      'a',
      'b',
    ]);
  });

  it('works on MachineSet and MachineHealthCheck', () => {
    const ms: MachineSet = { metadata: { name: 'ms' }, spec: { selector: {} } };
    const mhc: MachineHealthCheck = {
      metadata: { name: 'mhc' },
      spec: { selector: {} },
      status: { expectedMachines: 3 },
    };
    markTrue(ms, 'Paused', T0);
    markFalse(mhc, 'RemediationAllowed', 'TooManyUnhealthy', 'Warning', 'nope', T0);
    expect(isConditionTrue(ms, 'Paused')).to.equal(true);
    expect(isConditionFalse(mhc, 'RemediationAllowed')).to.equal(true);
    expect(mhc.status?.expectedMachines).to.equal(3);
  });
});

describe('setCondition on a list', () => {
  it('returns a new sorted list and leaves the input untouched', () => {
    const list: Condition[] = [{ type: 'z', status: 'True', lastTransitionTime: '2026-01-01T00:00:00Z' }];
    const out = setCondition(list, trueCondition('a'), T0);
    expect(out.map((c) => c.type)).to.deep.equal(['a', 'z']);
    expect(list).to.have.length(1);
    expect(setCondition(undefined, trueCondition('a'), T0)).to.deep.equal([
      { type: 'a', status: 'True', lastTransitionTime: '2026-11-22T05:01:02Z' },
    ]);
  });
});

describe('condition getters', () => {
  const m = machine([
    { type: 'T', status: 'True' },
    { type: 'F', status: 'False' },
    { type: 'U', status: 'Unknown' },
  ]);

  it('read from an object or a list; a missing condition is neither true nor false', () => {
    expect(isConditionTrue(m, 'T')).to.equal(true);
    expect(isConditionFalse(m, 'F')).to.equal(true);
    expect(isConditionUnknown(m, 'U')).to.equal(true);
    expect(isConditionTrue(m.status!.conditions, 'T')).to.equal(true);
    expect(isConditionTrue(m, 'missing')).to.equal(false);
    expect(isConditionFalse(m, 'missing')).to.equal(false);
    expect(getCondition(undefined, 'T')).to.equal(undefined);
    expect(getCondition(machine(), 'T')).to.equal(undefined);
  });

  it('removeCondition deletes by type and reports whether it existed', () => {
    const copy = machine([...m.status!.conditions!]);
    expect(removeCondition(copy, 'F')).to.equal(true);
    expect(removeCondition(copy, 'F')).to.equal(false);
    expect(copy.status!.conditions!.map((c) => c.type)).to.deep.equal(['T', 'U']);
    expect(removeCondition(machine(), 'F')).to.equal(false);
  });
});
