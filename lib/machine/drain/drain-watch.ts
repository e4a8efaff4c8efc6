// Which Machine events concern the drain controller. Only a Machine being deleted is ever drained, so the events
// of every other Machine (creation, status writes, the informer's resync) are dropped at the watch and cost no
// reconcile: the controller's work grows with the Machines being deleted, not with the cluster.
import { PhaseDeleting } from '../../apis/constants.js';
import type { Machine } from '../../apis/machine-types.js';
import type { KubeObject } from '../../apis/meta.js';
import type { InformerEvent } from '../../runtime/types.js';

/** A Machine the drain controller has something to look at: deleted, and marked Deleting by the machine controller. */
export function isDrainCandidate(machine: Machine): boolean {
  return machine.metadata.deletionTimestamp !== undefined && machine.status?.phase === PhaseDeleting;
}

/**
 * The drain controller's watch predicate. A Machine that goes away is still enqueued when it had been deleted,
 * so the reconcile that finds it gone forgets its drain backoff.
 */
export function drainWatchPredicate(event: InformerEvent, obj: KubeObject): boolean {
  const machine = obj as Machine;
  if (event === 'delete') return machine.metadata.deletionTimestamp !== undefined;
  return isDrainCandidate(machine);
}
