// What a drain does next with the pods on a Node, as a pure function of those pods: the kubectl-drain filter
// (pod-filter.ts) first decides which pods may go at all (mirror and live DaemonSet pods stay, as in the
// reference); then each remaining pod's own annotations apply:
//   machine.openshift.io/drain: skip            never evicted, and the drain does not wait for it;
//   machine.openshift.io/drain: wait-completed  never evicted; the drain waits until it has finished;
//   machine.openshift.io/drain-order: <int>     pods go in ascending order (default 0), a group only once every
//                                               pod of the groups before it is gone (or, waited for, finished).
// Called again on every pass with the pods then on the Node, so a drain resumed after a restart carries on
// from what the cluster shows, never from memory.
import { PodDrainAnnotation, PodDrainOrderAnnotation } from '../../apis/constants.js';
import type { Pod } from '../../apis/core.js';
import type { PodDecision } from './pod-filter.js';

export type PodDrainBehavior = 'evict' | 'wait-completed' | 'skip';

export interface PlannedPod {
  pod: Pod;
  behavior: PodDrainBehavior;
  order: number;
  /** Why, for events and logs: the filter's reason, or the annotation that applied. */
  reason: string;
  /** The pod's own drain annotation applied (an event says so). */
  byAnnotation: boolean;
  /** An annotation that could not be read (then the default applied). */
  problem?: string;
}

export interface DrainPlan {
  /** Pods the drain leaves and does not wait for. */
  skipped: PlannedPod[];
  /** Pods that no longer hold the drain: waited-for pods that have finished. */
  finished: PlannedPod[];
  /** The lowest order still holding the drain; undefined when nothing does (the drain is complete). */
  order?: number;
  /** Of that group: pods to evict now (not yet deleting). */
  evictNow: PlannedPod[];
  /** Of that group: pods already deleting, waited for until they are gone. */
  terminating: PlannedPod[];
  /** Of that group: wait-completed pods still running. */
  waitCompleted: PlannedPod[];
  /** Pods of higher orders, waiting for the groups before them. */
  later: PlannedPod[];
}

const finishedPhase = (p: Pod) => p.status?.phase === 'Succeeded' || p.status?.phase === 'Failed';

/** The integer in a drain-order annotation: optional sign and decimal digits, within ±1e9. */
function parseOrder(v: string): number | undefined {
  const t = v.trim();
  if (!/^[+-]?[0-9]{1,10}$/.test(t)) return undefined;
  const n = Number(t);
  return Math.abs(n) <= 1e9 ? n : undefined;
}

/** How one pod the filter lets go is drained, from its own annotations. */
export function podRule(pod: Pod): { behavior: PodDrainBehavior; order: number; problems: string[] } {
  const a = pod.metadata.annotations ?? {};
  const problems: string[] = [];
  let behavior: PodDrainBehavior = 'evict';
  const rule = a[PodDrainAnnotation];
  if (rule !== undefined) {
    const r = rule.trim().toLowerCase();
    if (r === 'skip') behavior = 'skip';
    else if (r === 'wait-completed') behavior = 'wait-completed';
    else if (r !== 'drain' && r !== '')
      problems.push(
        `${PodDrainAnnotation}=${JSON.stringify(rule)} is not "skip" or "wait-completed"; evicted as usual`,
      );
  }
  let order = 0;
  const rawOrder = a[PodDrainOrderAnnotation];
  if (rawOrder !== undefined) {
    const parsed = parseOrder(rawOrder);
    if (parsed === undefined)
      problems.push(`${PodDrainOrderAnnotation}=${JSON.stringify(rawOrder)} is not an integer; order 0 applies`);
    else order = parsed;
  }
  return { behavior, order, problems };
}

function plannedOf(d: PodDecision): PlannedPod {
  if (d.action === 'skip') return { pod: d.pod, behavior: 'skip', order: 0, reason: d.reason, byAnnotation: false };
  const rule = podRule(d.pod);
  const problem = rule.problems.length > 0 ? rule.problems.join('; ') : undefined;
  const annotated = rule.behavior !== 'evict' || d.pod.metadata.annotations?.[PodDrainOrderAnnotation] !== undefined;
  const reason =
    rule.behavior === 'skip'
      ? `${PodDrainAnnotation}=skip: not evicted, not waited for`
      : rule.behavior === 'wait-completed'
        ? `${PodDrainAnnotation}=wait-completed: not evicted, waited for until it finishes (order ${rule.order})`
        : annotated
          ? `evicted in drain order ${rule.order}`
          : d.reason;
  return {
    pod: d.pod,
    behavior: rule.behavior,
    order: rule.order,
    reason,
    byAnnotation: annotated,
    ...(problem ? { problem } : {}),
  };
}

const byKey = (a: PlannedPod, b: PlannedPod): number => {
  const ka = `${a.pod.metadata.namespace ?? ''}/${a.pod.metadata.name ?? ''}`;
  const kb = `${b.pod.metadata.namespace ?? ''}/${b.pod.metadata.name ?? ''}`;
  return ka < kb ? -1 : ka > kb ? 1 : 0;
};

/** The plan for the pods the filter decided on (pure; pods sorted by namespace/name in every list). */
export function planDrain(decisions: readonly PodDecision[]): DrainPlan {
  const plan: DrainPlan = { skipped: [], finished: [], evictNow: [], terminating: [], waitCompleted: [], later: [] };
  const holding: PlannedPod[] = [];
  for (const d of decisions) {
    const p = plannedOf(d);
    if (p.behavior === 'skip') plan.skipped.push(p);
    else if (p.behavior === 'wait-completed' && finishedPhase(p.pod)) plan.finished.push(p);
    else holding.push(p);
  }
  holding.sort(byKey);
  plan.skipped.sort(byKey);
  plan.finished.sort(byKey);
  if (holding.length === 0) return plan;
  const order = Math.min(...holding.map((p) => p.order));
  plan.order = order;
  for (const p of holding) {
    if (p.order !== order) plan.later.push(p);
    else if (p.behavior === 'wait-completed') plan.waitCompleted.push(p);
    else if (p.pod.metadata.deletionTimestamp) plan.terminating.push(p);
    else plan.evictNow.push(p);
  }
  return plan;
}

/** Whether nothing holds the drain any more. */
export const isComplete = (plan: DrainPlan): boolean => plan.order === undefined;
