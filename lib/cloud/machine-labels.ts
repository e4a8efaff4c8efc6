// The labels every provider reads from a Machine and writes onto it from its instance: the cluster id it was
// made for, and where and as what its instance runs (the autoscaler and users select Machines by them).
import {
  MachineAZLabel,
  MachineClusterIDLabel,
  MachineInstanceTypeLabel,
  MachineRegionLabel,
} from '../apis/constants.js';
import type { Machine } from '../apis/machine-types.js';
import { InvalidMachineConfigurationError } from '../apis/errors.js';

/** The region, zone and instance-type labels of an instance's placement; a value not known (undefined) is left out. */
export function placementLabels(p: { region?: string; zone?: string; instanceType?: string }): Record<string, string> {
  const labels: Record<string, string> = {};
  if (p.region !== undefined) labels[MachineRegionLabel] = p.region;
  if (p.zone !== undefined) labels[MachineAZLabel] = p.zone;
  if (p.instanceType !== undefined) labels[MachineInstanceTypeLabel] = p.instanceType;
  return labels;
}

/** The Machine's cluster label; a Machine without one is InvalidConfiguration naming the label (`context` leads the message). */
export function machineClusterId(machine: Machine, context?: string): string {
  const id = machine.metadata.labels?.[MachineClusterIDLabel];
  if (!id) {
    throw new InvalidMachineConfigurationError(
      `${context ? `${context}: ` : ''}machine is missing "${MachineClusterIDLabel}" label`,
      { field: `metadata.labels[${MachineClusterIDLabel}]` },
    );
  }
  return id;
}
