// The bounded retry of a create the cloud refused for want of capacity or quota. The window is measured from
// the first refusal, which lives on the Machine itself (the CapacityAvailable=False condition's
// lastTransitionTime): a controller restart, a leader change or a second replica sees the same start, so the
// window can neither be reset nor extended by anything but a success or a different outcome of create.
// Status rather than an annotation: it is the controller's observation, users read it with the other
// conditions, and nobody's metadata edit can move it.
import {
  CapacityAvailableCondition,
  CreateFailedReason,
  InstanceCreatedReason,
  InsufficientCapacityReason,
} from '../apis/constants.js';
import { conditionTime, getCondition } from '../apis/conditions.js';
import type { Condition, Machine } from '../apis/machine-types.js';
import { formatDuration, type InsufficientCapacityError } from '../apis/errors.js';

/** When the current run of capacity refusals began (ms since epoch), or undefined when none is on record. */
export function firstRefusalOf(machine: Machine): number | undefined {
  const c = getCondition(machine.status?.conditions, CapacityAvailableCondition);
  if (!c || c.status !== 'False' || c.reason !== InsufficientCapacityReason) return undefined;
  const at = Date.parse(c.lastTransitionTime ?? '');
  return Number.isNaN(at) ? undefined : at;
}

export type CapacityVerdict =
  /** The window is over (or is 0): the Machine fails now. */
  | { fail: true; sinceMs: number }
  /** Still inside the window: try again, at the latest when it closes. */
  | { fail: false; sinceMs: number; windowLeftMs: number };

/**
 * What a refusal at `nowMs` means. `sinceMs` is the recorded first refusal, if any; a record from the future
 * (a clock that went back) is treated as starting now, never as a longer window.
 */
export function judgeRefusal(windowMs: number, sinceMs: number | undefined, nowMs: number): CapacityVerdict {
  const since = sinceMs === undefined || sinceMs > nowMs ? nowMs : sinceMs;
  const left = since + Math.max(0, windowMs) - nowMs;
  if (left <= 0) return { fail: true, sinceMs: since };
  return { fail: false, sinceMs: since, windowLeftMs: left };
}

/** The condition that records a refusal; its lastTransitionTime stays the first refusal's whatever the message. */
export function refusedCondition(err: InsufficientCapacityError, sinceMs: number, windowMs: number): Condition {
  return {
    type: CapacityAvailableCondition,
    status: 'False',
    severity: 'Warning',
    reason: InsufficientCapacityReason,
    message: `${err.message}; retrying for at most ${formatDuration(windowMs)} from the first refusal`,
    lastTransitionTime: conditionTime(sinceMs),
  };
}

/** The condition that ends a window: the instance exists, or create failed for another reason. */
export function windowEndedCondition(created: boolean): Condition {
  return created
    ? {
        type: CapacityAvailableCondition,
        status: 'True',
        reason: InstanceCreatedReason,
        message: 'The instance exists',
      }
    : {
        type: CapacityAvailableCondition,
        status: 'Unknown',
        reason: CreateFailedReason,
        message: 'The last create attempt failed for a reason other than capacity',
      };
}

/** A create refused for want of capacity, inside its window: retried after the capacity backoff. */
export class CapacityRetry extends Error {
  override readonly name = 'CapacityRetry';
  constructor(
    readonly windowLeftMs: number,
    options: { cause: unknown },
  ) {
    super('capacity refused; retrying within the window', options);
  }
}
