// Machine API condition helpers with the reference semantics: a Set replaces a stored condition only when its
// state (status, reason, severity, message) changes, and then stamps lastTransitionTime with `now` in whole UTC
// seconds; a same-state Set leaves the stored condition untouched; a new condition keeps a time it already
// carries; the list is sorted by type after every Set.
// The clock is always passed in, so callers decide what "now" is (a FakeClock in tests).
// Reference: https://github.com/openshift/machine-api-operator/blob/main/pkg/util/conditions/conditions.go
import type { Condition, ConditionSeverity } from './machine-types.js';

/** A point in time: a Date or epoch milliseconds. */
export type Instant = Date | number;

/** Anything with Machine API conditions in its status: Machine, MachineSet, MachineHealthCheck. */
export interface Conditioned {
  status?: { conditions?: Condition[] } | null;
}

const toMs = (now: Instant): number => (typeof now === 'number' ? now : now.getTime());

/** RFC 3339 in UTC truncated to whole seconds ("2026-11-22T05:01:02Z"), as metav1.Time serialises. */
export function conditionTime(now: Instant): string {
  const ms = toMs(now);
  if (!Number.isFinite(ms)) throw new RangeError(`conditionTime: invalid instant ${String(now)}`);
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z');
}

function withOptionalFields(c: Condition, reason?: string, message?: string, severity?: ConditionSeverity): Condition {
  // The Go fields are omitempty: an empty reason/message/severity is simply absent on the wire.
  if (reason) c.reason = reason;
  if (message) c.message = message;
  if (severity) c.severity = severity;
  return c;
}

/** Status True with no reason, message or severity. */
export function trueCondition(type: string): Condition {
  return { type, status: 'True' };
}

/** Status True with a reason and message, no severity. */
export function trueConditionWithReason(type: string, reason: string, message = ''): Condition {
  return withOptionalFields({ type, status: 'True' }, reason, message);
}

/** Status False; severity should be set only on False conditions. */
export function falseCondition(type: string, reason: string, severity: ConditionSeverity, message = ''): Condition {
  return withOptionalFields({ type, status: 'False' }, reason, message, severity);
}

/** Status Unknown with a reason and message, no severity. */
export function unknownCondition(type: string, reason: string, message = ''): Condition {
  return withOptionalFields({ type, status: 'Unknown' }, reason, message);
}

/** Same type, status, reason, severity and message; lastTransitionTime is ignored. */
export function hasSameState(a: Condition, b: Condition): boolean {
  return (
    a.type === b.type &&
    a.status === b.status &&
    (a.reason ?? '') === (b.reason ?? '') &&
    (a.severity ?? '') === (b.severity ?? '') &&
    (a.message ?? '') === (b.message ?? '')
  );
}

/** Both missing → true; one missing → false; otherwise hasSameState. */
export function isEquivalentTo(a: Condition | undefined | null, b: Condition | undefined | null): boolean {
  if (a == null || b == null) return a == null && b == null;
  return hasSameState(a, b);
}

const byType = (a: Condition, b: Condition): number => (a.type < b.type ? -1 : a.type > b.type ? 1 : 0);

function conditionsOf(source: Conditioned | readonly Condition[] | undefined | null): readonly Condition[] {
  if (source == null) return [];
  if (Array.isArray(source)) return source as readonly Condition[];
  return (source as Conditioned).status?.conditions ?? [];
}

/**
 * The list after setting `incoming` (a new array, sorted by type; `list` is not modified) and the condition
 * as stored in it.
 */
export function applyCondition(
  list: readonly Condition[] | undefined,
  incoming: Condition,
  now: Instant,
): { conditions: Condition[]; stored: Condition } {
  const out = [...(list ?? [])];
  const idx = out.findIndex((c) => c.type === incoming.type);
  let stored: Condition;
  if (idx >= 0) {
    const existing = out[idx]!;
    if (hasSameState(existing, incoming)) {
      stored = existing;
    } else {
      stored = { ...incoming, lastTransitionTime: conditionTime(now) };
      out[idx] = stored;
    }
  } else {
    stored = { ...incoming, lastTransitionTime: incoming.lastTransitionTime || conditionTime(now) };
    out.push(stored);
  }
  out.sort(byType);
  return { conditions: out, stored };
}

/**
 * Sets a condition.
 * - On an object (Machine, MachineSet, MHC): mutates `obj.status.conditions` (creating status if needed) and
 *   returns the condition as stored.
 * - On a list (or undefined): returns the new sorted list and leaves the input alone.
 * `incoming` itself is never modified.
 */
export function setCondition(list: readonly Condition[] | undefined, incoming: Condition, now: Instant): Condition[];
export function setCondition(obj: Conditioned, incoming: Condition, now: Instant): Condition;
export function setCondition(
  target: Conditioned | readonly Condition[] | undefined,
  incoming: Condition,
  now: Instant,
): Condition | Condition[] {
  if (target === undefined || Array.isArray(target)) {
    return applyCondition(target as readonly Condition[] | undefined, incoming, now).conditions;
  }
  const obj = target as Conditioned;
  const { conditions, stored } = applyCondition(obj.status?.conditions, incoming, now);
  if (obj.status == null) obj.status = {};
  obj.status.conditions = conditions;
  return stored;
}

/** setCondition(obj, trueCondition(type), now). */
export function markTrue(obj: Conditioned, type: string, now: Instant): Condition {
  return setCondition(obj, trueCondition(type), now);
}

/** setCondition(obj, falseCondition(type, reason, severity, message), now). */
export function markFalse(
  obj: Conditioned,
  type: string,
  reason: string,
  severity: ConditionSeverity,
  message: string,
  now: Instant,
): Condition {
  return setCondition(obj, falseCondition(type, reason, severity, message), now);
}

/** Removes the condition of that type from an object, if present. Returns whether it was there. */
export function removeCondition(obj: Conditioned, type: string): boolean {
  const list = obj.status?.conditions;
  if (!list || !obj.status) return false;
  const kept = list.filter((c) => c.type !== type);
  if (kept.length === list.length) return false;
  obj.status.conditions = kept;
  return true;
}

/** The condition of that type on an object or in a list. */
export function getCondition(
  source: Conditioned | readonly Condition[] | undefined | null,
  type: string,
): Condition | undefined {
  return conditionsOf(source).find((c) => c.type === type);
}

export function isConditionTrue(source: Conditioned | readonly Condition[] | undefined | null, type: string): boolean {
  return getCondition(source, type)?.status === 'True';
}

export function isConditionFalse(source: Conditioned | readonly Condition[] | undefined | null, type: string): boolean {
  return getCondition(source, type)?.status === 'False';
}

export function isConditionUnknown(
  source: Conditioned | readonly Condition[] | undefined | null,
  type: string,
): boolean {
  return getCondition(source, type)?.status === 'Unknown';
}
