// Questions controllers ask about a Machine, answered the way the reference answers them.
import { PhaseFailed } from './constants.js';
import type { Machine } from './machine-types.js';

/** Provisioned = the cloud told us something: addresses reported or a providerID set. */
export function isMachineProvisioned(machine: Machine): boolean {
  return (machine.status?.addresses?.length ?? 0) > 0 || !!machine.spec?.providerID;
}

/** Whether the machine is linked to a Node (status.nodeRef.name set). */
export function machineHasNode(machine: Machine): boolean {
  return !!machine.status?.nodeRef?.name;
}

/** Whether the machine is in the terminal Failed phase. */
export function isMachineFailed(machine: Machine): boolean {
  return machine.status?.phase === PhaseFailed;
}
