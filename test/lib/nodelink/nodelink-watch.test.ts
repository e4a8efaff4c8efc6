// NodeLink's watch predicates: an update costs a reconcile only when a field NodeLink reads changed to something
// NodeLink did not write itself; a Machine's resync never (its Node's resync covers the pair).
import { expect } from 'chai';
import type { Node } from '../../../lib/apis/core.js';
import type { Machine } from '../../../lib/apis/machine-types.js';
import type { KubeObject } from '../../../lib/apis/meta.js';
import { machineWatchPredicate, nodeWatchPredicate } from '../../../lib/nodelink/nodelink-watch.js';

const node = (over: { ready?: 'True' | 'False'; heartbeat?: string; labels?: Record<string, string> } = {}): Node => ({
  metadata: { name: 'n1', uid: 'u1', resourceVersion: '1', labels: over.labels ?? {} },
  spec: { providerID: 'aws:///us-east-1a/i-1' },
  status: {
    addresses: [{ type: 'InternalIP', address: '10.0.0.1' }],
    conditions: [{ type: 'Ready', status: over.ready ?? 'True', lastHeartbeatTime: over.heartbeat ?? 't0' }],
    allocatable: { cpu: over.heartbeat === 't1' ? '3' : '4' },
  },
});

const machine = (over: { phase?: string; nodeRef?: string; ip?: string } = {}): Machine => ({
  metadata: { name: 'm', namespace: 'ns', uid: 'mu' },
  spec: { providerID: 'aws:///us-east-1a/i-1' },
  status: {
    phase: over.phase ?? 'Running',
    addresses: [{ type: 'InternalIP', address: over.ip ?? '10.0.0.1' }],
    ...(over.nodeRef ? { nodeRef: { kind: 'Node', name: over.nodeRef, uid: 'u1' } } : {}),
  },
});

const nothingSettled = (): boolean => false;

describe('NodeLink watch predicates', () => {
  it('drops a Node update that changes nothing NodeLink reads (a heartbeat, allocatable), passes one that does', () => {
    const pass = nodeWatchPredicate(nothingSettled);
    expect(pass('update', node({ heartbeat: 't1' }), node())).to.equal(false);
    expect(pass('update', node({ ready: 'False' }), node())).to.equal(true);
    expect(pass('update', node({ labels: { a: 'b' } }), node())).to.equal(true);
    expect(pass('add', node())).to.equal(true);
    expect(pass('delete', node())).to.equal(true);
  });

  it("passes a Node's resync but never a Machine's", () => {
    const n = node();
    const m = machine();
    expect(nodeWatchPredicate(nothingSettled)('update', n, n)).to.equal(true);
    expect(machineWatchPredicate(nothingSettled)('update', m, m)).to.equal(false);
  });

  it("drops a Machine's phase or condition write, passes a change of its addresses or nodeRef", () => {
    const pass = machineWatchPredicate(nothingSettled);
    expect(pass('update', machine({ phase: 'Provisioned' }), machine({ phase: 'Provisioning' }))).to.equal(false);
    expect(pass('update', machine({ ip: '10.0.0.2' }), machine())).to.equal(true);
    expect(pass('update', machine({ nodeRef: 'n1' }), machine())).to.equal(true);
  });

  it('drops the echo of its own write, which the reconciler tells it, and only that', () => {
    const settled = (obj: KubeObject, old: KubeObject): boolean =>
      (obj as Machine).status?.nodeRef?.name === 'n1' && !(old as Machine).status?.nodeRef;
    const pass = machineWatchPredicate(settled);
    expect(pass('update', machine({ nodeRef: 'n1' }), machine())).to.equal(false);
    expect(pass('update', machine({ nodeRef: 'n2' }), machine())).to.equal(true);
  });
});
