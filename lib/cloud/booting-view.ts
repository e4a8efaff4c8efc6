// Causality the cloud's read paths cannot see: once a Machine's Node has registered, its instance has
// booted. A view of the instance still booting, read before the Node appeared (a listing taken for other
// Machines moments earlier), is then outdated; recording it would cost a second write when the next read
// shows the instance running.
import type { Machine } from '../apis/machine-types.js';

/** Whether a view of the Machine's instance read earlier can still be current (see ListingSnapshot.get). */
export function viewCanBeCurrent<V>(machine: Machine, isBooting: (view: V) => boolean): (view: V) => boolean {
  const registered = !!machine.status?.nodeRef;
  return (view) => !registered || !isBooting(view);
}
