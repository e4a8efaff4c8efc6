// The region's GPU quota, checked before an insert that asks for GPUs, as the reference provider does: GCE
// would accept the insert and refuse it in its operation, after the request has queued; reading the quota
// first says why at once. A shortfall is a capacity refusal (QUOTA_EXCEEDED), so the machine controller
// treats it like a stock-out: retried within the capacity window, then the Machine fails.
import { InsufficientCapacityError } from '../../lib/index.js';
import type { CallOptions, MachineType, Region } from './compute-api.js';
import type { GCPMachineProviderSpec } from './provider-spec.js';

/** The region quota metric each accelerator type counts against (preemptible and Spot use PREEMPTIBLE_<metric>). */
export const GPU_QUOTA_METRICS: Readonly<Record<string, string>> = {
  'nvidia-tesla-k80': 'NVIDIA_K80_GPUS',
  'nvidia-tesla-p100': 'NVIDIA_P100_GPUS',
  'nvidia-tesla-v100': 'NVIDIA_V100_GPUS',
  'nvidia-tesla-a100': 'NVIDIA_A100_GPUS',
  'nvidia-tesla-p4': 'NVIDIA_P4_GPUS',
  'nvidia-tesla-t4': 'NVIDIA_T4_GPUS',
  'nvidia-a100-80gb': 'NVIDIA_A100_80GB_GPUS',
  'nvidia-l4': 'NVIDIA_L4_GPUS',
  'nvidia-h100-80gb': 'NVIDIA_H100_GPUS',
  'nvidia-h100-mega-80gb': 'NVIDIA_H100_MEGA_GPUS',
};

/** Families whose machine types come with their GPUs built in. */
const BUILT_IN_GPU_FAMILIES = ['a2-', 'a3-', 'g2-'];

export interface GpuRequest {
  type: string;
  count: number;
}

/** Whether the machine type has to be read to know its GPUs (attached ones are in the spec). */
export const hasBuiltInGpus = (machineType: string): boolean =>
  BUILT_IN_GPU_FAMILIES.some((p) => machineType.startsWith(p));

/** The GPUs an instance of this spec asks for: the attached ones, else those its machine type has built in. */
export function gpuRequestOf(spec: GCPMachineProviderSpec, machineType?: MachineType): GpuRequest | undefined {
  const attached = spec.gpus?.[0];
  if (attached && attached.count > 0) return { type: attached.type, count: attached.count };
  const builtIn = machineType?.accelerators?.[0];
  if (builtIn?.guestAcceleratorType && (builtIn.guestAcceleratorCount ?? 0) > 0)
    return { type: builtIn.guestAcceleratorType, count: builtIn.guestAcceleratorCount ?? 0 };
  return undefined;
}

export interface QuotaShortfall {
  metric: string;
  usage: number;
  limit: number;
}

/**
 * The quota the request would exceed, or undefined. The first quota of the metric decides; a region that
 * lists no such quota (or none at all) does not limit it, as in the reference.
 */
export function gpuQuotaShortfall(
  region: Region,
  request: GpuRequest,
  interruptible: boolean,
): QuotaShortfall | undefined {
  const base = GPU_QUOTA_METRICS[request.type];
  if (!base) return undefined;
  const metric = interruptible ? `PREEMPTIBLE_${base}` : base;
  const quota = (region.quotas ?? []).find((q) => q.metric === metric);
  if (!quota) return undefined;
  const usage = Number(quota.usage ?? 0);
  const limit = Number(quota.limit ?? 0);
  return usage + request.count > limit ? { metric, usage, limit } : undefined;
}

export interface GpuQuotaReader {
  getMachineType(project: string, zone: string, machineType: string, opts?: CallOptions): Promise<MachineType>;
  getRegion(project: string, region: string, opts?: CallOptions): Promise<Region>;
}

/** Throws InsufficientCapacityError (QUOTA_EXCEEDED) when the region has too little GPU quota left for this instance. */
export async function checkGpuQuota(
  compute: GpuQuotaReader,
  project: string,
  spec: GCPMachineProviderSpec,
  signal?: AbortSignal,
): Promise<void> {
  const needsType = !spec.gpus?.length && hasBuiltInGpus(spec.machineType);
  if (!spec.gpus?.length && !needsType) return;
  const machineType = needsType
    ? await compute.getMachineType(project, spec.zone, spec.machineType, { signal })
    : undefined;
  const request = gpuRequestOf(spec, machineType);
  if (!request) return;
  const region = await compute.getRegion(project, spec.region || regionOfZone(spec.zone), { signal });
  const interruptible = spec.preemptible === true || spec.provisioningModel === 'Spot';
  const short = gpuQuotaShortfall(region, request, interruptible);
  if (short) {
    throw new InsufficientCapacityError(
      'QUOTA_EXCEEDED',
      spec.zone,
      spec.machineType,
      `Quota exceeded. Metric: ${short.metric}. Usage: ${short.usage}. Limit: ${short.limit}. (${request.count} × ${request.type} asked for in region ${region.name ?? spec.region})`,
    );
  }
}

/** "us-central1-a" → "us-central1". */
const regionOfZone = (zone: string): string => zone.slice(0, Math.max(0, zone.lastIndexOf('-')));
