import { expect } from 'chai';
import { MachineClusterIDLabel } from '../../../lib/apis/constants.js';
import type { Machine } from '../../../lib/apis/machine-types.js';
import type { Node } from '../../../lib/apis/core.js';
import { Nodes } from '../../../lib/client/resources.js';
import { FakeClock } from '../../../lib/base/fake-clock.js';
import { conformanceContext } from '../../../sim/kit/conformance.js';
import { FakeActuator } from '../../../sim/kit/fake-actuator.js';
import type { EmulatedInstance, InstanceView } from '../../../sim/kit/instance-view.js';
import { KubeletSimulator } from '../../../sim/kit/kubelet-simulator.js';
import { MemoryKubeClient } from '../../lib/machine/memory-kube.js';

const m = (name: string): Machine => ({
  metadata: { name, namespace: 'ns', uid: `uid-${name}`, labels: { [MachineClusterIDLabel]: 'c' } },
  spec: { providerSpec: { value: {} } },
});

async function setup(opts: { bootDelayMs?: number } = {}) {
  const clock = new FakeClock(Date.UTC(2026, 10, 22, 6, 0, 0));
  const client = new MemoryKubeClient();
  const actuator = new FakeActuator({ clock, bootDelayMs: opts.bootDelayMs ?? 0 });
  const kubelet = new KubeletSimulator({
    client,
    runPods: false,
    view: actuator,
    clock,
    nodeLabels: { 'node-role.kubernetes.io/worker': '' },
  });
  await kubelet.start();
  return { clock, client, actuator, kubelet };
}

/** A cloud whose instances a test writes directly, so two instances can share a node name. */
class ScriptedView implements InstanceView {
  instances: EmulatedInstance[] = [];
  private readonly listeners = new Set<() => void>();
  listInstances(): EmulatedInstance[] {
    return this.instances.map((i) => ({ ...i }));
  }
  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
  set(instances: EmulatedInstance[]): void {
    this.instances = instances;
    for (const l of this.listeners) l();
  }
}

const inst = (id: string, state: EmulatedInstance['state'], ip = '10.0.0.5'): EmulatedInstance => ({
  providerID: `fake:///zone-a/${id}`,
  nodeName: `ip-${ip.replaceAll('.', '-')}`,
  state,
  addresses: [{ type: 'InternalIP', address: ip }],
  labels: { 'node.kubernetes.io/instance-type': id === 'i-new' ? 'fake.xlarge' : 'fake.large' },
});

const readyOf = (client: MemoryKubeClient, name: string) =>
  client.peek(Nodes, { name })?.status?.conditions?.find((c) => c.type === 'Ready')?.status;

describe('KubeletSimulator', () => {
  it('registers a Ready node with the instance providerID, addresses and kubelet-style labels once it runs', async () => {
    const { client, actuator, kubelet, clock } = await setup({ bootDelayMs: 10_000 });
    await actuator.create(m('a'), conformanceContext());
    await kubelet.idle();
    expect(client.all(Nodes)).to.have.length(0);
    clock.step(10_000);
    await kubelet.idle();
    const nodes = client.all(Nodes);
    expect(nodes).to.have.length(1);
    const n = nodes[0]!;
    const inst = actuator.allInstances()[0]!;
    expect(n.metadata.name).to.equal(inst.nodeName);
    expect(n.spec?.providerID).to.equal(`fake:///${inst.zone}/${inst.id}`);
    expect(n.status?.addresses).to.deep.equal(inst.addresses);
    expect(n.metadata.labels).to.include({
      'kubernetes.io/hostname': inst.nodeName,
      'kubernetes.io/os': 'linux',
      'node.kubernetes.io/instance-type': 'fake.large',
      'node-role.kubernetes.io/worker': '',
    });
    expect(n.status?.conditions?.find((c) => c.type === 'Ready')).to.include({
      status: 'True',
      lastTransitionTime: '2026-11-22T06:00:10Z',
    });
  });

  it('turns Ready to Unknown when the instance stops, and deletes the node when it is terminated', async () => {
    const { client, actuator, kubelet } = await setup();
    await actuator.create(m('a'), conformanceContext());
    await kubelet.idle();
    const id = actuator.allInstances()[0]!.id;
    actuator.setInstanceState(id, 'stopped');
    await kubelet.idle();
    expect(client.all(Nodes)[0]?.status?.conditions?.find((c) => c.type === 'Ready')?.status).to.equal('Unknown');
    actuator.setInstanceState(id, 'terminated');
    await kubelet.idle();
    expect(client.all(Nodes)).to.have.length(0);
  });

  describe('when the instance is stopped and started again (its kubelet stops posting status, then posts again)', () => {
    it('keeps the same Node through stopping, stopped and pending: Ready Unknown, then True once it runs', async () => {
      const { client, actuator, kubelet } = await setup();
      await actuator.create(m('a'), conformanceContext());
      await kubelet.idle();
      const { id, nodeName } = actuator.allInstances()[0]!;
      const uid = client.peek(Nodes, { name: nodeName })?.metadata.uid;
      for (const state of ['stopping', 'stopped', 'pending'] as const) {
        actuator.setInstanceState(id, state);
        await kubelet.idle();
        expect(client.peek(Nodes, { name: nodeName })?.metadata.uid, `the Node while ${state}`).to.equal(uid);
        expect(readyOf(client, nodeName), `Ready while ${state}`).to.equal('Unknown');
      }
      actuator.setInstanceState(id, 'running');
      await kubelet.idle();
      expect(client.peek(Nodes, { name: nodeName })?.metadata.uid).to.equal(uid);
      expect(readyOf(client, nodeName)).to.equal('True');
      expect(kubelet.error).to.equal(undefined);
    });

    it('keeps it when the simulator restarts while the instance boots again', async () => {
      const view = new ScriptedView();
      const client = new MemoryKubeClient();
      view.set([inst('i-a', 'running')]);
      const first = new KubeletSimulator({ client, runPods: false, view });
      await first.start();
      await first.stop();
      const uid = client.peek(Nodes, { name: 'ip-10-0-0-5' })?.metadata.uid;
      view.set([inst('i-a', 'pending')]);
      const second = new KubeletSimulator({ client, runPods: false, view });
      await second.start();
      expect(client.peek(Nodes, { name: 'ip-10-0-0-5' })?.metadata.uid).to.equal(uid);
      expect(readyOf(client, 'ip-10-0-0-5')).to.equal('Unknown');
      view.set([inst('i-a', 'running')]);
      await second.idle();
      expect(readyOf(client, 'ip-10-0-0-5')).to.equal('True');
      await second.stop();
    });

    it('deletes it once the stopped instance is terminated', async () => {
      const { client, actuator, kubelet } = await setup();
      await actuator.create(m('a'), conformanceContext());
      await kubelet.idle();
      const { id } = actuator.allInstances()[0]!;
      actuator.setInstanceState(id, 'stopped');
      await kubelet.idle();
      actuator.setInstanceState(id, 'terminating');
      await kubelet.idle();
      expect(client.all(Nodes)).to.have.length(0);
    });
  });

  it('lets a test force a node NotReady and back', async () => {
    const { client, actuator, kubelet } = await setup();
    await actuator.create(m('a'), conformanceContext());
    await kubelet.idle();
    const name = actuator.allInstances()[0]!.nodeName;
    await kubelet.setNodeReady(name, 'False');
    expect(client.peek(Nodes, { name })?.status?.conditions?.find((c) => c.type === 'Ready')?.status).to.equal('False');
    await kubelet.setNodeReady(name, undefined);
    expect(client.peek(Nodes, { name })?.status?.conditions?.find((c) => c.type === 'Ready')?.status).to.equal('True');
  });

  it('stops following the cloud after stop()', async () => {
    const { client, actuator, kubelet } = await setup();
    await kubelet.stop();
    await actuator.create(m('a'), conformanceContext());
    await kubelet.idle();
    expect(client.all(Nodes)).to.have.length(0);
  });

  it('removes a Node whose create reply was lost once its instance ends (the create was stored, the reply never came)', async () => {
    class LostReplyClient extends MemoryKubeClient {
      lose = 1;
      override async create<T extends Parameters<MemoryKubeClient['create']>[1]>(
        r: Parameters<MemoryKubeClient['create']>[0],
        obj: T,
      ): Promise<T> {
        const stored = await super.create(r, obj);
        if (r.plural === 'nodes' && this.lose-- > 0) throw new Error('socket hang up');
        return stored as T;
      }
    }
    const view = new ScriptedView();
    const client = new LostReplyClient();
    const kubelet = new KubeletSimulator({ client, runPods: false, view });
    view.set([inst('i-a', 'running')]);
    await kubelet.start();
    expect(client.all(Nodes).map((n) => n.spec?.providerID)).to.deep.equal(['fake:///zone-a/i-a']);
    view.set([inst('i-a', 'terminated')]);
    await kubelet.idle();
    expect(client.all(Nodes), 'no Node outlives its instance').to.have.length(0);
    await kubelet.stop();
  });

  describe('when a new instance reuses the node name of an earlier one', () => {
    it('replaces the Node so it carries the new providerID and labels, even while the old instance is still listed as terminated', async () => {
      const view = new ScriptedView();
      const client = new MemoryKubeClient();
      const kubelet = new KubeletSimulator({ client, runPods: false, view });
      view.set([inst('i-old', 'running')]);
      await kubelet.start();
      const oldUid = client.peek(Nodes, { name: 'ip-10-0-0-5' })?.metadata.uid;
      view.set([inst('i-old', 'terminated'), inst('i-new', 'running')]);
      await kubelet.idle();
      const nodes = client.all(Nodes);
      expect(nodes).to.have.length(1);
      expect(nodes[0]!.spec?.providerID).to.equal('fake:///zone-a/i-new');
      expect(nodes[0]!.metadata.uid).to.not.equal(oldUid);
      expect(nodes[0]!.metadata.labels).to.include({ 'node.kubernetes.io/instance-type': 'fake.xlarge' });
      expect(readyOf(client, 'ip-10-0-0-5')).to.equal('True');
      expect(kubelet.error).to.equal(undefined);
      await kubelet.stop();
    });

    it('removes the old Node while the new instance boots, and registers its own once it runs', async () => {
      const view = new ScriptedView();
      const client = new MemoryKubeClient();
      const kubelet = new KubeletSimulator({ client, runPods: false, view });
      view.set([inst('i-old', 'running')]);
      await kubelet.start();
      view.set([inst('i-old', 'terminated'), inst('i-new', 'pending')]);
      await kubelet.idle();
      expect(client.all(Nodes), 'no kubelet has registered for the booting instance').to.have.length(0);
      view.set([inst('i-old', 'terminated'), inst('i-new', 'running')]);
      await kubelet.idle();
      expect(client.all(Nodes).map((n) => n.spec?.providerID)).to.deep.equal(['fake:///zone-a/i-new']);
      await kubelet.stop();
    });

    it('drops a Ready override set for the old instance', async () => {
      const view = new ScriptedView();
      const client = new MemoryKubeClient();
      const kubelet = new KubeletSimulator({ client, runPods: false, view });
      view.set([inst('i-old', 'running')]);
      await kubelet.start();
      await kubelet.setNodeReady('ip-10-0-0-5', 'False');
      view.set([inst('i-new', 'running'), inst('i-old', 'terminated')]);
      await kubelet.idle();
      expect(client.peek(Nodes, { name: 'ip-10-0-0-5' })?.spec?.providerID).to.equal('fake:///zone-a/i-new');
      expect(readyOf(client, 'ip-10-0-0-5')).to.equal('True');
      await kubelet.stop();
    });

    it('replaces a Node the new instance finds when it starts after a restart', async () => {
      const view = new ScriptedView();
      const client = new MemoryKubeClient();
      view.set([inst('i-old', 'running')]);
      const first = new KubeletSimulator({ client, runPods: false, view });
      await first.start();
      await first.stop();
      view.set([inst('i-old', 'terminated'), inst('i-new', 'running')]);
      const second = new KubeletSimulator({ client, runPods: false, view });
      await second.start();
      expect(client.all(Nodes).map((n) => n.spec?.providerID)).to.deep.equal(['fake:///zone-a/i-new']);
      await second.stop();
    });
  });

  describe("when its Node object is deleted (by hand, or by a controller that took it for another machine's)", () => {
    async function withOneInstance(state: EmulatedInstance['state']) {
      const clock = new FakeClock(Date.UTC(2026, 10, 22, 6, 0, 0));
      const view = new ScriptedView();
      const client = new MemoryKubeClient();
      view.set([inst('i-a', 'running')]);
      const kubelet = new KubeletSimulator({ client, runPods: false, view, clock });
      await kubelet.start();
      if (state !== 'running') {
        view.set([inst('i-a', state)]);
        await kubelet.idle();
      }
      const before = client.peek(Nodes, { name: 'ip-10-0-0-5' });
      await client.delete(Nodes, { name: 'ip-10-0-0-5' });
      return { clock, client, kubelet, before: before! };
    }

    it('registers it again at the next heartbeat while the instance runs: a new object, Ready, with the providerID', async () => {
      const { clock, client, kubelet, before } = await withOneInstance('running');
      clock.step(9_999);
      await kubelet.idle();
      expect(client.peek(Nodes, { name: 'ip-10-0-0-5' })).to.equal(undefined);
      clock.step(1);
      await kubelet.idle();
      const after = client.peek(Nodes, { name: 'ip-10-0-0-5' });
      expect(after?.spec?.providerID).to.equal('fake:///zone-a/i-a');
      expect(after?.metadata.uid).to.not.equal(before.metadata.uid);
      expect(readyOf(client, 'ip-10-0-0-5')).to.equal('True');
      expect(kubelet.error).to.equal(undefined);
      await kubelet.stop();
    });

    it('keeps registering it at every heartbeat, not just the first', async () => {
      const { clock, client, kubelet } = await withOneInstance('running');
      clock.step(10_000);
      await kubelet.idle();
      await client.delete(Nodes, { name: 'ip-10-0-0-5' });
      clock.step(10_000);
      await kubelet.idle();
      expect(readyOf(client, 'ip-10-0-0-5')).to.equal('True');
      await kubelet.stop();
    });

    it('does not register the Node of a stopped instance again: its kubelet is not running', async () => {
      const { clock, client, kubelet } = await withOneInstance('stopped');
      clock.step(10_000);
      await kubelet.idle();
      expect(client.peek(Nodes, { name: 'ip-10-0-0-5' })).to.equal(undefined);
      await kubelet.stop();
    });

    it('has no heartbeat after stop()', async () => {
      const { clock, client, kubelet } = await withOneInstance('running');
      await kubelet.stop();
      clock.step(10_000);
      await kubelet.idle();
      expect(client.peek(Nodes, { name: 'ip-10-0-0-5' })).to.equal(undefined);
    });
  });

  describe('on start', () => {
    it('removes its Nodes whose instance ended while it was stopped, and leaves other Nodes alone', async () => {
      const view = new ScriptedView();
      const client = new MemoryKubeClient();
      view.set([inst('i-a', 'running', '10.0.0.1'), inst('i-b', 'running', '10.0.0.2')]);
      const first = new KubeletSimulator({ client, runPods: false, view });
      await first.start();
      await first.stop();
      await client.create(Nodes, {
        apiVersion: 'v1',
        kind: 'Node',
        metadata: { name: 'control-plane-0' },
        spec: { providerID: 'fake:///zone-a/cp' },
      });
      view.set([inst('i-a', 'running', '10.0.0.1'), inst('i-b', 'terminated', '10.0.0.2')]);
      const second = new KubeletSimulator({ client, runPods: false, view });
      await second.start();
      expect(
        client
          .all(Nodes)
          .map((n) => n.metadata.name)
          .sort(),
      ).to.deep.equal(['control-plane-0', 'ip-10-0-0-1']);
      await second.stop();
    });

    it('follows its surviving Nodes from before, so a stop turns them Unknown', async () => {
      const view = new ScriptedView();
      const client = new MemoryKubeClient();
      view.set([inst('i-a', 'running', '10.0.0.1')]);
      const first = new KubeletSimulator({ client, runPods: false, view });
      await first.start();
      await first.stop();
      view.set([inst('i-a', 'stopped', '10.0.0.1')]);
      const second = new KubeletSimulator({ client, runPods: false, view });
      await second.start();
      expect(readyOf(client, 'ip-10-0-0-1')).to.equal('Unknown');
      await second.stop();
    });
  });

  it("keeps a condition another writer adds between its read and its write (a termination handler's Terminating)", async () => {
    const client = new MemoryKubeClient();
    const view = new ScriptedView();
    const kubelet = new KubeletSimulator({ client, runPods: false, view });
    await kubelet.start();
    view.set([inst('i-1', 'running', '10.0.0.7')]);
    await kubelet.idle();
    // The next read of the Node is followed at once by another writer's status patch.
    const get = client.get.bind(client);
    let interleaved = false;
    client.get = (async (...args: Parameters<typeof client.get>) => {
      const read = await get(...args);
      if (!interleaved && args[0] === Nodes) {
        interleaved = true;
        const conditions = [
          ...(read as Node).status!.conditions!,
          { type: 'Terminating', status: 'True', reason: 'TerminationRequested' },
        ];
        await client.patch(
          Nodes,
          { name: 'ip-10-0-0-7' },
          { type: 'merge', body: { status: { conditions } } },
          { subresource: 'status' },
        );
      }
      return read;
    }) as typeof client.get;
    await kubelet.setNodeReady('ip-10-0-0-7', 'False');
    expect(interleaved).to.equal(true);
    const conditions = client.peek(Nodes, { name: 'ip-10-0-0-7' })?.status?.conditions ?? [];
    expect(conditions.map((c) => `${c.type}=${c.status}`)).to.have.members(['Ready=False', 'Terminating=True']);
    await kubelet.stop();
  });
});
