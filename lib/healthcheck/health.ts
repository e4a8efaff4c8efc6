// Per-machine health as a MachineHealthCheck sees it. Pure: time is passed in.
//
// The node startup clock runs from machine.status.lastUpdated, as in the reference. That field is
// bumped by every status write of the machine controller and NodeLink, so a machine whose status keeps
// changing restarts its startup window; and a machine without a node is never counted healthy, even when the
// startup check is disabled ("0"). We keep both semantics so that MHCs written for OpenShift behave the same.
//
// Where we differ on purpose: a machine still inside its node startup window (or under an MHC that does not
// check startup) is *starting*, not unhealthy. The reference reported every such machine as DetectedUnhealthy
// "has unhealthy node " (no name) and counted it against maxUnhealthy, so a scale-up of a few machines
// short-circuited remediation for the whole MachineSet until their nodes came. A starting machine is not
// healthy either; it is simply not judged until its window ends.
import type { Node } from '../apis/core.js';
import { parseGoDuration } from '../apis/duration.js';
import { ExternalRemediationAnnotation, PhaseFailed } from '../apis/constants.js';
import type { Machine, MachineHealthCheck } from '../apis/machine-types.js';

export const DEFAULT_NODE_STARTUP_TIMEOUT_MS = 10 * 60 * 1000;
/** Longest wait before a target is looked at again (the reference's minDuration starts from one hour). */
export const MAX_NEXT_CHECK_MS = 60 * 60 * 1000;

export interface ParsedUnhealthyCondition {
  type: string;
  status: string;
  timeoutMs: number;
}

export interface HealthCheckSettings {
  unhealthyConditions: ParsedUnhealthyCondition[];
  nodeStartupTimeoutMs: number;
}

export class InvalidHealthCheckError extends Error {
  override readonly name = 'InvalidHealthCheckError';
}

/** Reads the durations of an MHC spec; an invalid one is named by its field path. */
export function healthCheckSettings(mhc: MachineHealthCheck): HealthCheckSettings {
  const parse = (field: string, value: string): number => {
    try {
      return parseGoDuration(value);
    } catch (err) {
      throw new InvalidHealthCheckError(`${field}: ${(err as Error).message}`);
    }
  };
  const unhealthyConditions = (mhc.spec?.unhealthyConditions ?? []).map((c, i) => ({
    type: c.type,
    status: c.status,
    timeoutMs: parse(`spec.unhealthyConditions[${i}].timeout`, c.timeout),
  }));
  const raw = mhc.spec?.nodeStartupTimeout;
  const nodeStartupTimeoutMs =
    raw === undefined || raw === null || raw === ''
      ? DEFAULT_NODE_STARTUP_TIMEOUT_MS
      : parse('spec.nodeStartupTimeout', raw);
  return { unhealthyConditions, nodeStartupTimeoutMs };
}

/** A machine an MHC covers. `node` undefined: the machine has no nodeRef; a node without a UID: it is gone. */
export interface HealthCheckTarget {
  machine: Machine;
  node?: Node;
}

export function nodeNameOf(t: HealthCheckTarget): string {
  return t.node?.metadata.name ?? '';
}

/**
 * `<mhcNamespace>/<mhcName>/<machineName>/<nodeName>`, as the reference logs and events print a target; a
 * machine without a node says so instead of ending in an empty name.
 */
export function targetString(mhc: MachineHealthCheck, t: HealthCheckTarget): string {
  const machine = `${mhc.metadata.namespace ?? ''}/${mhc.metadata.name ?? ''}/${t.machine.metadata.name ?? ''}`;
  return t.node ? `${machine}/${nodeNameOf(t)}` : `${machine} (no node)`;
}

/** The note of a DetectedUnhealthy event: names the node, or says there is none. */
export function detectedUnhealthyNote(mhc: MachineHealthCheck, t: HealthCheckTarget): string {
  const what = t.node ? `has unhealthy node ${nodeNameOf(t)}` : 'has no node';
  return `Machine ${targetString(mhc, t)} ${what}`;
}

export interface HealthVerdict {
  needsRemediation: boolean;
  /** No node yet and still inside the node startup window (or startup not checked): neither healthy nor unhealthy. */
  starting: boolean;
  /** When > 0: the target may turn unhealthy in this many ms; look again then. */
  nextCheckMs: number;
  /** Why, for logs. */
  reason: string;
}

const timeOf = (ts: string | undefined): number => {
  const ms = ts ? Date.parse(ts) : NaN;
  // A missing time is Go's zero time: long ago.
  return Number.isNaN(ms) ? Number.NEGATIVE_INFINITY : ms;
};

export function needsRemediation(t: HealthCheckTarget, settings: HealthCheckSettings, now: number): HealthVerdict {
  if (t.machine.status?.phase === PhaseFailed)
    return { needsRemediation: true, starting: false, nextCheckMs: 0, reason: `machine phase is ${PhaseFailed}` };

  if (!t.node) {
    const timeout = settings.nodeStartupTimeoutMs;
    if (timeout === 0)
      return { needsRemediation: false, starting: true, nextCheckMs: 0, reason: 'no node yet; startup check disabled' };
    const lastUpdated = t.machine.status?.lastUpdated;
    if (!lastUpdated)
      return {
        needsRemediation: false,
        starting: true,
        nextCheckMs: timeout,
        reason: 'no node yet; status not updated yet',
      };
    const since = timeOf(lastUpdated);
    if (since + timeout < now)
      return {
        needsRemediation: true,
        starting: false,
        nextCheckMs: 0,
        reason: `machine has no node after ${timeout} ms`,
      };
    return {
      needsRemediation: false,
      starting: true,
      nextCheckMs: timeout - (now - since) + 1000,
      reason: 'waiting for the node to start',
    };
  }

  if (!t.node.metadata.uid)
    return { needsRemediation: true, starting: false, nextCheckMs: 0, reason: 'node does not exist' };

  let next = Number.POSITIVE_INFINITY;
  for (const c of settings.unhealthyConditions) {
    const nc = t.node.status?.conditions?.find((x) => x.type === c.type);
    if (!nc || nc.status !== c.status) continue;
    const since = timeOf(nc.lastTransitionTime);
    if (since + c.timeoutMs < now) {
      return {
        needsRemediation: true,
        starting: false,
        nextCheckMs: 0,
        reason: `condition ${c.type}=${c.status} for longer than ${c.timeoutMs} ms`,
      };
    }
    const candidate = c.timeoutMs - (now - since) + 1000;
    if (candidate > 0) next = Math.min(next, candidate);
  }
  if (next === Number.POSITIVE_INFINITY)
    return { needsRemediation: false, starting: false, nextCheckMs: 0, reason: 'healthy' };
  return {
    needsRemediation: false,
    starting: false,
    nextCheckMs: Math.min(next, MAX_NEXT_CHECK_MS),
    reason: 'node condition matches, within its timeout',
  };
}

export interface Classification {
  /** Targets that need remediation now. */
  remediate: HealthCheckTarget[];
  /** Targets whose node matches an unhealthy condition still within its timeout, with when to look again. */
  pending: Array<{ target: HealthCheckTarget; nextCheckMs: number }>;
  /** Targets without a node inside their startup window; nextCheckMs 0 when startup is not checked. Not unhealthy. */
  starting: Array<{ target: HealthCheckTarget; nextCheckMs: number }>;
  healthy: HealthCheckTarget[];
  /** Everything else: being deleted, or under external remediation. Counted unhealthy, as in the reference. */
  other: HealthCheckTarget[];
}

/** How many targets count against maxUnhealthy: all but the healthy and the starting ones. */
export function unhealthyCount(c: Classification): number {
  return c.remediate.length + c.pending.length + c.other.length;
}

export function classifyTargets(
  targets: readonly HealthCheckTarget[],
  settings: HealthCheckSettings,
  now: number,
): Classification {
  const out: Classification = { remediate: [], pending: [], starting: [], healthy: [], other: [] };
  for (const t of targets) {
    const v = needsRemediation(t, settings, now);
    if (v.needsRemediation) out.remediate.push(t);
    else if (v.starting) out.starting.push({ target: t, nextCheckMs: v.nextCheckMs });
    else if (v.nextCheckMs > 0) out.pending.push({ target: t, nextCheckMs: v.nextCheckMs });
    else if (
      !t.machine.metadata.deletionTimestamp &&
      t.node &&
      !(ExternalRemediationAnnotation in (t.machine.metadata.annotations ?? {}))
    ) {
      out.healthy.push(t);
    } else out.other.push(t);
  }
  return out;
}
