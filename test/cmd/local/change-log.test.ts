import { expect } from 'chai';
import { changeLines, stampedChangeLines } from '../../../cmd/local/change-log.js';
import type { ClusterSnapshot, EventRow, MachineRow } from '../../../cmd/local/cluster-snapshot.js';

const ns = 'openshift-machine-api';
const m = (name: string, o: Partial<MachineRow> = {}): MachineRow => ({
  namespace: ns,
  name,
  phase: '',
  node: '',
  providerID: '',
  createdMs: 0,
  deleting: false,
  ...o,
});
const e = (timeMs: number, reason: string, o: Partial<EventRow> = {}): EventRow => ({
  timeMs,
  type: 'Normal',
  object: 'Machine/a',
  reason,
  message: `${reason} a`,
  count: 1,
  ...o,
});
const snap = (o: Partial<ClusterSnapshot>): ClusterSnapshot => ({ machineSets: [], machines: [], events: [], ...o });

describe('the change log of machine-api-local without a terminal', () => {
  it('describes everything on the first snapshot, oldest event first', () => {
    const lines = changeLines(
      undefined,
      snap({
        machineSets: [{ namespace: ns, name: 'w', desired: 3, current: 0, ready: 0 }],
        machines: [m('a')],
        events: [e(2, 'Second'), e(1, 'First')],
      }),
    );
    expect(lines).to.deep.equal([
      'machineset openshift-machine-api/w: desired 3, current 0, ready 0',
      'machine openshift-machine-api/a: (no phase)',
      'event Normal First Machine/a: First a',
      'event Normal Second Machine/a: Second a',
    ]);
  });

  it('prints one line per changed object and nothing for unchanged ones', () => {
    const before = snap({
      machineSets: [{ namespace: ns, name: 'w', desired: 3, current: 3, ready: 0 }],
      machines: [m('a', { phase: 'Provisioning' }), m('b', { phase: 'Running' })],
    });
    const after = snap({
      machineSets: [{ namespace: ns, name: 'w', desired: 3, current: 3, ready: 1 }],
      machines: [
        m('a', { phase: 'Provisioned', providerID: 'aws:///us-east-1a/i-1', node: 'ip-1' }),
        m('b', { phase: 'Running' }),
      ],
    });
    expect(changeLines(before, after)).to.deep.equal([
      'machineset openshift-machine-api/w: desired 3, current 3, ready 1',
      'machine openshift-machine-api/a: Provisioning -> Provisioned, providerID aws:///us-east-1a/i-1, node ip-1',
    ]);
    expect(changeLines(after, after)).to.deep.equal([]);
  });

  it("prints a MachineSet's rollout state when its UpToDate condition changes", () => {
    const rolling = snap({
      machineSets: [{ namespace: ns, name: 'w', desired: 3, current: 4, ready: 3, upToDate: 'RollingUpdate' }],
    });
    const done = snap({
      machineSets: [{ namespace: ns, name: 'w', desired: 3, current: 4, ready: 3, upToDate: 'yes' }],
    });
    expect(changeLines(rolling, done)).to.deep.equal([
      'machineset openshift-machine-api/w: desired 3, current 4, ready 3, up to date yes',
    ]);
  });

  it('reports deletions: a deletion timestamp, a node gone, and objects that disappeared', () => {
    const before = snap({
      machineSets: [{ namespace: ns, name: 'w', desired: 1, current: 1, ready: 1 }],
      machines: [m('a', { phase: 'Running', node: 'ip-1' }), m('b')],
    });
    const after = snap({ machines: [m('a', { phase: 'Deleting', deleting: true })] });
    expect(changeLines(before, after)).to.deep.equal([
      'machineset openshift-machine-api/w: deleted',
      'machine openshift-machine-api/a: Running -> Deleting, deleting, node ip-1 gone',
      'machine openshift-machine-api/b: deleted',
    ]);
  });

  it('prints only new events, and an aggregated event again when its count grows', () => {
    const before = snap({ events: [e(5, 'Update', { count: 1 }), e(3, 'Create')] });
    const after = snap({ events: [e(6, 'Update', { count: 2 }), e(5, 'Update', { count: 1 }), e(3, 'Create')] });
    expect(changeLines(before, after)).to.deep.equal(['event Normal Update Machine/a: Update a (x2)']);
  });

  it('stamps events with their own time (replayed ones from an earlier run too) and other changes with the time seen', () => {
    const now = Date.parse('2026-11-26T09:30:00Z');
    const lines = stampedChangeLines(
      undefined,
      snap({
        machines: [m('a', { phase: 'Running' })],
        events: [e(Date.parse('2026-11-26T08:15:42Z'), 'Updated'), e(Date.parse('2026-11-25T23:59:01Z'), 'Created')],
      }),
      now,
    );
    expect(lines).to.deep.equal([
      '09:30:00 machine openshift-machine-api/a: Running',
      '2026-11-25 23:59:01 event Normal Created Machine/a: Created a',
      '08:15:42 event Normal Updated Machine/a: Updated a',
    ]);
  });
});
