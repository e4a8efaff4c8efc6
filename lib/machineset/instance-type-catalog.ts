// What scale-from-zero needs to know about a provider's instance type.
import type { MachineSet } from '../apis/machine-types.js';
import type { Logger } from '../base/logger.js';

export type Architecture = 'amd64' | 'arm64' | 's390x' | 'ppc64le';

export interface InstanceTypeInfo {
  /** The provider's name for it: "m6i.xlarge", "n2-standard-4", "bx2-4x16". */
  name: string;
  vCPU: number;
  /** Integer MiB. */
  memoryMiB: number;
  gpuCount: number;
  /** The extended resource name of the GPUs, e.g. "nvidia.com/gpu"; unset when gpuCount is 0. */
  gpuType?: string;
  architecture: Architecture;
}

export interface InstanceTypeCatalog {
  /**
   * The instance type the MachineSet's template asks for. Resolves undefined when the cloud does not know
   * the type; throws InvalidMachineConfigurationError for an invalid providerSpec; other errors are retried.
   */
  lookup(machineSet: MachineSet, ctx: { signal: AbortSignal; log: Logger }): Promise<InstanceTypeInfo | undefined>;
}
