// The metav1.Condition list that providers keep in status.providerStatus (e.g. MachineCreation), with
// meta.SetStatusCondition's rule: lastTransitionTime moves only when the status flips.
import type { CapacityChoice } from './capacity-memory.js';

/** The capacity entry a Machine runs on (or is launching on), as its provider status records it. */
export interface CapacityEntryRecord extends CapacityChoice {
  /** 0 for the primary, i for fallbacks[i-1]. */
  index: number;
}

export interface ProviderCondition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  observedGeneration?: number;
  lastTransitionTime: string;
  reason: string;
  message: string;
}

/** Upserts `cond` into `holder.conditions`. */
export function setProviderCondition(
  holder: { conditions?: ProviderCondition[] },
  cond: Omit<ProviderCondition, 'lastTransitionTime'>,
  nowIso: string,
): void {
  const conditions = holder.conditions ?? [];
  const existing = conditions.find((c) => c.type === cond.type);
  if (!existing) {
    conditions.push({ ...cond, lastTransitionTime: nowIso });
  } else {
    if (existing.status !== cond.status) existing.lastTransitionTime = nowIso;
    existing.status = cond.status;
    existing.reason = cond.reason;
    existing.message = cond.message;
    if (cond.observedGeneration !== undefined) existing.observedGeneration = cond.observedGeneration;
  }
  holder.conditions = conditions;
}

/** Conditions read back from a decoded providerStatus: entries without a string `type` are dropped. */
export function readProviderConditions(value: unknown): ProviderCondition[] | undefined {
  if (!Array.isArray(value)) return undefined;
  return value.filter(
    (c): c is ProviderCondition =>
      typeof c === 'object' && c !== null && typeof (c as ProviderCondition).type === 'string',
  );
}

/** The fields every provider's status has (the reference's providerStatus shape). */
export interface CommonProviderStatus {
  apiVersion?: string;
  kind?: string;
  instanceId?: string | null;
  instanceState?: string | null;
  conditions?: ProviderCondition[];
  /** The capacity entry (primary or fallback) the Machine runs on or is launching on; only for specs with fallbacks. */
  capacityEntry?: CapacityEntryRecord;
}

/** The capacity entry record, read leniently (lib/machine/cloud-actuator/capacity-entries.ts writes it). */
function readCapacityEntry(v: unknown): CapacityEntryRecord | undefined {
  if (typeof v !== 'object' || v === null) return undefined;
  const r = v as Record<string, unknown>;
  if (!Number.isSafeInteger(r.index) || typeof r.instanceType !== 'string' || typeof r.zone !== 'string')
    return undefined;
  const market = r.market === 'spot' ? 'spot' : 'on-demand';
  const out: CapacityEntryRecord = { index: r.index as number, instanceType: r.instanceType, zone: r.zone, market };
  return out;
}

/**
 * Reads the common fields of a status.providerStatus leniently: it is our own output, so a malformed one is just
 * reset. `raw` is the object itself (empty for a malformed one), for the fields a provider adds.
 */
export function readCommonProviderStatus(value: unknown): {
  status: CommonProviderStatus;
  raw: Record<string, unknown>;
} {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return { status: {}, raw: {} };
  const raw = value as Record<string, unknown>;
  const status: CommonProviderStatus = {};
  if (typeof raw.apiVersion === 'string') status.apiVersion = raw.apiVersion;
  if (typeof raw.kind === 'string') status.kind = raw.kind;
  if (typeof raw.instanceId === 'string') status.instanceId = raw.instanceId;
  if (typeof raw.instanceState === 'string') status.instanceState = raw.instanceState;
  const conditions = readProviderConditions(raw.conditions);
  if (conditions) status.conditions = conditions;
  const entry = readCapacityEntry(raw.capacityEntry);
  if (entry) status.capacityEntry = entry;
  return { status, raw };
}
