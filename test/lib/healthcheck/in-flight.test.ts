// Counting a MachineHealthCheck's remediations in flight from what the cluster shows, as a pure function: a
// remediation counts from the MHC's delete until its MachineSet's replacement has a Ready Node.
import { expect } from 'chai';
import type { Node } from '../../../lib/apis/core.js';
import type { Machine, MachineSet } from '../../../lib/apis/machine-types.js';
import {
  admitRemediations,
  countInFlight,
  InvalidMaxInFlightError,
  maxInFlightOf,
  type InFlightInput,
  type InFlightTarget,
} from '../../../lib/healthcheck/in-flight.js';

const NOW = Date.UTC(2026, 10, 28, 9, 0, 0);
const iso = (ms: number) => new Date(ms).toISOString();
const MIN = 60_000;

const ms = (name: string, replicas: number): MachineSet => ({
  metadata: { name, namespace: 'ns', uid: `uid-${name}` },
  spec: { replicas, selector: {}, template: { metadata: { labels: { set: name } } } },
});

function machine(
  name: string,
  opts: { set?: string; ageMs?: number; deleting?: boolean; mark?: string; annotations?: Record<string, string> } = {},
): Machine {
  const set = opts.set ?? 'a';
  return {
    metadata: {
      name,
      namespace: 'ns',
      uid: `uid-${name}`,
      creationTimestamp: iso(NOW - (opts.ageMs ?? 60 * MIN)),
      ...(opts.deleting ? { deletionTimestamp: iso(NOW - MIN) } : {}),
      annotations: { ...(opts.mark ? { 'machine.openshift.io/remediated-by': opts.mark } : {}), ...opts.annotations },
      ownerReferences: [
        {
          apiVersion: 'machine.openshift.io/v1beta1',
          kind: 'MachineSet',
          name: set,
          uid: `uid-${set}`,
          controller: true,
        },
      ],
    },
  };
}
const node = (ready: boolean): Node => ({
  metadata: { name: 'n', uid: 'n' },
  status: { conditions: [{ type: 'Ready', status: ready ? 'True' : 'False' }] },
});
const t = (m: Machine, ready: boolean | undefined, due = false): InFlightTarget => ({
  machine: m,
  node: ready === undefined ? undefined : node(ready),
  dueForRemediation: due,
});

function input(targets: InFlightTarget[], sets: MachineSet[] = [ms('a', 3)]): InFlightInput {
  return {
    mhcName: 'mhc',
    targets,
    machines: targets.map((x) => x.machine),
    machineSets: sets,
    nodeStartupTimeoutMs: 10 * MIN,
    nowMs: NOW,
  };
}

describe('max-in-flight: the limit', () => {
  it('reads an integer or a percentage of the targets, a non-zero percentage being at least one', () => {
    expect(maxInFlightOf(undefined, 10)).to.equal(undefined);
    expect(maxInFlightOf({ 'machine.openshift.io/max-in-flight': '2' }, 10)).to.equal(2);
    expect(maxInFlightOf({ 'machine.openshift.io/max-in-flight': '20%' }, 10)).to.equal(2);
    expect(maxInFlightOf({ 'machine.openshift.io/max-in-flight': '10%' }, 5)).to.equal(1);
    expect(maxInFlightOf({ 'machine.openshift.io/max-in-flight': '0' }, 5)).to.equal(0);
    expect(maxInFlightOf({ 'machine.openshift.io/max-in-flight': '0%' }, 5)).to.equal(0);
  });

  it('refuses anything else, naming the annotation and the rule', () => {
    for (const bad of ['two', '-1', '150%', '1.5', ''])
      expect(() => maxInFlightOf({ 'machine.openshift.io/max-in-flight': bad }, 10), bad)
        .to.throw(InvalidMaxInFlightError)
        .with.property('message')
        .that.match(/^metadata\.annotations\.machine\.openshift\.io\/max-in-flight: Invalid value: /);
  });
});

describe('max-in-flight: counting remediations in flight', () => {
  it('counts one remediation once through its whole life: deleting, replaced by a booting Machine, then Ready', () => {
    const x = machine('x', { deleting: true, mark: 'mhc' });
    const a = t(machine('a1'), true);
    const b = t(machine('a2'), true);
    // Deleting, no replacement yet (one replica missing).
    expect(countInFlight(input([a, b, t(x, false)])).total).to.equal(1);
    // Deleting, the replacement boots.
    const y = t(machine('y', { ageMs: MIN }), undefined);
    expect(countInFlight(input([a, b, t(x, false), y])).total).to.equal(1);
    // Gone; the replacement has a Node, not Ready yet.
    expect(countInFlight(input([a, b, t(machine('y', { ageMs: 2 * MIN }), false)])).total).to.equal(1);
    // Ready: done.
    expect(countInFlight(input([a, b, t(machine('y', { ageMs: 3 * MIN }), true)])).total).to.equal(0);
    // Gone, and the MachineSet has not created the replacement yet (its controller is down).
    expect(countInFlight(input([a, b])).total).to.equal(1);
  });

  it('counts several remediations of one MachineSet and of two', () => {
    const sets = [ms('a', 3), ms('b', 2)];
    const targets = [
      t(machine('x1', { deleting: true, mark: 'mhc' }), false),
      t(machine('x2', { deleting: true, mark: 'mhc' }), false),
      t(machine('y1', { ageMs: MIN }), undefined),
      t(machine('a3'), true),
      t(machine('b1', { set: 'b' }), true),
      t(machine('z', { set: 'b', deleting: true, mark: 'mhc' }), false),
    ];
    const c = countInFlight(input(targets, sets));
    expect(c.byOwner).to.deep.equal({ a: 2, b: 1 });
    expect(c.total).to.equal(3);
  });

  it('does not count the unhealthy Machines waiting for remediation, nor old Machines whose Node went NotReady', () => {
    const c = countInFlight(
      input([t(machine('a1'), false, true), t(machine('a2'), false), t(machine('a3'), true)], [ms('a', 3)]),
    );
    expect(c.total).to.equal(0);
  });

  it("counts a replacement for a deletion that was not the MHC's (it is capacity not yet back)", () => {
    const c = countInFlight(
      input(
        [t(machine('x', { deleting: true }), true), t(machine('y', { ageMs: MIN }), undefined), t(machine('a2'), true)],
        [ms('a', 2)],
      ),
    );
    expect(c.total).to.equal(1);
  });

  it("holds a remediated Machine's slot until it is gone when its MachineSet was scaled down meanwhile", () => {
    const c = countInFlight(
      input([t(machine('x', { deleting: true, mark: 'mhc' }), false), t(machine('a2'), true)], [ms('a', 1)]),
    );
    expect(c.total).to.equal(1);
  });

  it("does not count another MHC's deletions", () => {
    const c = countInFlight(
      input([t(machine('x', { deleting: true, mark: 'other' }), false), t(machine('a2'), true)], [ms('a', 1)]),
    );
    expect(c.total).to.equal(0);
  });

  it('stops counting a booting Machine once its startup window is over', () => {
    const late = t(machine('y', { ageMs: 11 * MIN }), undefined);
    expect(countInFlight(input([late, t(machine('a2'), true), t(machine('a3'), true)])).total).to.equal(0);
    const off = {
      ...input([t(machine('y', { ageMs: 9 * MIN }), undefined), t(machine('a2'), true), t(machine('a3'), true)]),
      nodeStartupTimeoutMs: 0,
    };
    expect(countInFlight(off).total, 'startup check off: 10 minutes').to.equal(1);
  });

  it('counts remediations in place: external bare-metal annotations and remediation requests', () => {
    const baremetal = t(machine('a1', { annotations: { 'host.metal3.io/external-remediation': '' } }), false);
    const requested = { ...t(machine('a2'), false, true), hasRemediationRequest: true };
    expect(countInFlight(input([baremetal, requested, t(machine('a3'), true)])).inPlace).to.equal(2);
  });
});

describe('max-in-flight: which due Machines go now', () => {
  it('admits as many as there is room for, newest first, and holds the rest', () => {
    const due = [
      machine('old', { ageMs: 60 * MIN }),
      machine('new', { ageMs: MIN }),
      machine('mid', { ageMs: 10 * MIN }),
    ].map((m) => ({ machine: m }));
    const r = admitRemediations(due, 2);
    expect(r.now.map((x) => x.machine.metadata.name)).to.deep.equal(['new', 'mid']);
    expect(r.held.map((x) => x.machine.metadata.name)).to.deep.equal(['old']);
    expect(admitRemediations(due, -1).now).to.deep.equal([]);
  });
});
