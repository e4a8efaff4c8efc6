// The machine, drain and NodeLink controllers together on the local control plane, with the
// FakeActuator as the cloud and the KubeletSimulator as its kubelets.
import { expect } from 'chai';
import {
  DrainedCondition,
  MachineClusterIDLabel,
  MachineFinalizer,
  NodeMachineAnnotation,
} from '../../../lib/apis/constants.js';
import type { Machine } from '../../../lib/apis/machine-types.js';
import { isNotFound } from '../../../lib/client/errors.js';
import type { KubeClient } from '../../../lib/client/kube-client.js';
import { Events, Machines, Nodes, PodDisruptionBudgets, Pods } from '../../../lib/client/resources.js';
import { InvalidMachineConfigurationError } from '../../../lib/apis/errors.js';
import { NodeLinkOwnedAnnotation } from '../../../lib/nodelink/owned-metadata.js';
import type { Manager } from '../../../lib/runtime/manager.js';
import type { FakeActuator } from '../../../sim/kit/fake-actuator.js';
import type { KubeletSimulator } from '../../../sim/kit/kubelet-simulator.js';
import { eventually } from '../../../sim/kit/provider-test-bed.js';
import type { TestEnv } from '../../../sim/kit/test-env.js';
import { startMachineStack, type MachineStack } from './machine-stack.js';

const NS = 'openshift-machine-api';

const newMachine = (
  name: string,
  extra: Partial<Machine['spec']> = {},
  labels: Record<string, string> = {},
): Machine => ({
  apiVersion: 'machine.openshift.io/v1beta1',
  kind: 'Machine',
  metadata: { name, namespace: NS, labels: { [MachineClusterIDLabel]: 'test-cluster', ...labels } },
  spec: { providerSpec: { value: { instanceType: 'fake.large' } }, ...extra },
});

async function getMachine(client: KubeClient, name: string): Promise<Machine | undefined> {
  try {
    return await client.get(Machines, { namespace: NS, name });
  } catch (err) {
    if (isNotFound(err)) return undefined;
    throw err;
  }
}

describe('machine controllers on the local control plane', function () {
  this.timeout(60_000);
  let stack: MachineStack;
  let env: TestEnv;
  let mgr: Manager;
  let actuator: FakeActuator;
  let kubelet: KubeletSimulator;

  before(async () => {
    stack = await startMachineStack({ namespaces: [NS, 'apps'] });
    ({ env, mgr, actuator, kubelet } = stack);
  });

  after(async () => {
    await stack?.stop();
  });

  it('takes a machine to Running with a linked, labelled node, then deletes it: drain, instance, node, finalizer', async () => {
    await env.client.create(
      Machines,
      newMachine('worker-1', {
        metadata: { labels: { 'node-role.kubernetes.io/infra': '' } },
        taints: [{ key: 'infra', effect: 'NoSchedule' }],
      }),
    );
    const running = await eventually('phase Running', async () => {
      const m = await getMachine(env.client, 'worker-1');
      return m?.status?.phase === 'Running' ? m : undefined;
    });
    expect(running.metadata.finalizers).to.include(MachineFinalizer);
    expect(running.spec?.providerID).to.match(/^fake:\/\/\//);
    const nodeName = running.status?.nodeRef?.name ?? '';
    const node = await eventually('node labelled', async () => {
      const n = await env.client.get(Nodes, { name: nodeName });
      return n.metadata.labels?.['node-role.kubernetes.io/infra'] === '' && n.spec?.taints?.length ? n : undefined;
    });
    expect(node.metadata.annotations?.[NodeMachineAnnotation]).to.equal(`${NS}/worker-1`);
    expect(node.spec?.taints).to.deep.include({ key: 'infra', effect: 'NoSchedule' });

    await env.client.create(Pods, {
      metadata: { name: 'web', namespace: 'apps' },
      spec: { nodeName, containers: [{ name: 'c', image: 'x' }] },
      status: { phase: 'Running' },
    });
    await env.client.delete(Machines, { namespace: NS, name: 'worker-1' });
    await eventually('machine gone', async () => (await getMachine(env.client, 'worker-1')) === undefined);
    expect(actuator.allInstances().find((i) => i.machine.name === 'worker-1')?.state).to.equal('terminated');
    await eventually('node gone', async () => {
      try {
        await env.client.get(Nodes, { name: nodeName });
        return false;
      } catch (err) {
        return isNotFound(err);
      }
    });
    await eventually(
      'pod evicted',
      async () => (await env.client.list(Pods, { namespace: 'apps' })).items.length === 0,
    );
    const events = (await env.client.list(Events, { namespace: NS })).items.filter(
      (e) => e.involvedObject.name === 'worker-1',
    );
    const reasons = events.map((e) => e.reason);
    for (const r of ['DrainProceeds', 'Deleted', 'DrainSucceeded']) expect(reasons).to.include(r);
  });

  it('persists a drain blocked by a PodDisruptionBudget as Drained=False/DrainError, and finishes once it is lifted', async () => {
    await env.client.create(Machines, newMachine('worker-pdb'));
    const m = await eventually('phase Running', async () => {
      const x = await getMachine(env.client, 'worker-pdb');
      return x?.status?.phase === 'Running' ? x : undefined;
    });
    const nodeName = m.status?.nodeRef?.name ?? '';
    await env.client.create(Pods, {
      metadata: { name: 'db', namespace: 'apps', labels: { app: 'db' } },
      spec: { nodeName, containers: [{ name: 'c', image: 'x' }] },
    });
    // The API server creates pods Pending (which eviction lets go regardless of budgets); a kubelet would report Running.
    await env.client.patch(
      Pods,
      { namespace: 'apps', name: 'db' },
      { type: 'merge', body: { status: { phase: 'Running' } } },
      { subresource: 'status' },
    );
    await env.client.create(PodDisruptionBudgets, {
      metadata: { name: 'db', namespace: 'apps' },
      spec: { minAvailable: 1, selector: { matchLabels: { app: 'db' } } },
    });
    await env.client.delete(Machines, { namespace: NS, name: 'worker-pdb' });
    const blocked = await eventually('DrainError condition', async () => {
      const x = await getMachine(env.client, 'worker-pdb');
      const c = x?.status?.conditions?.find((y) => y.type === DrainedCondition);
      return c?.status === 'False' ? c : undefined;
    });
    expect(blocked).to.include({ reason: 'DrainError', severity: 'Warning' });
    expect(blocked.message).to.match(/^could not drain machine: /);
    expect(actuator.allInstances().find((i) => i.machine.name === 'worker-pdb')?.state).to.equal('running');
    await env.client.delete(PodDisruptionBudgets, { namespace: 'apps', name: 'db' });
    await eventually('machine gone', async () => (await getMachine(env.client, 'worker-pdb')) === undefined, 20_000);
  });

  it('marks a machine Failed with InvalidConfiguration when the actuator rejects its spec', async () => {
    actuator.failNext(
      'create',
      new InvalidMachineConfigurationError('spec.providerSpec.value.instanceType: unknown', {
        field: 'spec.providerSpec.value.instanceType',
      }),
    );
    await env.client.create(Machines, newMachine('bad'));
    const m = await eventually('phase Failed', async () => {
      const x = await getMachine(env.client, 'bad');
      return x?.status?.phase === 'Failed' ? x : undefined;
    });
    expect(m.status?.errorReason).to.equal('InvalidConfiguration');
    expect(m.status?.errorMessage).to.equal('spec.providerSpec.value.instanceType: unknown');
    await env.client.delete(Machines, { namespace: NS, name: 'bad' });
    await eventually('failed machine deleted', async () => (await getMachine(env.client, 'bad')) === undefined);
  });

  it('fails a running machine whose instance was terminated outside the Machine API', async () => {
    await env.client.create(Machines, newMachine('victim'));
    await eventually(
      'phase Running',
      async () => (await getMachine(env.client, 'victim'))?.status?.phase === 'Running',
    );
    const inst = actuator.allInstances().find((i) => i.machine.name === 'victim')!;
    actuator.setInstanceState(inst.id, 'terminated');
    // A Running machine is looked at again on the next event or cache resync; make that happen now.
    await env.client.patch(
      Machines,
      { namespace: NS, name: 'victim' },
      { type: 'merge', body: { metadata: { annotations: { poke: '1' } } } },
    );
    const m = await eventually('phase Failed', async () => {
      const x = await getMachine(env.client, 'victim');
      return x?.status?.phase === 'Failed' ? x : undefined;
    });
    expect(m.status?.errorMessage).to.equal("can't find created instance");
  });

  it('NodeLink removes from the node the labels and taints the machine no longer has', async () => {
    await env.client.create(
      Machines,
      newMachine('relabel', { metadata: { labels: { team: 'a' } }, taints: [{ key: 'gpu', effect: 'NoSchedule' }] }),
    );
    const m = await eventually('phase Running', async () => {
      const x = await getMachine(env.client, 'relabel');
      return x?.status?.phase === 'Running' ? x : undefined;
    });
    const nodeName = m.status?.nodeRef?.name ?? '';
    await eventually(
      'label on node',
      async () => (await env.client.get(Nodes, { name: nodeName })).metadata.labels?.team === 'a',
    );
    await env.client.patch(
      Machines,
      { namespace: NS, name: 'relabel' },
      { type: 'merge', body: { spec: { metadata: { labels: null }, taints: null } } },
    );
    const n = await eventually('label removed', async () => {
      const x = await env.client.get(Nodes, { name: nodeName });
      return x.metadata.labels?.team === undefined ? x : undefined;
    });
    expect(n.spec?.taints ?? []).to.deep.equal([]);
    expect(n.metadata.annotations?.[NodeLinkOwnedAnnotation]).to.equal(undefined);
    expect(n.metadata.labels?.['kubernetes.io/hostname']).to.equal(nodeName);
  });

  it('makes exactly one instance when the create reply is lost, and counts the failure', async () => {
    actuator.loseNextReply('create');
    await env.client.create(Machines, newMachine('lost-reply'));
    const m = await eventually('phase Running', async () => {
      const x = await getMachine(env.client, 'lost-reply');
      return x?.status?.phase === 'Running' ? x : undefined;
    });
    expect(actuator.countInstancesFor(m)).to.equal(1);
    expect(actuator.allInstances().filter((i) => i.machine.name === 'lost-reply')).to.have.length(1);
    expect(await mgr.metrics.getSingleMetricAsString('mapi_instance_create_failed')).to.match(
      /name="lost-reply",namespace="openshift-machine-api",reason="[^"]+"\} 1/,
    );
  });

  it('never fails a machine while the cloud throttles, and provisions it once throttling stops', async () => {
    actuator.throttle(true);
    await env.client.create(Machines, newMachine('throttled'));
    await eventually('throttled calls', async () => actuator.callCount('exists', 'throttled') >= 3);
    const during = await getMachine(env.client, 'throttled');
    expect(during?.status?.phase).to.not.equal('Failed');
    expect(during?.status?.conditions?.find((c) => c.type === 'InstanceExists')).to.include({
      status: 'Unknown',
      reason: 'ErrorCheckingProvider',
    });
    actuator.throttle(false);
    await eventually(
      'phase Running',
      async () => (await getMachine(env.client, 'throttled'))?.status?.phase === 'Running',
    );
  });

  it('holds drain for a preDrain hook and termination for a preTerminate hook until their owners remove them', async () => {
    await env.client.create(
      Machines,
      newMachine('hooked', {
        lifecycleHooks: {
          preDrain: [{ name: 'drain-hook', owner: 'hook-owner' }],
          preTerminate: [{ name: 'term-hook', owner: 'hook-owner' }],
        },
      }),
    );
    await eventually(
      'phase Running',
      async () => (await getMachine(env.client, 'hooked'))?.status?.phase === 'Running',
    );
    await env.client.delete(Machines, { namespace: NS, name: 'hooked' });
    await eventually('DrainBlocked event', async () =>
      (await env.client.list(Events, { namespace: NS })).items.some(
        (e) => e.involvedObject.name === 'hooked' && e.reason === 'DrainBlocked',
      ),
    );
    const blocked = await getMachine(env.client, 'hooked');
    expect(blocked?.status?.conditions?.find((c) => c.type === 'Drainable')).to.include({
      status: 'False',
      reason: 'HookPresent',
      message: 'Drain operation currently blocked by: [{Name:drain-hook Owner:hook-owner}]',
    });
    expect(blocked?.status?.conditions?.find((c) => c.type === DrainedCondition)).to.equal(undefined);
    await env.client.patch(
      Machines,
      { namespace: NS, name: 'hooked' },
      { type: 'merge', body: { spec: { lifecycleHooks: { preDrain: null } } } },
    );
    await eventually('Drained=True', async () =>
      (await getMachine(env.client, 'hooked'))?.status?.conditions?.some(
        (c) => c.type === DrainedCondition && c.status === 'True',
      ),
    );
    // Still waiting for the preTerminate hook: the instance lives on.
    await new Promise((r) => setTimeout(r, 300));
    expect(actuator.allInstances().find((i) => i.machine.name === 'hooked')?.state).to.equal('running');
    await env.client.patch(
      Machines,
      { namespace: NS, name: 'hooked' },
      { type: 'merge', body: { spec: { lifecycleHooks: { preTerminate: null } } } },
    );
    await eventually('machine gone', async () => (await getMachine(env.client, 'hooked')) === undefined);
  });

  it('re-links the machine to a node that re-registered with a new UID', async () => {
    await env.client.create(Machines, newMachine('reregister'));
    const m = await eventually('phase Running', async () => {
      const x = await getMachine(env.client, 'reregister');
      return x?.status?.phase === 'Running' ? x : undefined;
    });
    const name = m.status?.nodeRef?.name ?? '';
    const oldUID = m.status?.nodeRef?.uid;
    await env.client.delete(Nodes, { name });
    await kubelet.resync();
    const fresh = await eventually('node back', async () => env.client.get(Nodes, { name }));
    expect(fresh.metadata.uid).to.not.equal(oldUID);
    await eventually(
      'nodeRef uid updated',
      async () => (await getMachine(env.client, 'reregister'))?.status?.nodeRef?.uid === fresh.metadata.uid,
    );
  });

  it('drains an unreachable node and deletes the machine', async () => {
    await env.client.create(Machines, newMachine('unreachable'));
    const m = await eventually('phase Running', async () => {
      const x = await getMachine(env.client, 'unreachable');
      return x?.status?.phase === 'Running' ? x : undefined;
    });
    const nodeName = m.status?.nodeRef?.name ?? '';
    await env.client.create(Pods, {
      metadata: { name: 'lonely', namespace: 'apps' },
      spec: { nodeName, containers: [{ name: 'c', image: 'x' }] },
    });
    await kubelet.setNodeReady(nodeName, 'Unknown');
    await env.client.delete(Machines, { namespace: NS, name: 'unreachable' });
    await eventually('machine gone', async () => (await getMachine(env.client, 'unreachable')) === undefined);
    expect((await env.client.list(Pods, { namespace: 'apps' })).items.map((p) => p.metadata.name)).to.not.include(
      'lonely',
    );
  });

  it('brings 15 machines created at once to Running with exactly one instance each, then deletes them all', async () => {
    const names = Array.from({ length: 15 }, (_, i) => `bulk-${i}`);
    await Promise.all(names.map((n) => env.client.create(Machines, newMachine(n))));
    await eventually(
      'all Running',
      async () => {
        const items = (await env.client.list(Machines, { namespace: NS })).items.filter((m) =>
          names.includes(m.metadata.name ?? ''),
        );
        return items.length === names.length && items.every((m) => m.status?.phase === 'Running' && m.status.nodeRef);
      },
      30_000,
    );
    for (const n of names) expect(actuator.allInstances().filter((i) => i.machine.name === n)).to.have.length(1);
    await Promise.all(names.map((n) => env.client.delete(Machines, { namespace: NS, name: n })));
    await eventually(
      'all gone',
      async () =>
        (await env.client.list(Machines, { namespace: NS })).items.every((m) => !names.includes(m.metadata.name ?? '')),
      30_000,
    );
    expect(
      actuator.allInstances().filter((i) => names.includes(i.machine.name) && i.state !== 'terminated'),
    ).to.have.length(0);
  });

  it('fails a Running machine as soon as its Node goes away with its instance, without waiting for the resync', async () => {
    await env.client.create(Machines, newMachine('vanishing-1'));
    await eventually(
      'phase Running',
      async () => (await getMachine(env.client, 'vanishing-1'))?.status?.phase === 'Running',
    );
    const instance = actuator.allInstances().find((i) => i.machine.name === 'vanishing-1' && i.state === 'running');
    expect(instance, 'a running instance').to.not.equal(undefined);
    // Terminated behind the controller's back: the kubelet simulator removes the Node, as the cloud node
    // controller would. The manager's resync is 60 s away, so only the Node deletion can wake the machine.
    actuator.setInstanceState(instance!.id, 'terminated');
    const failed = await eventually(
      'phase Failed',
      async () => {
        const m = await getMachine(env.client, 'vanishing-1');
        return m?.status?.phase === 'Failed' ? m : undefined;
      },
      10_000,
    );
    expect(failed.status?.errorMessage).to.equal("can't find created instance");
  });

  it('records phase transition metrics on the manager registry', async () => {
    const text = await mgr.metrics.getSingleMetricAsString('mapi_machine_phase_transition_seconds');
    expect(text).to.contain('phase="Running"');
    expect(text).to.contain('phase="Failed"');
  });
});
