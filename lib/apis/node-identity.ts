// Which Node is a Machine's. A Node's name proves nothing: clouds hand a freed private IP to the next
// instance, and with it the private DNS name its kubelet registers under, so the name recorded in
// status.nodeRef may by now be the name of another Machine's Node. What does prove it is the instance
// behind the Node (its providerID) or the Node object itself (the uid NodeLink recorded in nodeRef).
import type { Node } from './core.js';
import type { Machine } from './machine-types.js';
import { normalizeProviderID } from './provider-id.js';

/** Whether two providerIDs name the same instance; an empty or unparsable one names none. */
export function sameInstance(a: string | undefined, b: string | undefined): boolean {
  const x = normalizeProviderID(a);
  return x !== undefined && x === normalizeProviderID(b);
}

/**
 * Whether `node` is provably `machine`'s Node. When both name their instance, only equal providerIDs count
 * (a nodeRef written before a link was corrected must not outvote the instances); otherwise the Node must
 * be the very object the machine's nodeRef recorded, by uid.
 */
export function isNodeOfMachine(node: Node, machine: Machine): boolean {
  const machineID = normalizeProviderID(machine.spec?.providerID);
  const nodeID = normalizeProviderID(node.spec?.providerID);
  if (machineID !== undefined && nodeID !== undefined) return machineID === nodeID;
  const refUid = machine.status?.nodeRef?.uid;
  return !!refUid && refUid === node.metadata.uid;
}

/**
 * Whether `node` provably belongs to another instance than `machine`'s: both name their instance and the
 * names differ. Weaker than the negation of isNodeOfMachine on purpose: it is for steps where skipping the
 * machine's own Node would do harm too (a drain), so only proof of a stranger stops them.
 */
export function isNodeOfAnotherInstance(node: Node, machine: Machine): boolean {
  const machineID = normalizeProviderID(machine.spec?.providerID);
  const nodeID = normalizeProviderID(node.spec?.providerID);
  return machineID !== undefined && nodeID !== undefined && machineID !== nodeID;
}
