// What a booting instance is worth recording. Clouds step an instance through several booting states
// (IBM: pending → starting; GCE: PROVISIONING → STAGING); each step recorded on its own would cost the
// Machine a metadata and a status write. And once a Machine's Node has registered, its instance has booted:
// a view of it still booting, read before the Node appeared (a listing taken for other Machines moments
// earlier), is outdated, and recording it would cost a second write when the next read shows it running.
import type { Machine } from '../apis/machine-types.js';

/** Whether a view of the Machine's instance read earlier can still be current (see ListingSnapshot.get). */
export function viewCanBeCurrent<V>(machine: Machine, isBooting: (view: V) => boolean): (view: V) => boolean {
  const registered = !!machine.status?.nodeRef;
  return (view) => !registered || !isBooting(view);
}

/**
 * The state to record on the Machine: the instance's, except that a step from one booting state to another
 * keeps the booting state already recorded.
 */
export function keepBootingState(
  recorded: string | null | undefined,
  current: string,
  booting: ReadonlySet<string>,
): string {
  return recorded && booting.has(recorded) && booting.has(current) ? recorded : current;
}
