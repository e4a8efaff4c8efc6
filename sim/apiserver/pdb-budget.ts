// How many disruptions a PodDisruptionBudget allows, from the pods that match it now. Shared by the
// eviction subresource and the PDB status controller, so `kubectl get pdb` and eviction agree.
import type { Pod, PodDisruptionBudget } from '../../lib/apis/core.js';
import { scaledValueFromIntOrPercent } from '../../lib/apis/int-or-percent.js';
import { selectorFromLabelSelector } from '../../lib/apis/label-selector.js';
import type { Store } from './storage/store.js';

export const PDBKey = 'policy/poddisruptionbudgets';
export const PodsKey = '/pods';

export interface Budget {
  name: string;
  expectedPods: number;
  currentHealthy: number;
  desiredHealthy: number;
  disruptionsAllowed: number;
}

/** Running, not terminating, and Ready (or with no Ready condition reported at all). */
export function isHealthy(pod: Pod): boolean {
  if (pod.metadata.deletionTimestamp || pod.status?.phase !== 'Running') return false;
  const conditions = (pod.status as { conditions?: Array<{ type?: string; status?: string }> }).conditions ?? [];
  const ready = conditions.find((c) => c.type === 'Ready');
  return ready === undefined || ready.status === 'True';
}

export function matchingPods(store: Store, pdb: PodDisruptionBudget): Pod[] {
  const selector = selectorFromLabelSelector(pdb.spec?.selector);
  return (store.list(PodsKey, pdb.metadata.namespace ?? '') as Pod[]).filter((p) =>
    selector.matches(p.metadata.labels),
  );
}

export function budgetFor(pdb: PodDisruptionBudget, pods: Pod[]): Budget {
  const expectedPods = pods.length;
  const currentHealthy = pods.filter(isHealthy).length;
  const spec = pdb.spec ?? {};
  let desiredHealthy: number;
  if (spec.maxUnavailable !== undefined) {
    desiredHealthy = Math.max(0, expectedPods - scaledValueFromIntOrPercent(spec.maxUnavailable, expectedPods, true));
  } else if (spec.minAvailable !== undefined) {
    desiredHealthy = scaledValueFromIntOrPercent(spec.minAvailable, expectedPods, true);
  } else {
    desiredHealthy = expectedPods;
  }
  return {
    name: pdb.metadata.name ?? '',
    expectedPods,
    currentHealthy,
    desiredHealthy,
    disruptionsAllowed: Math.max(0, currentHealthy - desiredHealthy),
  };
}
