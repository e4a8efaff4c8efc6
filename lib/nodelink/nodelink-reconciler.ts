// NodeLink: finds the Machine behind each Node (providerID, falling back to InternalIP where no providerID
// contradicts it: see mayLinkByIP), records status.nodeRef on the Machine, and puts the machine's labels,
// annotations and taints on the Node.
// Reference: https://github.com/openshift/machine-api-operator/blob/main/pkg/controller/nodelink/nodelink_controller.go
import type { Node } from '../apis/core.js';
import type { Machine } from '../apis/machine-types.js';
import type { KubeObject } from '../apis/meta.js';
import { isNotFound } from '../client/errors.js';
import type { JsonPatchOperation, KubeClient } from '../client/kube-client.js';
import { Machines, Nodes } from '../client/resources.js';
import type { Clock } from '../base/clock.js';
import { WrittenVersions } from '../runtime/written-versions.js';
import { cacheCaughtUp } from '../runtime/cache-catch-up.js';
import type { Informer, ReconcileContext, Reconciler, Request, Result } from '../runtime/types.js';
import { createMergePatch, deepEqual } from '../machine/merge-patch.js';
import { desiredNode } from './node-metadata.js';
import { normalizeProviderID } from '../apis/provider-id.js';
import { internalIPs, machineView, nodeView } from './nodelink-views.js';

export const NodeProviderIDIndex = 'nodelink.nodeProviderID';
export const NodeInternalIPIndex = 'nodelink.nodeInternalIP';
export const MachineProviderIDIndex = 'nodelink.machineProviderID';
export const MachineInternalIPIndex = 'nodelink.machineInternalIP';

export class AmbiguousMatchError extends Error {
  override readonly name = 'AmbiguousMatchError';
}

export { internalIPs };

export function indexNodes(nodes: Informer<Node>): void {
  nodes.addIndex(NodeProviderIDIndex, (n) => {
    const id = normalizeProviderID(n.spec?.providerID);
    return id ? [id] : [];
  });
  nodes.addIndex(NodeInternalIPIndex, (n) => internalIPs(n.status?.addresses));
}

export function indexMachines(machines: Informer<Machine>): void {
  machines.addIndex(MachineProviderIDIndex, (m) => {
    const id = normalizeProviderID(m.spec?.providerID);
    return id ? [id] : [];
  });
  machines.addIndex(MachineInternalIPIndex, (m) => internalIPs(m.status?.addresses));
}

function single<T extends { metadata: { name?: string; namespace?: string } }>(
  found: T[],
  what: string,
  by: string,
): T | undefined {
  if (found.length > 1) {
    const names = found
      .map((o) => (o.metadata.namespace ? `${o.metadata.namespace}/${o.metadata.name}` : o.metadata.name))
      .join(', ');
    throw new AmbiguousMatchError(`expected 1 ${what}, got ${found.length} (${by}): ${names}`);
  }
  return found[0];
}

/**
 * Whether an InternalIP match may link `node` and `machine`. An IP is only a hint: a cloud gives a freed
 * private IP to the next instance, so a Node and a Machine that share one may belong to different instances.
 * The match stands only when no providerID says otherwise:
 * - both carry a providerID: it must be the same instance;
 * - only the Node does (the Machine has not recorded its instance yet): no other Machine may carry it;
 * - only the Machine does (the Node's providerID is not set yet, as before a cloud controller manager
 *   initialises it): no other Node may carry the Machine's, for that Node, not this one, is the Machine's;
 * - neither: the reference behaviour; two candidates are still refused as ambiguous by the caller.
 */
export function mayLinkByIP(node: Node, machine: Machine, nodes: Informer<Node>, machines: Informer<Machine>): boolean {
  const nodeID = normalizeProviderID(node.spec?.providerID);
  const machineID = normalizeProviderID(machine.spec?.providerID);
  if (nodeID !== undefined && machineID !== undefined) return nodeID === machineID;
  if (nodeID !== undefined)
    return machines.byIndex(MachineProviderIDIndex, nodeID).every((m) => sameObject(m, machine));
  if (machineID !== undefined) return nodes.byIndex(NodeProviderIDIndex, machineID).every((n) => sameObject(n, node));
  return true;
}

const sameObject = (
  a: { metadata: { name?: string; namespace?: string } },
  b: { metadata: { name?: string; namespace?: string } },
): boolean => a.metadata.name === b.metadata.name && (a.metadata.namespace ?? '') === (b.metadata.namespace ?? '');

export function findMachineForNode(
  node: Node,
  machines: Informer<Machine>,
  nodes: Informer<Node>,
): Machine | undefined {
  try {
    const id = normalizeProviderID(node.spec?.providerID);
    if (id) {
      const m = single(machines.byIndex(MachineProviderIDIndex, id), 'machine', `providerID ${node.spec?.providerID}`);
      if (m) return m;
    }
    const ip = internalIPs(node.status?.addresses)[0];
    if (!ip) return undefined;
    const candidates = machines
      .byIndex(MachineInternalIPIndex, ip)
      .filter((m) => mayLinkByIP(node, m, nodes, machines));
    return single(candidates, 'machine', `InternalIP ${ip}`);
  } catch (err) {
    throw new Error(`failed to find machine from node "${node.metadata.name}": ${(err as Error).message}`, {
      cause: err,
    });
  }
}

export function findNodeForMachine(
  machine: Machine,
  nodes: Informer<Node>,
  machines: Informer<Machine>,
): Node | undefined {
  const id = normalizeProviderID(machine.spec?.providerID);
  if (id) {
    const n = single(nodes.byIndex(NodeProviderIDIndex, id), 'node', `providerID ${machine.spec?.providerID}`);
    if (n) return n;
  }
  const ip = internalIPs(machine.status?.addresses)[0];
  if (!ip) return undefined;
  const candidates = nodes.byIndex(NodeInternalIPIndex, ip).filter((n) => mayLinkByIP(n, machine, nodes, machines));
  return single(candidates, 'node', `InternalIP ${ip}`);
}

/**
 * How long a reconcile handed a copy older than NodeLink's own last write waits for the cache to catch up, and
 * how soon it looks again when the cache has not.
 */
export const StaleCopyRequeueMs = 100;

const machineRequest = (machine: KubeObject): Request => ({
  namespace: machine.metadata.namespace,
  name: machine.metadata.name ?? '',
});

const machineKey = (machine: KubeObject): string =>
  `machine/${machine.metadata.namespace ?? ''}/${machine.metadata.name ?? ''}`;

export interface NodeLinkDeps {
  client: KubeClient;
  nodes: Informer<Node>;
  machines: Informer<Machine>;
  clock: Clock;
}

export class NodeLinkReconciler implements Reconciler {
  /** Last Ready status seen per node: nodeRef/lastUpdated are rewritten when readiness flips. */
  private readonly readiness = new Map<string, boolean>();
  private readonly written = new WrittenVersions();
  /** What NodeLink last left each Node and Machine as (their views), noted before it writes them. */
  private readonly settled = new Map<string, unknown[]>();

  constructor(private readonly d: NodeLinkDeps) {}

  /**
   * Whether an update of this Node or Machine brings only what NodeLink itself left it as: every field NodeLink
   * reads that the update changed now holds the value NodeLink wrote (the echo of its own write). Such an event
   * brings nothing to act on, so the watch drops it; anyone else's change to a field it reads still passes.
   */
  isSettled(obj: KubeObject, old: KubeObject): boolean {
    const [key, view] = obj.metadata.namespace
      ? [machineKey(obj), (o: KubeObject) => machineView(o)]
      : [`node/${obj.metadata.name ?? ''}`, (o: KubeObject) => nodeView(o)];
    const settled = this.settled.get(key);
    if (settled === undefined) return false;
    const [before, after] = [view(old), view(obj)];
    return after.every((v, i) => deepEqual(v, before[i]) || deepEqual(v, settled[i]));
  }

  async reconcile(req: Request, ctx: ReconcileContext): Promise<Result | void> {
    const node = this.d.nodes.get({ name: req.name });
    if (!node) {
      this.readiness.delete(req.name);
      this.written.forget(`node/${req.name}`);
      this.settled.delete(`node/${req.name}`);
      return;
    }
    const machine = findMachineForNode(node, this.d.machines, this.d.nodes);
    if (!machine) {
      ctx.log.debug('no machine found for node', { node: req.name }, 2);
      return;
    }
    // A copy from before our own last write (another change's event raced ahead of the write's own): the write's
    // echo is usually a moment away, so wait for it and go on with the fresh copies; if it is late, look again
    // soon (its echo enqueues nothing, so the look is asked for here).
    const stale = (): boolean =>
      this.written.isStale(`node/${req.name}`, this.d.nodes.get({ name: req.name })?.metadata.resourceVersion) ||
      this.written.isStale(machineKey(machine), this.d.machines.get(machineRequest(machine))?.metadata.resourceVersion);
    if (stale()) {
      const informers = [this.d.nodes, this.d.machines] as unknown as Array<Informer<KubeObject>>;
      const fresh = await cacheCaughtUp(informers, () => !stale(), this.d.clock, StaleCopyRequeueMs, ctx.signal);
      return fresh ? this.reconcile(req, ctx) : { requeueAfterMs: StaleCopyRequeueMs };
    }
    if (node.metadata.deletionTimestamp) {
      this.readiness.delete(req.name);
      return;
    }
    try {
      await this.updateNodeRef(machine, node, ctx.signal);
      await this.writeNode(node, desiredNode(node, machine), ctx.signal);
    } catch (err) {
      if (!isNotFound(err)) throw err;
      // The Machine or the Node went after the cache showed them (the end of a normal deletion: the machine
      // controller deletes the Node, then lets the Machine go): nothing is left to link, and the watch
      // brings the deletion.
      ctx.log.debug('machine or node gone meanwhile; nothing to link', { node: req.name, error: err }, 2);
    }
  }

  /**
   * Labels and annotations go in a merge patch (key by key, so the kubelet's heartbeats never conflict
   * with it); the taint list is replaced only if it is still what we read (a JSON patch `test`), so a
   * taint another controller added meanwhile is never lost.
   */
  private async writeNode(node: Node, want: Node, signal: AbortSignal): Promise<void> {
    const key = { name: node.metadata.name ?? '' };
    this.settled.set(`node/${key.name}`, nodeView(want));
    const meta = createMergePatch(
      { labels: node.metadata.labels ?? {}, annotations: node.metadata.annotations ?? {} },
      { labels: want.metadata.labels ?? {}, annotations: want.metadata.annotations ?? {} },
    );
    if (meta)
      this.written.record(
        `node/${key.name}`,
        (await this.d.client.patch(Nodes, key, { type: 'merge', body: { metadata: meta } }, { signal })).metadata
          .resourceVersion,
      );

    const before = node.spec?.taints;
    const after = want.spec?.taints ?? [];
    if (deepEqual(before ?? [], after)) return;
    // The test guards exactly what we are about to replace: the taint list, or when there is none yet
    // the spec it goes into (spec changes are rare, unlike the status heartbeats).
    const ops: JsonPatchOperation[] =
      before !== undefined
        ? [
            { op: 'test', path: '/spec/taints', value: before },
            { op: 'replace', path: '/spec/taints', value: after },
          ]
        : node.spec !== undefined
          ? [
              { op: 'test', path: '/spec', value: node.spec },
              { op: 'add', path: '/spec/taints', value: after },
            ]
          : [];
    const written =
      ops.length > 0
        ? await this.d.client.patch(Nodes, key, { type: 'json', body: ops }, { signal })
        : await this.d.client.patch(
            Nodes,
            key,
            { type: 'merge', body: { spec: { taints: after } } },
            { signal, resourceVersion: node.metadata.resourceVersion },
          );
    this.written.record(`node/${key.name}`, written.metadata.resourceVersion);
  }

  private async updateNodeRef(machine: Machine, node: Node, signal: AbortSignal): Promise<void> {
    const name = node.metadata.name ?? '';
    const ready = node.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false;
    const ref = machine.status?.nodeRef;
    const refCurrent = ref?.kind === 'Node' && ref.name === name && ref.uid === node.metadata.uid;
    const known = this.readiness.get(name);
    const linked: Machine = {
      ...machine,
      status: { ...machine.status, nodeRef: { kind: 'Node', name, uid: node.metadata.uid } },
    };
    this.settled.set(machineKey(machine), machineView(linked));
    // Improvement: a replaced node (new name or UID) always gets the reference corrected, and a restart
    // does not rewrite every correct nodeRef; a readiness flip still bumps lastUpdated as the reference does.
    if (refCurrent && (known === undefined || known === ready)) {
      this.readiness.set(name, ready);
      return;
    }
    const lastUpdated = new Date(this.d.clock.now()).toISOString().replace(/\.\d{3}Z$/, 'Z');
    // A flip within the second of the last write would write nothing new (lastUpdated has whole seconds).
    if (refCurrent && machine.status?.lastUpdated === lastUpdated) {
      this.readiness.set(name, ready);
      return;
    }
    const written = await this.d.client.patch(
      Machines,
      { namespace: machine.metadata.namespace ?? '', name: machine.metadata.name ?? '' },
      {
        type: 'merge',
        body: {
          status: {
            nodeRef: { kind: 'Node', name, uid: node.metadata.uid },
            lastUpdated,
          },
        },
      },
      { subresource: 'status', signal },
    );
    this.written.record(machineKey(machine), written.metadata.resourceVersion);
    this.readiness.set(name, ready);
  }
}
