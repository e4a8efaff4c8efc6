// The annotations the cluster-autoscaler reads to build a template node for a MachineSet at zero replicas.
// We write both key sets, because which one is read depends on the autoscaler build: the OpenShift keys the
// provider controllers write (vCPU, integer MiB, GPU count, arch label) and the upstream clusterapi keys
// (Quantities), so neither build ends up with "no expansion options".
// Reference: https://github.com/kubernetes/autoscaler/tree/master/cluster-autoscaler/cloudprovider/clusterapi
import {
  ArchLabel,
  CapacityCPUAnnotation,
  CapacityGPUCountAnnotation,
  CapacityGPUTypeAnnotation,
  CapacityLabelsAnnotation,
  CapacityMemoryAnnotation,
  GPUAnnotation,
  MemoryMbAnnotation,
  VCPUAnnotation,
} from '../apis/constants.js';
import type { InstanceTypeInfo } from './instance-type-catalog.js';

/** The resource the OpenShift autoscaler assumes for any GPU count. */
export const DEFAULT_GPU_TYPE = 'nvidia.com/gpu';

export class InvalidInstanceTypeInfoError extends Error {
  override readonly name = 'InvalidInstanceTypeInfoError';
}

function requireCount(info: InstanceTypeInfo, field: 'vCPU' | 'memoryMiB' | 'gpuCount'): number {
  const v = info[field];
  if (!Number.isInteger(v) || v < 0) {
    throw new InvalidInstanceTypeInfoError(
      `instance type ${info.name}: ${field} must be a non-negative integer, got ${String(v)}`,
    );
  }
  return v;
}

/**
 * Merges comma-separated key=value lists; a key in a later list wins. Entries that are not exactly one
 * `key=value` are dropped, as the reference does. The result is sorted, so it is stable across passes.
 */
export function mergeCommaSeparatedKeyValuePairs(...lists: Array<string | undefined>): string {
  const merged = new Map<string, string>();
  for (const list of lists) {
    for (const entry of (list ?? '').split(',')) {
      const parts = entry.split('=');
      if (parts.length !== 2) continue;
      merged.set(parts[0]!, parts[1]!);
    }
  }
  return [...merged.entries()]
    .map(([k, v]) => `${k}=${v}`)
    .sort()
    .join(',');
}

/**
 * What a MachineSet whose providerSpec has capacity fallbacks publishes: the smallest vCPU, memory and GPU count
 * across its entries (the primary first), each taken on its own, since the autoscaler must never expect more of
 * a new Machine than the entry it lands on gives. Name, architecture (every entry shares it) and GPU type are
 * the primary's. Undefined when any entry's type is unknown: a guess could promise too much.
 */
export function smallestAcross(entries: ReadonlyArray<InstanceTypeInfo | undefined>): InstanceTypeInfo | undefined {
  const [primary, ...rest] = entries;
  if (!primary || rest.some((e) => e === undefined)) return undefined;
  const known = entries as readonly InstanceTypeInfo[];
  const out: InstanceTypeInfo = {
    ...primary,
    vCPU: Math.min(...known.map((e) => e.vCPU)),
    memoryMiB: Math.min(...known.map((e) => e.memoryMiB)),
    gpuCount: Math.min(...known.map((e) => e.gpuCount)),
  };
  if (out.gpuCount === 0) delete out.gpuType;
  return out;
}

/**
 * Every scale-from-zero annotation for `info`, given the MachineSet's current annotations. The arch label is
 * merged under whatever labels are already there (a label the user set, even kubernetes.io/arch, wins).
 */
export function scaleFromZeroAnnotations(
  info: InstanceTypeInfo,
  current: Record<string, string> | undefined,
): Record<string, string> {
  const vcpu = requireCount(info, 'vCPU');
  const memoryMiB = requireCount(info, 'memoryMiB');
  const gpus = requireCount(info, 'gpuCount');
  const out: Record<string, string> = {
    [VCPUAnnotation]: String(vcpu),
    [MemoryMbAnnotation]: String(memoryMiB),
    [GPUAnnotation]: String(gpus),
    [CapacityLabelsAnnotation]: mergeCommaSeparatedKeyValuePairs(
      `${ArchLabel}=${info.architecture}`,
      current?.[CapacityLabelsAnnotation],
    ),
    [CapacityCPUAnnotation]: String(vcpu),
    // A Quantity in binary units: "16384Mi" is exactly the MiB the OpenShift key carries.
    [CapacityMemoryAnnotation]: `${memoryMiB}Mi`,
    [CapacityGPUCountAnnotation]: String(gpus),
  };
  if (gpus > 0) out[CapacityGPUTypeAnnotation] = info.gpuType || DEFAULT_GPU_TYPE;
  return out;
}

/** The entries of `desired` that differ from `current`; undefined when there is nothing to write. */
export function changedAnnotations(
  current: Record<string, string> | undefined,
  desired: Record<string, string>,
): Record<string, string> | undefined {
  const changes: Record<string, string> = {};
  for (const [k, v] of Object.entries(desired)) if (current?.[k] !== v) changes[k] = v;
  return Object.keys(changes).length > 0 ? changes : undefined;
}
