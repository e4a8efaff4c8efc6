// What scale-from-zero needs to know about a provider's instance type.
import type { MachineSet } from '../apis/machine-types.js';
import type { Clock } from '../base/clock.js';
import type { Logger } from '../base/logger.js';
import type { KubeClient } from '../client/kube-client.js';

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

/** What a catalog's look-up is given. */
export interface InstanceTypeLookupContext {
  signal: AbortSignal;
  log: Logger;
}

/** How long a cloud's answer about its instance types is kept: they change rarely, and scale-from-zero asks often. */
export const INSTANCE_TYPE_CACHE_TTL_MS = 24 * 3_600_000;

/** What a cloud's catalog is built with, beside its cloud's clients. */
export interface CloudInstanceTypeCatalogOptions {
  /** Reads the credentials Secret the MachineSet's providerSpec names. */
  client: KubeClient;
  clock: Clock;
  /** How long answers are kept (default INSTANCE_TYPE_CACHE_TTL_MS). */
  ttlMs?: number;
}

export interface InstanceTypeCatalog {
  /**
   * The instance type the MachineSet's template asks for. Resolves undefined when the cloud does not know
   * the type; throws InvalidMachineConfigurationError for an invalid providerSpec; other errors are retried.
   */
  lookup(machineSet: MachineSet, ctx: InstanceTypeLookupContext): Promise<InstanceTypeInfo | undefined>;
  /** Whether a lookup's error is the cloud refusing the credentials: the Warning event then names the Secret. */
  refusesCredentials?(err: unknown): boolean;
}
