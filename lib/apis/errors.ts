// Errors carry the retry decision. InvalidMachineConfigurationError is terminal (phase Failed,
// errorReason InvalidConfiguration); RequeueAfterError waits without backoff; anything else backs off.
import type { MachineStatusError } from './machine-types.js';

export class MachineError extends Error {
  override name = 'MachineError';
  constructor(
    readonly reason: MachineStatusError,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

export class InvalidMachineConfigurationError extends MachineError {
  override name = 'InvalidMachineConfigurationError';
  /** The providerSpec field path at fault, e.g. "spec.providerSpec.value.instanceType". */
  readonly field?: string;
  constructor(message: string, options?: { cause?: unknown; field?: string }) {
    super('InvalidConfiguration', message, options);
    this.field = options?.field;
  }
}

/**
 * The cloud refused to create an instance for want of capacity or quota (a stock-out in the zone, an account
 * or regional limit). Nothing in the spec is wrong and the same request may succeed minutes later, so the
 * machine controller retries it for a bounded window before failing the Machine with InsufficientResources:
 * failing at once would make a short stock-out fatal, retrying forever would hide it from the autoscaler.
 */
export class InsufficientCapacityError extends MachineError {
  override name = 'InsufficientCapacityError';
  constructor(
    /** The cloud's own code, quoted as it sent it: "InsufficientInstanceCapacity", "ZONE_RESOURCE_POOL_EXHAUSTED". */
    readonly cloudCode: string,
    /** Where the instance was asked for: an availability zone, or a region for a regional quota. */
    readonly zone: string,
    readonly instanceType: string,
    /** The cloud's explanation, without request parameters. */
    readonly detail: string,
    options?: { cause?: unknown },
  ) {
    super(
      'InsufficientResources',
      `${cloudCode}: no capacity for instance type ${instanceType || '(unknown)'} in zone ${zone || '(unknown)'}${detail ? `: ${detail}` : ''}`,
      options,
    );
  }
}

/**
 * A Secret the Machine's providerSpec names (credentials, user data) does not exist. Not terminal and not a
 * fault of the spec: the Secret is often still on its way (installer, credentials operator), so the Machine
 * waits for it, and says which Secret it waits for.
 */
export class MissingSecretError extends Error {
  override readonly name = 'MissingSecretError';
  constructor(
    readonly namespace: string,
    readonly secretName: string,
    /** What the Secret holds, in words: "aws credentials", "user data". */
    readonly purpose: string,
    options?: { cause?: unknown },
  ) {
    super(`${purpose} secret ${namespace}/${secretName} not found`, options);
  }
}

/** A Secret the providerSpec names exists but lacks the key the provider reads from it. */
export class MissingSecretKeyError extends Error {
  override readonly name = 'MissingSecretKeyError';
  constructor(
    readonly namespace: string,
    readonly secretName: string,
    readonly key: string,
    options?: { cause?: unknown },
  ) {
    super(`secret ${namespace}/${secretName} missing ${key} key`, options);
  }
}

export const createMachineError = (message: string, cause?: unknown) =>
  new MachineError('CreateError', message, { cause });
export const updateMachineError = (message: string, cause?: unknown) =>
  new MachineError('UpdateError', message, { cause });
export const deleteMachineError = (message: string, cause?: unknown) =>
  new MachineError('DeleteError', message, { cause });

export class RequeueAfterError extends Error {
  override readonly name: string = 'RequeueAfterError';
  constructor(
    readonly requeueAfterMs: number,
    options?: { cause?: unknown },
  ) {
    super(`requeue in: ${formatDuration(requeueAfterMs)}`, options);
  }
}

/** Go's time.Duration String() for whole milliseconds: "20s", "1m0s", "1h0m0s", "500ms". */
export function formatDuration(ms: number): string {
  if (ms === 0) return '0s';
  if (ms < 1000) return `${ms}ms`;
  const totalSeconds = ms / 1000;
  const h = Math.floor(totalSeconds / 3600);
  const m = Math.floor((totalSeconds % 3600) / 60);
  const s = +(totalSeconds % 60).toFixed(3);
  if (h > 0) return `${h}h${m}m${s}s`;
  if (m > 0) return `${m}m${s}s`;
  return `${s}s`;
}

/** The text of anything thrown: an Error's message, or the value itself for a thrown string or object. */
export const messageOf = (err: unknown): string => (err instanceof Error ? err.message : String(err));

/** Walks the `cause` chain (errors.As semantics). */
export function findError<E extends Error>(err: unknown, ctor: abstract new (...args: never[]) => E): E | undefined {
  const seen = new Set<unknown>();
  let cur: unknown = err;
  while (cur instanceof Error && !seen.has(cur)) {
    if (cur instanceof ctor) return cur;
    seen.add(cur);
    cur = cur.cause;
  }
  return undefined;
}

export const isInvalidMachineConfiguration = (err: unknown): boolean =>
  findError(err, MachineError)?.reason === 'InvalidConfiguration';

/**
 * The delay a RequeueAfterError in the chain asks for. A delay that is not positive gives undefined, so the
 * caller's error path (backoff) applies: controller-runtime turns Requeue with no delay into a rate-limited
 * retry, whereas a result asking for 0 ms would mean "done" here and the machine would never be looked at again.
 */
export const requeueAfterOf = (err: unknown): number | undefined => {
  const ms = findError(err, RequeueAfterError)?.requeueAfterMs;
  return ms !== undefined && ms > 0 ? ms : undefined;
};
