// Wiring: NodeLink watches Nodes (enqueue the node) and Machines (enqueue the node they map to, and the
// node their nodeRef names, so a replaced node's machine is re-linked), each through a predicate (nodelink-watch).
import type { KubeObject } from '../apis/meta.js';
import type { Machine } from '../apis/machine-types.js';
import { Machines, Nodes } from '../client/resources.js';
import type { ControllerManager, Informer, Request } from '../runtime/types.js';
import { findNodeForMachine, indexMachines, indexNodes, NodeLinkReconciler } from './nodelink-reconciler.js';
import { machineWatchPredicate, nodeWatchPredicate } from './nodelink-watch.js';

export const NodeLinkControllerName = 'nodelink-controller';

export interface NodeLinkControllerOptions {
  maxConcurrentReconciles?: number;
  reconcileTimeoutMs?: number;
  rateLimiter?: { baseDelayMs?: number; maxDelayMs?: number };
}

export function addNodeLinkController(mgr: ControllerManager, opts: NodeLinkControllerOptions = {}): void {
  const nodes = mgr.informer(Nodes);
  const machines = mgr.informer(Machines);
  indexNodes(nodes);
  indexMachines(machines);
  const log = mgr.logger.child({ controller: NodeLinkControllerName });

  const mapMachine = (obj: KubeObject): Request[] => {
    const machine = obj as Machine;
    if (machine.metadata.deletionTimestamp) return [];
    const requests: Request[] = [];
    try {
      const node = findNodeForMachine(machine, nodes, machines);
      if (node?.metadata.name) requests.push({ name: node.metadata.name });
    } catch (err) {
      // Ambiguous: never guess. The nodes' own reconciles report the error with backoff.
      log.warn('cannot map machine to a node', {
        machine: `${machine.metadata.namespace}/${machine.metadata.name}`,
        error: (err as Error).message,
      });
    }
    const refName = machine.status?.nodeRef?.name;
    if (refName && !requests.some((r) => r.name === refName)) requests.push({ name: refName });
    return requests;
  };

  const reconciler = new NodeLinkReconciler({ client: mgr.client, nodes, machines, clock: mgr.clock });
  const settled = (obj: KubeObject, old: KubeObject): boolean => reconciler.isSettled(obj, old);
  mgr.addController({
    name: NodeLinkControllerName,
    reconciler,
    watches: [
      { informer: nodes as unknown as Informer<KubeObject>, enqueue: 'self', predicate: nodeWatchPredicate(settled) },
      {
        informer: machines as unknown as Informer<KubeObject>,
        enqueue: 'map',
        map: mapMachine,
        predicate: machineWatchPredicate(settled),
      },
    ],
    // A Node's resync just after its reconcile (a scale-up lasting several resync periods) brings nothing new.
    skipResyncWithinMs: mgr.syncPeriodMs !== undefined ? mgr.syncPeriodMs / 2 : undefined,
    maxConcurrentReconciles: opts.maxConcurrentReconciles,
    reconcileTimeoutMs: opts.reconcileTimeoutMs,
    rateLimiter: opts.rateLimiter,
  });
}
