import { expect } from 'chai';
import type { Pod } from '../../../../lib/apis/core.js';
import { drainPermission } from '../../../../lib/machine/drain/drain-guard.js';
import { decidePods } from '../../../../lib/machine/drain/pod-filter.js';

const owner = (kind: string, name: string) => [{ apiVersion: 'apps/v1', kind, name, uid: 'u', controller: true }];
const pod = (
  name: string,
  meta: Partial<Pod['metadata']> = {},
  spec: Pod['spec'] = {},
  phase?: 'Running' | 'Succeeded',
): Pod => ({
  metadata: { name, namespace: 'ns', ...meta },
  spec,
  status: { phase: phase ?? 'Running' },
});

describe('drain pod filter', () => {
  const opts = {
    nowMs: 100_000,
    skipWaitForDeleteTimeoutMs: 0,
    daemonSetExists: async (_ns: string, name: string) => name === 'live',
  };

  it('leaves mirror pods and live DaemonSet pods, evicts everything else', async () => {
    const ds = await decidePods(
      [
        pod('mirror', { annotations: { 'kubernetes.io/config.mirror': 'h' } }),
        pod('agent', { ownerReferences: owner('DaemonSet', 'live') }),
        pod('orphan', { ownerReferences: owner('DaemonSet', 'gone') }),
        pod('done-agent', { ownerReferences: owner('DaemonSet', 'live') }, {}, 'Succeeded'),
        pod('bare'),
        pod('scratch', { ownerReferences: owner('ReplicaSet', 'rs') }, { volumes: [{ name: 'v', emptyDir: {} }] }),
        pod('web', { ownerReferences: owner('ReplicaSet', 'rs') }),
      ],
      opts,
    );
    expect(Object.fromEntries(ds.map((d) => [d.pod.metadata.name, d.action]))).to.deep.equal({
      mirror: 'skip',
      agent: 'skip',
      orphan: 'evict',
      'done-agent': 'evict',
      bare: 'evict',
      scratch: 'evict',
      web: 'evict',
    });
  });

  it('skips pods deleting for longer than the skip-wait timeout (unreachable node)', async () => {
    const old = new Date(100_000 - 5_000).toISOString();
    const fresh = new Date(100_000 - 500).toISOString();
    const ds = await decidePods([pod('old', { deletionTimestamp: old }), pod('fresh', { deletionTimestamp: fresh })], {
      ...opts,
      skipWaitForDeleteTimeoutMs: 1_000,
    });
    expect(ds.map((d) => d.action)).to.deep.equal(['skip', 'evict']);
  });
});

describe('control-plane drain guard', () => {
  const cp = (name: string, cordoned = false, label = 'node-role.kubernetes.io/master') => ({
    metadata: { name, labels: { [label]: '' } },
    spec: { unschedulable: cordoned },
  });
  const worker = (name: string, cordoned = false) => ({
    metadata: { name, labels: {} },
    spec: { unschedulable: cordoned },
  });

  it('always allows workers and already-cordoned nodes', () => {
    expect(drainPermission(worker('w'), [cp('a', true)])).to.deep.equal({ allowed: true });
    expect(drainPermission(cp('a', true), [cp('a', true), cp('b', true)])).to.deep.equal({ allowed: true });
  });

  it('refuses a control-plane node while another one (either label) is cordoned', () => {
    const p = drainPermission(cp('a'), [
      cp('a'),
      cp('b', true, 'node-role.kubernetes.io/control-plane'),
      worker('w', true),
    ]);
    expect(p).to.deep.equal({ allowed: false, reason: 'control plane node "b" is already cordoned' });
    expect(drainPermission(cp('a'), [cp('a'), cp('b'), worker('w', true)])).to.deep.equal({ allowed: true });
  });
});
