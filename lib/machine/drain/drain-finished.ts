// When a deleted Machine's drain is over, as the drain controller records it on the Machine: Drained=True (drained
// or skipped), or Drained=False/DrainTimeout (the drain-timeout annotation ended it); and whether it still waits
// for the Node's volumes to detach (VolumesDetached=False/WaitingForVolumeDetach). Both controllers read them
// here, so that the machine controller terminates exactly when the drain controller has let go.
import {
  DrainedCondition,
  DrainTimeoutReason,
  VolumesDetachedCondition,
  WaitingForVolumeDetachReason,
} from '../../apis/constants.js';
import type { Machine } from '../../apis/machine-types.js';

export function isDrainFinished(machine: Machine): boolean {
  const c = machine.status?.conditions?.find((x) => x.type === DrainedCondition);
  return c?.status === 'True' || (c?.status === 'False' && c.reason === DrainTimeoutReason);
}

export function isWaitingForVolumes(machine: Machine): boolean {
  const c = machine.status?.conditions?.find((x) => x.type === VolumesDetachedCondition);
  return c?.status === 'False' && c.reason === WaitingForVolumeDetachReason;
}
