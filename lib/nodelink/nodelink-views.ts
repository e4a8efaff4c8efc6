// What NodeLink reads of a Node and of a Machine: two objects with equal views look the same to it.
import type { Node } from '../apis/core.js';
import type { Machine } from '../apis/machine-types.js';

export const internalIPs = (addresses: Array<{ type: string; address: string }> | undefined): string[] =>
  (addresses ?? []).filter((a) => a.type === 'InternalIP' && a.address).map((a) => a.address);

/** What NodeLink reads of a Node. */
export function nodeView(node: Node): unknown[] {
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
export function machineView(machine: Machine): unknown[] {
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
