// Which Node and Machine events concern NodeLink. It reads only a few fields of each (identity, providerID,
// InternalIPs, readiness, the metadata it copies and nodeRef); a write that changes none of them (a kubelet's
// heartbeat, a machine controller's phase or condition) costs no reconcile, nor does the echo of NodeLink's own
// write, nor a Machine's resync (its Node's resync looks at the same pair). So a Machine costs a constant number of
// reconciles however many others share the cluster.
import type { Node } from '../apis/core.js';
import type { Machine } from '../apis/machine-types.js';
import type { KubeObject } from '../apis/meta.js';
import { deepEqual } from '../machine/merge-patch.js';
import { isResync, type InformerEvent, type WatchPredicate } from '../runtime/types.js';
import { internalIPs } from './nodelink-reconciler.js';

/** What NodeLink reads of a Node. */
export function nodeView(node: Node): unknown {
  return [
    node.metadata.uid,
    node.metadata.deletionTimestamp,
    node.spec?.providerID,
    node.spec?.taints ?? [],
    internalIPs(node.status?.addresses),
    node.status?.conditions?.find((c) => c.type === 'Ready')?.status,
    node.metadata.labels ?? {},
    node.metadata.annotations ?? {},
  ];
}

/** What NodeLink reads of a Machine. */
export function machineView(machine: Machine): unknown {
  const ref = machine.status?.nodeRef;
  return [
    machine.metadata.uid,
    machine.metadata.deletionTimestamp,
    machine.spec?.providerID,
    internalIPs(machine.status?.addresses),
    machine.spec?.metadata?.labels ?? {},
    machine.spec?.metadata?.annotations ?? {},
    machine.spec?.taints ?? [],
    [ref?.kind, ref?.name, ref?.uid],
  ];
}

/** Tells whether an update from `old` to `obj` is exactly NodeLink's own last write of the object. */
export type OwnEcho = (obj: KubeObject, old: KubeObject) => boolean;

function changed(view: (o: never) => unknown, ownEcho: OwnEcho): WatchPredicate {
  return (event: InformerEvent, obj: KubeObject, old?: KubeObject): boolean => {
    if (event !== 'update' || isResync(event, obj, old) || old === undefined) return true;
    if (ownEcho(obj, old)) return false;
    return !deepEqual(view(old as never), view(obj as never));
  };
}

/** Nodes: every add, delete and resync; an update only when something NodeLink reads changed. */
export const nodeWatchPredicate = (ownEcho: OwnEcho): WatchPredicate => changed(nodeView, ownEcho);

/** Machines: as Nodes, but never on resync (the Node's own resync reconciles the pair). */
export function machineWatchPredicate(ownEcho: OwnEcho): WatchPredicate {
  const update = changed(machineView, ownEcho);
  return (event, obj, old) => !isResync(event, obj, old) && update(event, obj, old);
}
