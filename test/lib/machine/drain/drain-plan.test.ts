// The drain plan as a pure function: which pods go now, which wait for their group, which are left alone, by the
// pods' own drain annotations on top of the kubectl-drain filter.
import { expect } from 'chai';
import type { Pod } from '../../../../lib/apis/core.js';
import { isComplete, planDrain, podRule } from '../../../../lib/machine/drain/drain-plan.js';
import type { PodDecision } from '../../../../lib/machine/drain/pod-filter.js';

const pod = (name: string, annotations: Record<string, string> = {}, extra: Partial<Pod> = {}): Pod => ({
  metadata: { name, namespace: 'apps', annotations, ...extra.metadata },
  spec: { nodeName: 'n1' },
  status: { phase: 'Running', ...extra.status },
});
const evict = (p: Pod): PodDecision => ({ pod: p, action: 'evict', reason: 'managed pod' });
const names = (ps: Array<{ pod: Pod }>) => ps.map((p) => p.pod.metadata.name);

describe('drain plan', () => {
  it('evicts every pod at once when none carries an annotation', () => {
    const plan = planDrain([evict(pod('b')), evict(pod('a'))]);
    expect(plan.order).to.equal(0);
    expect(names(plan.evictNow)).to.deep.equal(['a', 'b']);
    expect(plan.later).to.deep.equal([]);
    expect(plan.evictNow.every((p) => !p.byAnnotation)).to.equal(true);
  });

  it('evicts the lowest drain-order group first and holds the others until it is gone', () => {
    const decisions = [
      evict(pod('db', { 'machine.openshift.io/drain-order': '10' })),
      evict(pod('web')),
      evict(pod('proxy', { 'machine.openshift.io/drain-order': '-5' })),
    ];
    const first = planDrain(decisions);
    expect(first.order).to.equal(-5);
    expect(names(first.evictNow)).to.deep.equal(['proxy']);
    expect(names(first.later)).to.deep.equal(['db', 'web']);
    // The proxy is evicted and terminating: the next group still waits for it.
    const terminating = pod(
      'proxy',
      { 'machine.openshift.io/drain-order': '-5' },
      {
        metadata: { name: 'proxy', deletionTimestamp: '2026-01-01T00:00:00Z' },
      },
    );
    const second = planDrain([decisions[0]!, decisions[1]!, evict(terminating)]);
    expect(second.order).to.equal(-5);
    expect(names(second.terminating)).to.deep.equal(['proxy']);
    expect(second.evictNow).to.deep.equal([]);
    // Gone: the default group 0 goes next, then 10.
    const third = planDrain([decisions[0]!, decisions[1]!]);
    expect(third.order).to.equal(0);
    expect(names(third.evictNow)).to.deep.equal(['web']);
    expect(names(third.later)).to.deep.equal(['db']);
  });

  it('never evicts a skip pod and does not wait for it', () => {
    const plan = planDrain([evict(pod('agent', { 'machine.openshift.io/drain': 'skip' }))]);
    expect(names(plan.skipped)).to.deep.equal(['agent']);
    expect(plan.skipped[0]).to.include({ byAnnotation: true });
    expect(plan.skipped[0]?.reason).to.contain('machine.openshift.io/drain=skip');
    expect(isComplete(plan)).to.equal(true);
  });

  it('waits for a wait-completed pod without evicting it, and lets its group go once it has finished', () => {
    const running = pod('batch', { 'machine.openshift.io/drain': 'wait-completed' });
    const later = pod('web', { 'machine.openshift.io/drain-order': '1' });
    const plan = planDrain([evict(running), evict(later)]);
    expect(names(plan.waitCompleted)).to.deep.equal(['batch']);
    expect(plan.evictNow).to.deep.equal([]);
    expect(names(plan.later)).to.deep.equal(['web']);
    const done = pod('batch', { 'machine.openshift.io/drain': 'Wait-Completed' }, { status: { phase: 'Succeeded' } });
    const next = planDrain([evict(done), evict(later)]);
    expect(names(next.finished)).to.deep.equal(['batch']);
    expect(names(next.evictNow)).to.deep.equal(['web']);
  });

  it('keeps the filter’s decision for DaemonSet and mirror pods whatever their annotations say', () => {
    const ds = pod('ds', { 'machine.openshift.io/drain': 'wait-completed', 'machine.openshift.io/drain-order': '-1' });
    const plan = planDrain([{ pod: ds, action: 'skip', reason: 'DaemonSet-managed' }, evict(pod('web'))]);
    expect(names(plan.skipped)).to.deep.equal(['ds']);
    expect(plan.skipped[0]).to.include({ reason: 'DaemonSet-managed', byAnnotation: false });
    expect(plan.order).to.equal(0);
  });

  it('says when an annotation cannot be read, and applies the default', () => {
    expect(podRule(pod('x', { 'machine.openshift.io/drain-order': 'first' }))).to.deep.include({ order: 0 });
    expect(podRule(pod('x', { 'machine.openshift.io/drain-order': '1.5' })).problems[0]).to.equal(
      'machine.openshift.io/drain-order="1.5" is not an integer; order 0 applies',
    );
    const unknown = planDrain([evict(pod('x', { 'machine.openshift.io/drain': 'later' }))]);
    expect(names(unknown.evictNow)).to.deep.equal(['x']);
    expect(unknown.evictNow[0]?.problem).to.equal(
      'machine.openshift.io/drain="later" is not "skip" or "wait-completed"; evicted as usual',
    );
    expect(podRule(pod('x', { 'machine.openshift.io/drain-order': ' +7 ' })).order).to.equal(7);
  });
});
