// Stands in for the kubelets of an emulated cloud: registers a Node for every running instance,
// reports Ready=Unknown while an instance is stopping, stopped or booting again (as when a kubelet stops
// posting status) and Ready=True once it runs again, and removes the Node only once the instance is being
// deleted or gone: on a cluster a stopped instance's Node stays through a stop and start. Tests can force a
// node's Ready status. A Node follows its instance: when a new instance comes up under a name an earlier one
// used (a reused private IP), the old Node is replaced, as a new kubelet would re-register it. A Node object deleted while its instance runs is
// registered again at the kubelet's next heartbeat, as a kubelet whose Node went away does. Nodes report what a
// kubelet reports (nodeInfo, capacity and allocatable from the instance type), and Pods bound to a Ready Node
// are run (see SimulatedPods), their claims' volumes attached while they run (see SimulatedVolumes).
import type { Node, NodeCondition } from '../../lib/apis/core.js';
import { isAlreadyExists, isConflict, isNotFound } from '../../lib/client/errors.js';
import type { KubeClient } from '../../lib/client/kube-client.js';
import { Nodes } from '../../lib/client/resources.js';
import type { Clock, TimerHandle } from '../../lib/base/clock.js';
import { RealClock } from '../../lib/base/real-clock.js';
import { isTerminated, type EmulatedInstance, type InstanceView } from './instance-view.js';
import { managedByLabel, newNode } from './simulated-node.js';
import { SimulatedPods } from './simulated-pods.js';
import { SimulatedVolumes } from './simulated-volumes.js';

export type ReadyStatus = NodeCondition['status'];

export interface KubeletSimulatorOptions {
  client: KubeClient;
  view: InstanceView;
  /** For condition timestamps; default the wall clock. */
  clock?: Clock;
  /** Extra labels put on every node (e.g. a worker role). */
  nodeLabels?: Record<string, string>;
  /**
   * How often the kubelets check in; at each heartbeat a Node object deleted meanwhile is registered again
   * while its instance runs. Default 10 s, the kubelet's node status update frequency; 0 turns it off.
   */
  heartbeatMs?: number;
  /** Run the Pods bound to Ready Nodes (needs a client that can watch); default true. */
  runPods?: boolean;
  /** The kubelet version Nodes report; default DefaultKubeletVersion. */
  kubeletVersion?: string;
  /**
   * How long detaching a volume takes once no running Pod uses it (the attach/detach controller's part, see
   * SimulatedVolumes; on with runPods); default 0.
   */
  volumeDetachDelayMs?: number;
}

export const DefaultKubeletHeartbeatMs = 10_000;

/** The Kubernetes version of the OpenShift release these simulated kubelets stand in for. */
export const DefaultKubeletVersion = 'v1.31.6';

export class KubeletSimulator {
  private readonly overrides = new Map<string, ReadyStatus>();
  private readonly registered = new Set<string>();
  /** What we last wrote per node, so a change to one instance does not cost a GET for every node. */
  private readonly written = new Map<string, string>();
  /** The providerID of the instance each node name last belonged to, so a new owner resets the name's state. */
  private readonly ownerOf = new Map<string, string>();
  /** Set by start(): Nodes left from before a restart are adopted or removed on the next sync. */
  private adoptPending = false;
  private unsubscribe?: () => void;
  private running: Promise<void> = Promise.resolve();
  private dirty = false;
  private syncing = false;
  private stopped = true;
  private lastError?: unknown;
  private heartbeat?: TimerHandle;
  /** Set by a heartbeat: the next sync looks for registered Nodes whose object was deleted. */
  private heartbeatDue = false;
  private readonly clock: Clock;
  /** Ready status and InternalIP of each registered Node, for the Pods' kubelets. */
  private readonly nodeState = new Map<string, { ready: ReadyStatus; hostIP?: string }>();
  private pods?: SimulatedPods;
  private volumes?: SimulatedVolumes;

  constructor(private readonly opts: KubeletSimulatorOptions) {
    this.clock = opts.clock ?? new RealClock();
  }

  /** Starts following the view; resolves after the first sync. stop() or the signal ends it. */
  async start(signal?: AbortSignal): Promise<void> {
    this.stopped = false;
    this.adoptPending = true;
    this.unsubscribe = this.opts.view.onChange(() => this.kick());
    signal?.addEventListener('abort', () => void this.stop(), { once: true });
    this.scheduleHeartbeat();
    this.kick();
    await this.idle();
    if (this.opts.runPods !== false && !this.pods) {
      this.pods = new SimulatedPods({
        client: this.opts.client,
        clock: this.clock,
        runsPodsOn: (name) => this.registered.has(name) && this.nodeState.get(name)?.ready === 'True',
        hostIPOf: (name) => this.nodeState.get(name)?.hostIP,
      });
      await this.pods.start();
      this.volumes = new SimulatedVolumes({
        client: this.opts.client,
        clock: this.clock,
        runsPodsOn: (name) => this.registered.has(name),
        detachDelayMs: this.opts.volumeDetachDelayMs,
      });
      await this.volumes.start();
    }
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.heartbeat?.cancel();
    this.heartbeat = undefined;
    this.unsubscribe?.();
    this.unsubscribe = undefined;
    this.pods?.close();
    this.pods = undefined;
    this.volumes?.close();
    this.volumes = undefined;
    await this.running;
  }

  /** Resolves once every change seen so far has been written. */
  async idle(): Promise<void> {
    while (this.syncing) await this.running;
  }

  /** The last error a sync (or a Pod status write) hit (syncs retry on the next change or kick). */
  get error(): unknown {
    return this.lastError ?? this.pods?.error ?? this.volumes?.error;
  }

  /** Forces the Ready condition of a node until cleared with `undefined`. */
  async setNodeReady(nodeName: string, status: ReadyStatus | undefined): Promise<void> {
    if (status === undefined) this.overrides.delete(nodeName);
    else this.overrides.set(nodeName, status);
    this.written.delete(nodeName);
    this.kick();
    await this.idle();
  }

  /** Re-reads every node and re-syncs now (e.g. after a test deleted or edited a node by hand). */
  async resync(): Promise<void> {
    this.written.clear();
    this.kick();
    await this.idle();
  }

  private scheduleHeartbeat(): void {
    const every = this.opts.heartbeatMs ?? DefaultKubeletHeartbeatMs;
    if (every <= 0 || this.stopped) return;
    this.heartbeat = this.clock.setTimeout(() => {
      this.heartbeatDue = true;
      this.kick();
      this.scheduleHeartbeat();
    }, every);
  }

  private kick(): void {
    if (this.stopped) return;
    this.dirty = true;
    if (this.syncing) return;
    this.syncing = true;
    this.running = (async () => {
      try {
        while (this.dirty && !this.stopped) {
          this.dirty = false;
          try {
            await this.sync();
            this.lastError = undefined;
          } catch (err) {
            this.lastError = err;
          }
        }
      } finally {
        this.syncing = false;
      }
    })();
  }

  private async sync(): Promise<void> {
    const instances = this.opts.view.listInstances();
    if (this.adoptPending) {
      await this.adoptExisting(instances);
      this.adoptPending = false;
    }
    if (this.heartbeatDue) {
      this.heartbeatDue = false;
      await this.forgetDeletedNodes();
    }
    const live = new Set<string>();
    for (const inst of nodeOwners(instances)) {
      live.add(inst.nodeName);
      const owner = this.ownerOf.get(inst.nodeName);
      const newOwner = owner !== undefined && owner !== inst.providerID;
      if (newOwner) {
        // A different instance now holds the name: the old one's forced status and Node are history.
        this.overrides.delete(inst.nodeName);
        this.written.delete(inst.nodeName);
      }
      this.ownerOf.set(inst.nodeName, inst.providerID);
      const ready: ReadyStatus = this.overrides.get(inst.nodeName) ?? (inst.state === 'running' ? 'True' : 'Unknown');
      if (inst.state !== 'running' && (newOwner || !this.registered.has(inst.nodeName))) {
        // Only a running instance's kubelet registers a Node; until then a Node left under the name by an
        // earlier instance goes, as that instance is gone.
        if (this.registered.has(inst.nodeName)) await this.forget(inst.nodeName);
        continue;
      }
      const fingerprint = `${ready}|${JSON.stringify(inst.addresses)}|${inst.providerID}`;
      if (this.written.get(inst.nodeName) === fingerprint) continue;
      await this.ensureNode(inst, ready);
      this.written.set(inst.nodeName, fingerprint);
    }
    for (const name of [...this.registered]) if (!live.has(name)) await this.forget(name);
  }

  /** Deletes a registered Node whose instance is gone, and everything kept about it. */
  private async forget(name: string): Promise<void> {
    await this.deleteNode(name);
    this.registered.delete(name);
    this.written.delete(name);
    this.overrides.delete(name);
    this.ownerOf.delete(name);
    this.nodeState.delete(name);
  }

  /**
   * Instances may have ended while nobody watched (the environment was stopped): remove our Nodes whose
   * instance is no longer live, and take over the rest so that a later stop or termination updates them.
   */
  private async adoptExisting(instances: EmulatedInstance[]): Promise<void> {
    const live = new Map<string, EmulatedInstance>();
    for (const inst of instances) if (!isTerminated(inst.state)) live.set(inst.providerID, inst);
    const { items } = await this.opts.client.list(Nodes, { labelSelector: managedByLabel });
    for (const node of items) {
      const name = node.metadata.name;
      if (!name || node.metadata.labels?.[managedByLabel] === undefined) continue;
      const inst = live.get(node.spec?.providerID ?? '');
      if (inst && inst.nodeName === name) {
        this.registered.add(name);
        this.ownerOf.set(name, inst.providerID);
        continue;
      }
      await this.deleteNode(name, node.metadata.uid);
    }
  }

  /**
   * One list for all kubelets: a registered Node whose object is gone is forgotten, so the sync below
   * registers it again if its instance runs (a stopped instance's kubelet is not there to do so).
   */
  private async forgetDeletedNodes(): Promise<void> {
    if (this.registered.size === 0) return;
    const { items } = await this.opts.client.list(Nodes, { labelSelector: managedByLabel });
    const present = new Set(items.map((n) => n.metadata.name));
    for (const name of [...this.registered]) {
      if (present.has(name)) continue;
      this.registered.delete(name);
      this.written.delete(name);
    }
  }

  private async deleteNode(name: string, uid?: string): Promise<void> {
    try {
      await this.opts.client.delete(Nodes, { name }, uid ? { preconditions: { uid } } : undefined);
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
  }

  private now(): string {
    const ms = this.clock.now();
    return new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
  }

  private async ensureNode(inst: EmulatedInstance, ready: ReadyStatus): Promise<void> {
    const { client } = this.opts;
    let node: Node | undefined;
    try {
      node = await client.get(Nodes, { name: inst.nodeName });
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
    if (node && node.spec?.providerID !== inst.providerID) {
      // The Node was registered by an earlier instance with the same name; the new kubelet starts afresh.
      await this.deleteNode(inst.nodeName, node.metadata.uid);
      node = undefined;
    }
    if (!node) {
      // Counted as registered from the moment it is asked for: a create whose reply is lost may still have
      // stored the Node, and only a registered Node is removed when its instance ends. Removing one that was
      // never stored finds nothing, and a heartbeat forgets a name the API server does not have.
      this.registered.add(inst.nodeName);
      try {
        node = await client.create(
          Nodes,
          newNode(inst, {
            nodeLabels: this.opts.nodeLabels,
            kubeletVersion: this.opts.kubeletVersion ?? DefaultKubeletVersion,
          }),
        );
      } catch (err) {
        if (!isAlreadyExists(err)) throw err;
        node = await client.get(Nodes, { name: inst.nodeName });
      }
    }
    this.registered.add(inst.nodeName);
    this.nodeState.set(inst.nodeName, { ready, hostIP: inst.addresses.find((a) => a.type === 'InternalIP')?.address });
    if (ready === 'True') this.pods?.nodeReady(inst.nodeName);
    // Other writers (a termination handler's Terminating condition) patch the same condition list: the write is
    // made at the version read, and read again on a conflict, so theirs is never overwritten.
    for (let attempt = 0; ; attempt++) {
      try {
        await this.writeReady(node, inst, ready);
        return;
      } catch (err) {
        if (!isConflict(err) || attempt >= 4) throw err;
        node = await client.get(Nodes, { name: inst.nodeName });
      }
    }
  }

  private async writeReady(node: Node, inst: EmulatedInstance, ready: ReadyStatus): Promise<void> {
    const current = node.status?.conditions?.find((c) => c.type === 'Ready');
    if (current?.status === ready && sameAddresses(node, inst)) return;
    const now = this.now();
    const condition: NodeCondition = {
      type: 'Ready',
      status: ready,
      reason: ready === 'True' ? 'KubeletReady' : ready === 'Unknown' ? 'NodeStatusUnknown' : 'KubeletNotReady',
      message:
        ready === 'True'
          ? 'kubelet is posting ready status'
          : ready === 'Unknown'
            ? 'Kubelet stopped posting node status.'
            : 'kubelet is not ready',
      lastHeartbeatTime: now,
      lastTransitionTime: current?.status === ready ? (current.lastTransitionTime ?? now) : now,
    };
    const others = (node.status?.conditions ?? []).filter((c) => c.type !== 'Ready');
    await this.opts.client.patch(
      Nodes,
      { name: inst.nodeName },
      { type: 'merge', body: { status: { conditions: [...others, condition], addresses: inst.addresses } } },
      { subresource: 'status', resourceVersion: node.metadata.resourceVersion },
    );
  }
}

/**
 * The instance each node name belongs to, among those that have (or may get) a Node: every instance that is
 * not being terminated. A stopped instance, or one booting again after a stop, keeps its Node (its kubelet
 * posts Ready again once it runs); the cloud's node lifecycle controller does not delete a shut-down Node.
 * Two instances can share a name when a freed private IP is reused; the running one, else the latest listed,
 * wins.
 */
function nodeOwners(instances: EmulatedInstance[]): EmulatedInstance[] {
  const byName = new Map<string, EmulatedInstance>();
  for (const inst of instances) {
    if (isTerminated(inst.state)) continue;
    const seen = byName.get(inst.nodeName);
    if (seen?.state === 'running' && inst.state !== 'running') continue;
    byName.set(inst.nodeName, inst);
  }
  return [...byName.values()];
}

function sameAddresses(node: Node, inst: EmulatedInstance): boolean {
  return JSON.stringify(node.status?.addresses ?? []) === JSON.stringify(inst.addresses);
}
