// MachineSet status from the machines it controls, counted as the reference counts them. Pure: nodes come
// from a look-up function (the informer cache), time from the caller.
import type { Node } from '../apis/core.js';
import { formatLabelSelector } from '../apis/label-selector.js';
import type { Condition, Machine, MachineSet, MachineSetStatus } from '../apis/machine-types.js';

export type NodeLookup = (name: string) => Node | undefined;

function readyCondition(node: Node | undefined) {
  return node?.status?.conditions?.find((c) => c.type === 'Ready');
}

function hasAllLabels(labels: Record<string, string> | undefined, wanted: Record<string, string> | undefined): boolean {
  return Object.entries(wanted ?? {}).every(([k, v]) => labels?.[k] === v);
}

/** Ready for longer than minReadySeconds; every ready node counts when minReadySeconds is 0. */
export function isAvailable(ready: { lastTransitionTime?: string }, minReadySeconds: number, now: number): boolean {
  if (minReadySeconds <= 0) return true;
  const since = ready.lastTransitionTime ? Date.parse(ready.lastTransitionTime) : NaN;
  if (Number.isNaN(since) || since <= 0) return false;
  return since + minReadySeconds * 1000 < now;
}

/**
 * The counters and selector for `machines` (already filtered to the active ones this MachineSet controls).
 * observedGeneration is left as it was: it is set when the status is written. errorReason and errorMessage
 * are the caller's (the controller sets them only for an invalid configuration).
 */
export function calculateStatus(
  ms: MachineSet,
  machines: readonly Machine[],
  nodeOf: NodeLookup,
  now: number,
): MachineSetStatus {
  const templateLabels = ms.spec?.template?.metadata?.labels;
  const minReadySeconds = ms.spec?.minReadySeconds ?? 0;
  let fullyLabeled = 0;
  let ready = 0;
  let available = 0;
  for (const m of machines) {
    if (hasAllLabels(m.metadata.labels, templateLabels)) fullyLabeled++;
    const nodeName = m.status?.nodeRef?.name;
    if (!nodeName) continue;
    const cond = readyCondition(nodeOf(nodeName));
    if (cond?.status !== 'True') continue;
    ready++;
    if (isAvailable(cond, minReadySeconds, now)) available++;
  }
  return {
    ...ms.status,
    replicas: machines.length,
    fullyLabeledReplicas: fullyLabeled,
    readyReplicas: ready,
    availableReplicas: available,
    labelSelector: safeFormat(ms),
  };
}

function safeFormat(ms: MachineSet): string {
  try {
    return formatLabelSelector(ms.spec?.selector);
  } catch {
    return '<error>';
  }
}

function sameConditions(a: Condition[] | undefined, b: Condition[] | undefined): boolean {
  return JSON.stringify(a ?? []) === JSON.stringify(b ?? []);
}

/** False when the write can be skipped: nothing we own changed and the generation was already observed. */
export function statusNeedsUpdate(ms: MachineSet, next: MachineSetStatus): boolean {
  const cur = ms.status ?? {};
  return (
    cur.replicas !== next.replicas ||
    cur.fullyLabeledReplicas !== next.fullyLabeledReplicas ||
    cur.readyReplicas !== next.readyReplicas ||
    cur.availableReplicas !== next.availableReplicas ||
    cur.labelSelector !== next.labelSelector ||
    (cur.errorReason ?? '') !== (next.errorReason ?? '') ||
    (cur.errorMessage ?? '') !== (next.errorMessage ?? '') ||
    !sameConditions(cur.conditions, next.conditions) ||
    ms.metadata.generation !== cur.observedGeneration
  );
}

/**
 * The merge patch that turns the current status into `next` with observedGeneration = generation.
 * Cleared error fields are sent as null so the merge patch removes them.
 */
export function statusPatch(ms: MachineSet, next: MachineSetStatus): Record<string, unknown> {
  const status: Record<string, unknown> = {
    replicas: next.replicas,
    fullyLabeledReplicas: next.fullyLabeledReplicas,
    readyReplicas: next.readyReplicas,
    availableReplicas: next.availableReplicas,
    labelSelector: next.labelSelector,
    observedGeneration: ms.metadata.generation,
    errorReason: next.errorReason ?? null,
    errorMessage: next.errorMessage ?? null,
  };
  if (!sameConditions(ms.status?.conditions, next.conditions)) status.conditions = next.conditions ?? null;
  return { status };
}

/** When to look again: once the ready machines have been ready for minReadySeconds (as the reference). */
export function minReadyRequeueMs(ms: MachineSet, status: MachineSetStatus): number | undefined {
  const replicas = ms.spec?.replicas ?? 0;
  const minReady = ms.spec?.minReadySeconds ?? 0;
  if (minReady > 0 && status.readyReplicas === replicas && status.availableReplicas !== replicas)
    return minReady * 1000;
  return undefined;
}

/**
 * Available for a rollout: phase Running with a Ready Node for minReadySeconds (the availableReplicas count
 * above leaves the phase out, as the reference does).
 */
export function machineAvailable(m: Machine, nodeOf: NodeLookup, minReadySeconds: number, now: number): boolean {
  if (m.status?.phase !== 'Running' || !m.status.nodeRef?.name) return false;
  const cond = readyCondition(nodeOf(m.status.nodeRef.name));
  return cond?.status === 'True' && isAvailable(cond, minReadySeconds, now);
}

/** Milliseconds until the first of these Machines whose Node is Ready becomes available; undefined when none will. */
export function nextAvailableInMs(
  machines: readonly Machine[],
  nodeOf: NodeLookup,
  minReadySeconds: number,
  now: number,
): number | undefined {
  if (minReadySeconds <= 0) return undefined;
  let next: number | undefined;
  for (const m of machines) {
    const name = m.status?.nodeRef?.name;
    const cond = name ? readyCondition(nodeOf(name)) : undefined;
    if (cond?.status !== 'True' || isAvailable(cond, minReadySeconds, now)) continue;
    const since = cond.lastTransitionTime ? Date.parse(cond.lastTransitionTime) : NaN;
    if (Number.isNaN(since)) continue;
    const wait = Math.max(1, since + minReadySeconds * 1000 - now + 1);
    next = next === undefined ? wait : Math.min(next, wait);
  }
  return next;
}
