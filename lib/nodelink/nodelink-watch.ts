// Which Node and Machine events concern NodeLink. It reads only a few fields of each (identity, providerID,
// InternalIPs, readiness, the metadata it copies and nodeRef); a write that changes none of them (a kubelet's
// heartbeat, a machine controller's phase or condition) costs no reconcile, nor does the echo of NodeLink's own
// write, nor a Machine's resync (its Node's resync looks at the same pair). So a Machine costs a constant number of
// reconciles however many others share the cluster.
import type { KubeObject } from '../apis/meta.js';
import { deepEqual } from '../machine/merge-patch.js';
import { isResync, type InformerEvent, type WatchPredicate } from '../runtime/types.js';
import { machineView, nodeView } from './nodelink-views.js';

/** Whether the update from `old` to `obj` brings only what NodeLink itself wrote (the echo of its own write). */
export type Settled = (obj: KubeObject, old: KubeObject) => boolean;

function changed(view: (o: never) => unknown, settled: Settled): WatchPredicate {
  return (event: InformerEvent, obj: KubeObject, old?: KubeObject): boolean => {
    if (event !== 'update' || isResync(event, obj, old) || old === undefined) return true;
    if (settled(obj, old)) return false;
    return !deepEqual(view(old as never), view(obj as never));
  };
}

/** Nodes: every add, delete and resync; an update only when something NodeLink reads changed. */
export const nodeWatchPredicate = (settled: Settled): WatchPredicate => changed(nodeView, settled);

/** Machines: as Nodes, but never on resync (the Node's own resync reconciles the pair). */
export function machineWatchPredicate(settled: Settled): WatchPredicate {
  const update = changed(machineView, settled);
  return (event, obj, old) => !isResync(event, obj, old) && update(event, obj, old);
}
