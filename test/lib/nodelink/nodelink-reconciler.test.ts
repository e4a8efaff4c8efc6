import { expect } from 'chai';
import { NodeMachineAnnotation } from '../../../lib/apis/constants.js';
import type { Node } from '../../../lib/apis/core.js';
import type { Machine } from '../../../lib/apis/machine-types.js';
import { Machines, Nodes } from '../../../lib/client/resources.js';
import { NodeLinkOwnedAnnotation } from '../../../lib/nodelink/owned-metadata.js';
import {
  findNodeForMachine,
  indexMachines,
  indexNodes,
  NodeLinkReconciler,
} from '../../../lib/nodelink/nodelink-reconciler.js';
import { FakeClock } from '../../../lib/base/fake-clock.js';
import { ApiError } from '../../../lib/client/errors.js';
import { rctx, recordingLog } from '../machine/fixtures.js';
import { MemoryInformer, MemoryKubeClient } from '../machine/memory-kube.js';

const NS = 'openshift-machine-api';

function env() {
  const clock = new FakeClock(Date.UTC(2026, 10, 22, 6, 0, 0));
  const client = new MemoryKubeClient();
  const nodes = new MemoryInformer(client, Nodes);
  const machines = new MemoryInformer(client, Machines);
  indexNodes(nodes);
  indexMachines(machines);
  const reconciler = new NodeLinkReconciler({ client, nodes, machines, clock });
  const reconcile = (name: string) => reconciler.reconcile({ name }, rctx());
  const getMachine = (name = 'm1') => client.peek(Machines, { namespace: NS, name });
  const getNode = (name = 'n1') => client.peek(Nodes, { name });
  return { clock, client, nodes, machines, reconciler, reconcile, getMachine, getNode };
}

async function addMachine(e: ReturnType<typeof env>, name: string, m: Partial<Machine> = {}): Promise<Machine> {
  const created = await e.client.create(Machines, { metadata: { name, namespace: NS }, spec: m.spec ?? {} });
  if (m.status) {
    return e.client.patch(
      Machines,
      { namespace: NS, name },
      { type: 'merge', body: { status: m.status } },
      { subresource: 'status' },
    );
  }
  return created;
}

async function addNode(e: ReturnType<typeof env>, name: string, n: Partial<Node> = {}): Promise<Node> {
  return e.client.create(Nodes, {
    metadata: { name, ...n.metadata },
    spec: n.spec,
    status: n.status ?? { conditions: [{ type: 'Ready', status: 'True' }] },
  });
}

describe('NodeLink reconcile', () => {
  it('links by providerID regardless of the zone segment and of case, sets nodeRef and the machine annotation', async () => {
    const e = env();
    await addMachine(e, 'm1', { spec: { providerID: 'aws:///us-east-1a/i-0ABC' } });
    const node = await addNode(e, 'n1', { spec: { providerID: 'aws:///i-0abc' } });
    await e.reconcile('n1');
    expect(e.getMachine()?.status?.nodeRef).to.deep.equal({ kind: 'Node', name: 'n1', uid: node.metadata.uid });
    expect(e.getMachine()?.status?.lastUpdated).to.equal('2026-11-22T06:00:00Z');
    expect(e.getNode()?.metadata.annotations?.[NodeMachineAnnotation]).to.equal(`${NS}/m1`);
  });

  it("knows the echo of its own writes (Machine nodeRef, Node metadata) as settled, and anyone else's change as not", async () => {
    const e = env();
    const before = await addMachine(e, 'm1', {
      spec: { providerID: 'aws:///i-1', metadata: { labels: { role: 'w' } } },
    });
    const nodeBefore = await addNode(e, 'n1', { spec: { providerID: 'aws:///i-1' } });
    await e.reconcile('n1');
    const linked = e.getMachine();
    const labelled = e.getNode();
    if (!linked || !labelled) throw new Error('expected the machine and the node');
    expect(e.reconciler.isSettled(linked, before)).to.equal(true);
    expect(e.reconciler.isSettled(labelled, nodeBefore)).to.equal(true);
    // The same write landing together with someone else's change of a field NodeLink reads is not only ours.
    const relabelled: Node = { ...labelled, metadata: { ...labelled.metadata, labels: { role: 'w', other: 'x' } } };
    expect(e.reconciler.isSettled(relabelled, nodeBefore)).to.equal(false);
    const notReady: Node = { ...labelled, status: { conditions: [{ type: 'Ready', status: 'False' }] } };
    expect(e.reconciler.isSettled(notReady, labelled)).to.equal(false);
  });

  it("falls back to the first InternalIP when no machine has the node's providerID", async () => {
    const e = env();
    await addMachine(e, 'm1', { status: { addresses: [{ type: 'InternalIP', address: '10.0.0.7' }] } });
    await addNode(e, 'n1', {
      spec: { providerID: 'aws:///i-unknown' },
      status: { addresses: [{ type: 'InternalIP', address: '10.0.0.7' }], conditions: [] },
    });
    await e.reconcile('n1');
    expect(e.getMachine()?.status?.nodeRef?.name).to.equal('n1');
  });

  it('refuses to guess when two machines match the node: an error, nothing written', async () => {
    const e = env();
    await addMachine(e, 'm1', { spec: { providerID: 'gce://p/z/vm-1' } });
    await addMachine(e, 'm2', { spec: { providerID: 'gce://p/z2/VM-1' } });
    await addNode(e, 'n1', { spec: { providerID: 'gce://p/z/vm-1' } });
    const err = (await e.reconcile('n1').catch((x: Error) => x)) as Error;
    expect(err.message).to.contain('failed to find machine from node "n1": expected 1 machine, got 2');
    expect(e.getMachine('m1')?.status?.nodeRef).to.equal(undefined);
    expect(e.getNode()?.metadata.annotations?.[NodeMachineAnnotation]).to.equal(undefined);
  });

  it('refuses to guess a node for a machine when two nodes match', async () => {
    const e = env();
    const m = await addMachine(e, 'm1', { status: { addresses: [{ type: 'InternalIP', address: '10.0.0.7' }] } });
    await addNode(e, 'n1', { status: { addresses: [{ type: 'InternalIP', address: '10.0.0.7' }] } });
    await addNode(e, 'n2', { status: { addresses: [{ type: 'InternalIP', address: '10.0.0.7' }] } });
    expect(() => findNodeForMachine(m, e.nodes, e.machines)).to.throw('expected 1 node, got 2');
  });

  describe('an InternalIP match never outvotes a providerID (freed private IPs are reused)', () => {
    const ip = (address: string) => [{ type: 'InternalIP', address }];

    it('never links or labels a Node whose providerID names another instance than the Machine with its IP', async () => {
      const e = env();
      await addMachine(e, 'old', {
        spec: { providerID: 'aws:///us-east-1a/i-old', metadata: { labels: { role: 'old' } } },
        status: { addresses: ip('10.0.0.7') },
      });
      await addNode(e, 'n1', {
        spec: { providerID: 'aws:///us-east-1a/i-new' },
        status: { addresses: ip('10.0.0.7'), conditions: [] },
      });
      await e.reconcile('n1');
      expect(e.getMachine('old')?.status?.nodeRef).to.equal(undefined);
      expect(e.getNode()?.metadata.labels).to.equal(undefined);
      expect(e.getNode()?.metadata.annotations).to.equal(undefined);
      const old = e.getMachine('old')!;
      expect(findNodeForMachine(old, e.nodes, e.machines)).to.equal(undefined);
    });

    it('links the new Machine that has not recorded its instance yet, although the old Machine still lists the IP', async () => {
      const e = env();
      await addMachine(e, 'old', {
        spec: { providerID: 'aws:///us-east-1a/i-old' },
        status: { addresses: ip('10.0.0.7') },
      });
      await addMachine(e, 'new', { status: { addresses: ip('10.0.0.7') } });
      await addNode(e, 'n1', {
        spec: { providerID: 'aws:///us-east-1a/i-new' },
        status: { addresses: ip('10.0.0.7'), conditions: [] },
      });
      await e.reconcile('n1');
      expect(e.getMachine('new')?.status?.nodeRef?.name).to.equal('n1');
      expect(e.getMachine('old')?.status?.nodeRef).to.equal(undefined);
      expect(e.getNode()?.metadata.annotations?.[NodeMachineAnnotation]).to.equal(`${NS}/new`);
    });

    it('does not link by IP a Node whose providerID another Machine carries, to a Machine without one', async () => {
      const e = env();
      await addMachine(e, 'owner', { spec: { providerID: 'aws:///us-east-1a/i-1' } });
      const m = await addMachine(e, 'other', { status: { addresses: ip('10.0.0.7') } });
      await addNode(e, 'n1', {
        spec: { providerID: 'aws:///us-east-1a/i-1' },
        status: { addresses: ip('10.0.0.7'), conditions: [] },
      });
      expect(findNodeForMachine(m, e.nodes, e.machines)).to.equal(undefined);
    });

    it("links a Node without a providerID by IP only while no other Node carries the Machine's providerID", async () => {
      const e = env();
      await addMachine(e, 'm1', {
        spec: { providerID: 'aws:///us-east-1a/i-1' },
        status: { addresses: ip('10.0.0.7') },
      });
      await addNode(e, 'stranger', { status: { addresses: ip('10.0.0.7'), conditions: [] } });
      await addNode(e, 'own', {
        spec: { providerID: 'aws:///us-east-1a/i-1' },
        status: { addresses: ip('10.0.0.9'), conditions: [] },
      });
      await e.reconcile('stranger');
      expect(e.getMachine('m1')?.status?.nodeRef).to.equal(undefined);
      expect(e.getNode('stranger')?.metadata.annotations).to.equal(undefined);

      await e.client.delete(Nodes, { name: 'own' });
      await e.reconcile('stranger');
      expect(e.getMachine('m1')?.status?.nodeRef?.name).to.equal('stranger');
    });
  });

  it('propagates spec.metadata labels and annotations and spec.taints, deduplicating taints by key and effect', async () => {
    const e = env();
    await addMachine(e, 'm1', {
      spec: {
        providerID: 'fake:///z/i-1',
        metadata: { labels: { role: 'infra' }, annotations: { note: 'hello' } },
        taints: [
          { key: 'dedicated', value: 'infra', effect: 'NoSchedule' },
          { key: 'gpu', value: 'true', effect: 'NoExecute' },
        ],
      },
    });
    await addNode(e, 'n1', {
      metadata: { labels: { 'kubernetes.io/hostname': 'n1' } },
      spec: { providerID: 'fake:///z/i-1', taints: [{ key: 'dedicated', value: 'other', effect: 'NoSchedule' }] },
    });
    await e.reconcile('n1');
    const n = e.getNode();
    expect(n?.metadata.labels).to.deep.equal({ 'kubernetes.io/hostname': 'n1', role: 'infra' });
    expect(n?.metadata.annotations?.note).to.equal('hello');
    expect(n?.spec?.taints).to.deep.equal([
      { key: 'dedicated', value: 'other', effect: 'NoSchedule' },
      { key: 'gpu', value: 'true', effect: 'NoExecute' },
    ]);
  });

  it('removes the labels, annotations and taints it added once the machine drops them, leaving others alone', async () => {
    const e = env();
    await addMachine(e, 'm1', {
      spec: {
        providerID: 'fake:///z/i-1',
        metadata: { labels: { role: 'infra', keep: 'x' }, annotations: { note: 'hello' } },
        taints: [{ key: 'gpu', effect: 'NoExecute' }],
      },
    });
    await addNode(e, 'n1', {
      metadata: { labels: { keep: 'x', admin: 'set' } },
      spec: { providerID: 'fake:///z/i-1', taints: [{ key: 'admin', effect: 'NoSchedule' }] },
    });
    await e.reconcile('n1');
    expect(JSON.parse(e.getNode()?.metadata.annotations?.[NodeLinkOwnedAnnotation] ?? '{}')).to.deep.equal({
      labels: ['role'],
      annotations: ['note'],
      taints: [{ key: 'gpu', effect: 'NoExecute' }],
    });
    await e.client.patch(
      Machines,
      { namespace: NS, name: 'm1' },
      {
        type: 'merge',
        body: { spec: { metadata: { labels: { role: null, keep: null }, annotations: null }, taints: [] } },
      },
    );
    await e.reconcile('n1');
    const n = e.getNode();
    expect(n?.metadata.labels).to.deep.equal({ keep: 'x', admin: 'set' });
    expect(n?.metadata.annotations).to.deep.equal({ [NodeMachineAnnotation]: `${NS}/m1` });
    expect(n?.spec?.taints).to.deep.equal([{ key: 'admin', effect: 'NoSchedule' }]);
  });

  it('never loses a taint another controller adds while it writes, and never conflicts with status heartbeats', async () => {
    const e = env();
    await addMachine(e, 'm1', {
      spec: {
        providerID: 'fake:///z/i-1',
        metadata: { labels: { a: 'b' } },
        taints: [{ key: 'ours', effect: 'NoSchedule' }],
      },
    });
    await addNode(e, 'n1', { spec: { providerID: 'fake:///z/i-1', taints: [] } });
    let raced = false;
    e.client.beforeWrite = (verb, plural) => {
      if (verb !== 'patch' || plural !== 'nodes') return;
      const n = e.getNode()!;
      // A heartbeat (status) on every write, and once a node lifecycle taint, just before our write lands.
      n.status = {
        ...n.status,
        conditions: [{ type: 'Ready', status: 'True', lastHeartbeatTime: String(Math.random()) }],
      };
      if (!raced && n.metadata.labels?.a === 'b') {
        raced = true;
        n.spec = { ...n.spec, taints: [{ key: 'node.kubernetes.io/unreachable', effect: 'NoExecute' }] };
      }
      e.client.put(Nodes, n);
    };
    const err = await e.reconcile('n1').catch((x: Error) => x);
    expect(err).to.be.instanceOf(Error);
    await e.reconcile('n1');
    expect(e.getNode()?.spec?.taints).to.deep.equal([
      { key: 'node.kubernetes.io/unreachable', effect: 'NoExecute' },
      { key: 'ours', effect: 'NoSchedule' },
    ]);
    expect(e.getNode()?.metadata.labels).to.deep.equal({ a: 'b' });
  });

  it('corrects nodeRef when the node is replaced under the same name with a new UID', async () => {
    const e = env();
    await addMachine(e, 'm1', { spec: { providerID: 'fake:///z/i-1' } });
    await addNode(e, 'n1', { spec: { providerID: 'fake:///z/i-1' } });
    await e.reconcile('n1');
    const oldUID = e.getMachine()?.status?.nodeRef?.uid;
    await e.client.delete(Nodes, { name: 'n1' });
    const fresh = await e.client.create(Nodes, {
      metadata: { name: 'n1', uid: 'new-uid' },
      spec: { providerID: 'fake:///z/i-1' },
      status: { conditions: [{ type: 'Ready', status: 'True' }] },
    });
    await e.reconcile('n1');
    expect(e.getMachine()?.status?.nodeRef?.uid).to.equal(fresh.metadata.uid).and.not.equal(oldUID);
  });

  it('rewrites nodeRef/lastUpdated only when readiness flips, not on every pass', async () => {
    const e = env();
    await addMachine(e, 'm1', { spec: { providerID: 'fake:///z/i-1' } });
    await addNode(e, 'n1', { spec: { providerID: 'fake:///z/i-1' } });
    await e.reconcile('n1');
    e.client.calls.length = 0;
    e.clock.step(60_000);
    await e.reconcile('n1');
    expect(e.client.count('patch machines/status')).to.equal(0);
    await e.client.patch(
      Nodes,
      { name: 'n1' },
      { type: 'merge', body: { status: { conditions: [{ type: 'Ready', status: 'Unknown' }] } } },
      { subresource: 'status' },
    );
    await e.reconcile('n1');
    expect(e.client.count('patch machines/status')).to.equal(1);
    expect(e.getMachine()?.status?.lastUpdated).to.equal('2026-11-22T06:01:00Z');
  });

  it('sends nothing for a readiness flip within the second of its last write, which would change nothing', async () => {
    const e = env();
    await addMachine(e, 'm1', { spec: { providerID: 'fake:///z/i-1' } });
    await addNode(e, 'n1', { spec: { providerID: 'fake:///z/i-1' } });
    await e.reconcile('n1');
    e.client.calls.length = 0;
    e.clock.step(400);
    await e.client.patch(
      Nodes,
      { name: 'n1' },
      { type: 'merge', body: { status: { conditions: [{ type: 'Ready', status: 'Unknown' }] } } },
      { subresource: 'status' },
    );
    await e.reconcile('n1');
    expect(e.client.count('patch machines/status')).to.equal(0);
    e.clock.step(1_000);
    await e.client.patch(
      Nodes,
      { name: 'n1' },
      { type: 'merge', body: { status: { conditions: [{ type: 'Ready', status: 'True' }] } } },
      { subresource: 'status' },
    );
    await e.reconcile('n1');
    expect(e.client.count('patch machines/status')).to.equal(1);
    expect(e.getMachine()?.status?.lastUpdated).to.equal('2026-11-22T06:00:01Z');
  });

  it('leaves the machine and the node alone while the node is being deleted', async () => {
    const e = env();
    await addMachine(e, 'm1', { spec: { providerID: 'fake:///z/i-1', metadata: { labels: { a: 'b' } } } });
    await addNode(e, 'n1', { metadata: { finalizers: ['x'] }, spec: { providerID: 'fake:///z/i-1' } });
    await e.client.delete(Nodes, { name: 'n1' });
    await e.reconcile('n1');
    expect(e.getMachine()?.status?.nodeRef).to.equal(undefined);
    expect(e.getNode()?.metadata.labels).to.equal(undefined);
  });

  it('ends quietly when the Machine or the Node goes between the cache read and the write (a normal deletion)', async () => {
    for (const goes of ['machines', 'nodes']) {
      const e = env();
      await addMachine(e, 'm1', { spec: { providerID: 'fake:///z/i-1', metadata: { labels: { a: 'b' } } } });
      await addNode(e, 'n1', { spec: { providerID: 'fake:///z/i-1' } });
      e.client.beforeWrite = (_verb, plural) => {
        if (plural === goes)
          throw new ApiError(404, { kind: 'Status', status: 'Failure', code: 404, reason: 'NotFound' });
      };
      const { log, lines } = recordingLog();
      await e.reconciler.reconcile({ name: 'n1' }, { ...rctx(), log });
      expect(
        lines.filter((l) => l.level !== 'debug'),
        goes,
      ).to.deep.equal([]);
    }
  });

  it('does nothing for a node no machine claims', async () => {
    const e = env();
    await addNode(e, 'n1', { spec: { providerID: 'fake:///z/i-404' } });
    await e.reconcile('n1');
    expect(e.getNode()?.metadata.annotations).to.equal(undefined);
  });
});
