// The metav1.Condition list that providers keep in status.providerStatus (e.g. MachineCreation), with
// meta.SetStatusCondition's rule: lastTransitionTime moves only when the status flips.

export interface ProviderCondition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  observedGeneration?: number;
  lastTransitionTime: string;
  reason: string;
  message: string;
}

/** Upserts `cond` into `holder.conditions`. */
export function setProviderCondition(holder: { conditions?: ProviderCondition[] }, cond: Omit<ProviderCondition, 'lastTransitionTime'>, nowIso: string): void {
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
  return value.filter((c): c is ProviderCondition => typeof c === 'object' && c !== null && typeof (c as ProviderCondition).type === 'string');
}
