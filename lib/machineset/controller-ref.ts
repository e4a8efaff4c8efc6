// The controller ownerReference a MachineSet puts on its machines, and the reference lists it writes when it
// adopts or releases one.
import { MACHINE_API_GROUP_VERSION, type MachineSet } from '../apis/machine-types.js';
import type { KubeObject, OwnerReference } from '../apis/meta.js';

export function machineSetControllerRef(ms: MachineSet): OwnerReference {
  return {
    apiVersion: MACHINE_API_GROUP_VERSION,
    kind: 'MachineSet',
    name: ms.metadata.name ?? '',
    uid: ms.metadata.uid ?? '',
    controller: true,
    blockOwnerDeletion: true,
  };
}

/** The object's ownerReferences with the MachineSet's controller reference appended. */
export function withControllerRef(obj: KubeObject, ms: MachineSet): OwnerReference[] {
  return [...(obj.metadata.ownerReferences ?? []), machineSetControllerRef(ms)];
}

/** The object's ownerReferences without the ones pointing at this owner's UID. */
export function withoutOwnerRef(obj: KubeObject, ownerUid: string): OwnerReference[] {
  return (obj.metadata.ownerReferences ?? []).filter((r) => r.uid !== ownerUid);
}
