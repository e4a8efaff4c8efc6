// Actuator contexts for tests that drive an actuator the way the machine controller does across reconciles.
import type { ActuatorContext } from '../../lib/machine/actuator.js';
import { ReconcileNotes } from '../../lib/machine/reconcile-notes.js';

/**
 * The context of the reconcile that `previous`'s own write triggers (the Machine unchanged since, moments
 * later): it carries what `previous` noted, as the machine controller's CarriedNotes would hand it on.
 */
export function echoContext<C extends ActuatorContext>(previous: ActuatorContext, fresh: C): C {
  fresh.notes = new ReconcileNotes(previous.notes?.snapshot());
  return fresh;
}
