// The GCP part of capacity fallback: which fields a `fallbacks` entry may set (the machine type, the zone, the
// provisioning model, and the GPUs a machine type needs), how an entry's market replaces the primary's, and what
// capacity an entry asks for. The list's shape, merge and field paths, and the launch order, are lib's.
import type { CapacityChoice, FallbackDecoding, FallbackFieldRules } from '../../lib/index.js';
import { architectureOf } from './machine-type-architecture.js';
import type { GCPMachineProviderSpec } from './provider-spec.js';

export const GCP_FALLBACK_FIELDS: FallbackFieldRules = {
  fields: ['machineType', 'zone', 'provisioningModel', 'preemptible', 'gpus'],
};

/**
 * An entry's market replaces the primary's whole: `provisioningModel: Spot` drops a preemptible primary's flag,
 * `preemptible: true` a Spot primary's model, and `preemptible: false` alone makes a Spot primary standard. An
 * entry with GPUs gets the Terminate maintenance policy GPUs require, unless the primary names a policy.
 */
export function adjustGcpEntry(merged: Record<string, unknown>, entry: Record<string, unknown>): void {
  const setsModel = Object.hasOwn(entry, 'provisioningModel');
  if (entry.provisioningModel === 'Spot' && !Object.hasOwn(entry, 'preemptible')) delete merged.preemptible;
  if (Object.hasOwn(entry, 'preemptible') && !setsModel) delete merged.provisioningModel;
  const gpus = entry.gpus;
  if (Array.isArray(gpus) && gpus.length > 0 && (merged.onHostMaintenance ?? '') === '')
    merged.onHostMaintenance = 'Terminate';
}

/** Whether a spec asks for Spot or preemptible capacity. */
export const isSpotSpec = (s: GCPMachineProviderSpec): boolean =>
  s.provisioningModel === 'Spot' || s.preemptible === true;

/** What capacity a spec asks GCE for. */
export const gcpCapacityChoice = (s: GCPMachineProviderSpec): CapacityChoice => ({
  instanceType: s.machineType,
  zone: s.zone,
  market: isSpotSpec(s) ? 'spot' : 'on-demand',
});

/** How the fallbacks list reads for these specs (lib's checkWithFallbacks decodes each entry with the provider's check). */
export const GCP_FALLBACKS: Omit<FallbackDecoding<GCPMachineProviderSpec>, 'decode'> = {
  rules: GCP_FALLBACK_FIELDS,
  adjust: adjustGcpEntry,
  typeOf: (s) => ({ field: 'machineType', name: s.machineType, architecture: architectureOf(s.machineType) }),
};
