import { expect } from 'chai';
import { MachineClusterIDLabel } from '../../../lib/apis/constants.js';
import type { Machine } from '../../../lib/apis/machine-types.js';
import { Nodes } from '../../../lib/client/resources.js';
import { FakeClock } from '../../../lib/runtime/fake-clock.js';
import { conformanceContext } from '../../../lib/testing/conformance.js';
import { FakeActuator } from '../../../lib/testing/fake-actuator.js';
import { KubeletSimulator } from '../../../lib/testing/kubelet-simulator.js';
import { MemoryKubeClient } from '../machine/memory-kube.js';

const m = (name: string): Machine => ({
  metadata: { name, namespace: 'ns', uid: `uid-${name}`, labels: { [MachineClusterIDLabel]: 'c' } },
  spec: { providerSpec: { value: {} } },
});

async function setup(opts: { bootDelayMs?: number } = {}) {
  const clock = new FakeClock(Date.UTC(2026, 10, 22, 6, 0, 0));
  const client = new MemoryKubeClient();
  const actuator = new FakeActuator({ clock, bootDelayMs: opts.bootDelayMs ?? 0 });
  const kubelet = new KubeletSimulator({ client, view: actuator, clock, nodeLabels: { 'node-role.kubernetes.io/worker': '' } });
  await kubelet.start();
  return { clock, client, actuator, kubelet };
}

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
    expect(n.metadata.labels).to.include({ 'kubernetes.io/hostname': inst.nodeName, 'kubernetes.io/os': 'linux', 'node.kubernetes.io/instance-type': 'fake.large', 'node-role.kubernetes.io/worker': '' });
    expect(n.status?.conditions?.find((c) => c.type === 'Ready')).to.include({ status: 'True', lastTransitionTime: '2026-11-22T06:00:10Z' });
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
});
