// Drains that end, per-pod drain rules and the wait for volumes to detach, on the local control plane: the machine
// and drain controllers with the FakeActuator as the cloud and the KubeletSimulator as its kubelets (which run the
// pods and attach their claims' volumes), PodDisruptionBudgets enforced by the eviction API, and the eviction
// requests read off the control plane as it received them.
import { expect } from 'chai';
import { MachineClusterIDLabel } from '../../../../lib/apis/constants.js';
import type { Pod } from '../../../../lib/apis/core.js';
import type { Machine } from '../../../../lib/apis/machine-types.js';
import { RealClock } from '../../../../lib/base/real-clock.js';
import { isNotFound } from '../../../../lib/client/errors.js';
import {
  Events,
  Machines,
  PersistentVolumeClaims,
  PodDisruptionBudgets,
  Pods,
  VolumeAttachments,
} from '../../../../lib/client/resources.js';
import type { RecordedRequest } from '../../../../sim/apiserver/index.js';
import type { FakeActuator } from '../../../../sim/kit/fake-actuator.js';
import { eventually } from '../../../../sim/kit/provider-test-bed.js';
import type { TestEnv } from '../../../../sim/kit/test-env.js';
import { startMachineStack, type MachineStack } from '../machine-stack.js';

const NS = 'openshift-machine-api';
const APPS = 'apps';
const RS = [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'rs', uid: 'rs-uid', controller: true }];

describe('drains on the local control plane', function () {
  this.timeout(60_000);
  let stack: MachineStack;
  let env: TestEnv;
  let actuator: FakeActuator;
  const requests: RecordedRequest[] = [];

  before(async () => {
    stack = await startMachineStack({
      namespaces: [NS, APPS],
      controlPlane: { onRequest: (r) => requests.push(r) },
      actuator: { clock: new RealClock(), terminateDelayMs: 100 },
      kubelet: { heartbeatMs: 0, volumeDetachDelayMs: 3_000 },
    });
    ({ env, actuator } = stack);
  });

  after(async () => {
    await stack?.stop();
  });

  const getMachine = async (name: string): Promise<Machine | undefined> =>
    env.client.get(Machines, { namespace: NS, name }).catch((err: unknown) => {
      if (isNotFound(err)) return undefined;
      throw err;
    });

  /** A Running Machine with a Ready Node; returns the Node's name. */
  async function runningMachine(name: string, annotations: Record<string, string> = {}): Promise<string> {
    await env.client.create(Machines, {
      apiVersion: 'machine.openshift.io/v1beta1',
      kind: 'Machine',
      metadata: { name, namespace: NS, labels: { [MachineClusterIDLabel]: 'test-cluster' }, annotations },
      spec: { providerSpec: { value: { instanceType: 'fake.large' } } },
    });
    const m = await eventually(`${name} Running`, async () => {
      const x = await getMachine(name);
      return x?.status?.phase === 'Running' && x.status.nodeRef ? x : undefined;
    });
    return m.status?.nodeRef?.name ?? '';
  }

  /** A pod bound to the Node, run by the simulated kubelet. */
  async function runPod(
    name: string,
    nodeName: string,
    extra: Partial<Pod['metadata']> = {},
    spec: Record<string, unknown> = {},
  ) {
    await env.client.create(Pods, {
      metadata: { name, namespace: APPS, ownerReferences: RS, ...extra },
      spec: { nodeName, containers: [{ name: 'c', image: 'x' }], ...spec },
    });
    await eventually(`${name} Running`, async () => {
      const p = await env.client.get(Pods, { namespace: APPS, name });
      return p.status?.phase === 'Running';
    });
  }

  const evictionsOf = (names: readonly string[]) =>
    requests
      .filter((r) => r.resource === 'pods' && r.subresource === 'eviction' && names.includes(r.name ?? ''))
      .map((r) => r.name ?? '');
  const eventsOf = async (machine: string) =>
    (await env.client.list(Events, { namespace: NS })).items.filter((e) => e.involvedObject.name === machine);
  const gone = (name: string) => eventually(`${name} gone`, async () => (await getMachine(name)) === undefined, 30_000);

  it('ends a drain an unsatisfiable PodDisruptionBudget blocks once drain-timeout has passed, then terminates', async () => {
    const node = await runningMachine('worker-pdb', { 'machine.openshift.io/drain-timeout': '3s' });
    await runPod('guarded', node, { labels: { app: 'guarded' } });
    await env.client.create(PodDisruptionBudgets, {
      metadata: { name: 'guarded', namespace: APPS },
      spec: { minAvailable: 1, selector: { matchLabels: { app: 'guarded' } } },
    });
    const deletedAt = Date.now();
    await env.client.delete(Machines, { namespace: NS, name: 'worker-pdb' });
    await gone('worker-pdb');
    expect(Date.now() - deletedAt, 'the drain timeout plus a little').to.be.within(3_000, 15_000);
    expect(actuator.allInstances().find((i) => i.machine.name === 'worker-pdb')?.state).to.equal('terminated');
    const timeout = (await eventsOf('worker-pdb')).find((e) => e.reason === 'DrainTimeout');
    expect(timeout?.type).to.equal('Warning');
    expect(timeout?.message).to.contain('drain did not finish within 3s (machine.openshift.io/drain-timeout)');
    expect(timeout?.message).to.contain('apps/guarded (eviction refused by a PodDisruptionBudget');
    expect(evictionsOf(['guarded']).length, 'the drain asked, the budget refused').to.be.greaterThan(0);
    expect((await env.client.get(Pods, { namespace: APPS, name: 'guarded' })).metadata.deletionTimestamp).to.equal(
      undefined,
    );
    await env.client.delete(PodDisruptionBudgets, { namespace: APPS, name: 'guarded' });
    await env.client.delete(Pods, { namespace: APPS, name: 'guarded' });
  });

  it('evicts in drain order, waits for a wait-completed pod, never evicts skip or wait-completed pods', async () => {
    const node = await runningMachine('worker-order');
    await runPod('proxy', node, { annotations: { 'machine.openshift.io/drain-order': '-5' } });
    await runPod('web', node);
    await runPod('db', node, { annotations: { 'machine.openshift.io/drain-order': '10' } });
    await runPod('agent', node, { annotations: { 'machine.openshift.io/drain': 'skip' } });
    await runPod('job', node, { annotations: { 'machine.openshift.io/drain': 'wait-completed' } });
    const names = ['proxy', 'web', 'db', 'agent', 'job'];
    await env.client.delete(Machines, { namespace: NS, name: 'worker-order' });
    await eventually('proxy and web evicted', async () => evictionsOf(names).includes('web'));
    // The job (order 0, like web) still runs: the db (order 10) waits for it.
    await new Promise((r) => setTimeout(r, 1_000));
    expect(evictionsOf(names)).to.not.include('db');
    expect(await getMachine('worker-order')).to.not.equal(undefined);
    await env.client.patch(
      Pods,
      { namespace: APPS, name: 'job' },
      { type: 'merge', body: { status: { phase: 'Succeeded' } } },
      { subresource: 'status' },
    );
    await gone('worker-order');
    expect([...new Set(evictionsOf(names))]).to.deep.equal(['proxy', 'web', 'db']);
    const rules = (await eventsOf('worker-order')).filter((e) => e.reason === 'DrainRule').map((e) => e.message);
    expect(rules).to.include.members([
      'Pod apps/agent: machine.openshift.io/drain=skip: not evicted, not waited for',
      'Pod apps/proxy: evicted in drain order -5',
      'Pod apps/db: evicted in drain order 10',
    ]);
    const left = (await env.client.list(Pods, { namespace: APPS })).items.map((p) => p.metadata.name).sort();
    expect(left).to.deep.equal(['agent', 'job']);
    for (const n of left) await env.client.delete(Pods, { namespace: APPS, name: n ?? '' });
  });

  it("holds termination until the evicted pod's volume has detached from the Node", async () => {
    const node = await runningMachine('worker-volume');
    await env.client.create(PersistentVolumeClaims, { metadata: { name: 'data', namespace: APPS }, spec: {} });
    await runPod('stateful', node, {}, { volumes: [{ name: 'd', persistentVolumeClaim: { claimName: 'data' } }] });
    await eventually('attached', async () =>
      (await env.client.list(VolumeAttachments)).items.some((va) => va.spec?.nodeName === node),
    );
    await env.client.delete(Machines, { namespace: NS, name: 'worker-volume' });
    const waiting = await eventually('waiting for the volume', async () => {
      const m = await getMachine('worker-volume');
      const c = m?.status?.conditions?.find((x) => x.type === 'VolumesDetached');
      return c?.reason === 'WaitingForVolumeDetach' ? c : undefined;
    });
    expect(waiting.message).to.match(/^Waiting for 1 volume to detach from node ".*" \(at most 10m0s .*\): pvc-/);
    const stillAttached = (await env.client.list(VolumeAttachments)).items.some((va) => va.spec?.nodeName === node);
    const instance = actuator.allInstances().find((i) => i.machine.name === 'worker-volume');
    expect(stillAttached, 'the volume detaches 3 s after the pod is gone').to.equal(true);
    expect(instance?.state, 'not terminated while the volume is attached').to.equal('running');
    await gone('worker-volume');
    expect((await env.client.list(VolumeAttachments)).items.some((va) => va.spec?.nodeName === node)).to.equal(false);
    await env.client.delete(PersistentVolumeClaims, { namespace: APPS, name: 'data' });
  });

  it('terminates anyway once volume-detach-timeout has passed, with a Warning naming the volume', async () => {
    const node = await runningMachine('worker-stuck-volume', { 'machine.openshift.io/volume-detach-timeout': '2s' });
    await env.client.create(VolumeAttachments, {
      metadata: { name: 'stuck' },
      spec: { attacher: 'csi.example.com', nodeName: node, source: { persistentVolumeName: 'pv-stuck' } },
    });
    await env.client.delete(Machines, { namespace: NS, name: 'worker-stuck-volume' });
    await eventually('waiting', async () => {
      const m = await getMachine('worker-stuck-volume');
      return m?.status?.conditions?.some((x) => x.reason === 'WaitingForVolumeDetach');
    });
    expect(actuator.allInstances().find((i) => i.machine.name === 'worker-stuck-volume')?.state).to.equal('running');
    await gone('worker-stuck-volume');
    const w = (await eventsOf('worker-stuck-volume')).find((e) => e.reason === 'VolumeDetachTimeout');
    expect(w?.type).to.equal('Warning');
    expect(w?.message).to.contain('terminating anyway: pv-stuck');
    await env.client.delete(VolumeAttachments, { name: 'stuck' });
  });
});
