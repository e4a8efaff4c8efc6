// Retrying one call in place, for the calls an SDK does not retry itself (a token fetch, a REST call outside
// the SDK's retry). Work that can wait for the next reconcile does not belong here: the work queue's per-item
// backoff retries that. p-retry decides whether to go again (the retry bound, the caller's classifier, an
// AbortError from the call as an escape hatch, a non-network TypeError as a bug that is never retried); the
// wait between attempts is p-retry's jittered exponential backoff, timed on the injected Clock because
// p-retry's own timer cannot be replaced and tests step a FakeClock instead of sleeping.
import pRetry from 'p-retry';
import type { Clock } from '../base/clock.js';
import { RealClock, abortError, sleepOn } from '../base/real-clock.js';

export interface RetryCallOptions {
  /**
   * Ends the retrying: no attempt starts once it has aborted, a wait in progress rejects with its reason, and an
   * attempt that fails after it aborted is not retried (its own error is thrown). A result that arrives after
   * the abort is still returned: the reply to a write that was made must reach the caller.
   */
  signal?: AbortSignal;
  /** Whether another attempt can help (the provider's error classifier); any other error is thrown at once. */
  retryable: (err: unknown) => boolean;
  /** Attempts after the first; Infinity retries until success, a non-retryable error or the signal. */
  retries: number;
  /** Wait before the first retry, multiplied by `factor` per retry and by a random [1, 2) each time; 0 retries at once. */
  minTimeoutMs: number;
  /** Longest wait before any retry, `waitMs` included; default: no cap. */
  maxTimeoutMs?: number;
  /** Growth of the wait per retry; default 2. */
  factor?: number;
  /**
   * The wait before retrying after `err`, given the backoff the retry count earned: the server's Retry-After
   * when it sent one, 0 when the pause is taken elsewhere. Default: that backoff.
   */
  waitMs?: (err: unknown, backoffMs: number) => number;
  /** Times the waits; default: the real clock. */
  clock?: Clock;
}

/** Runs `fn`, and again after a wait while it fails with a retryable error and retries are left. */
export async function retryCall<T>(fn: (attempt: number) => Promise<T>, opts: RetryCallOptions): Promise<T> {
  const factor = opts.factor ?? 2;
  const maxTimeoutMs = opts.maxTimeoutMs ?? Number.POSITIVE_INFINITY;
  requireNumber(
    'minTimeoutMs',
    opts.minTimeoutMs,
    'a finite number >= 0',
    Number.isFinite(opts.minTimeoutMs) && opts.minTimeoutMs >= 0,
  );
  requireNumber('maxTimeoutMs', maxTimeoutMs, 'a number >= 0', maxTimeoutMs >= 0);
  requireNumber('factor', factor, 'a finite number >= 1', Number.isFinite(factor) && factor >= 1);
  requireNumber(
    'retries',
    opts.retries,
    'a whole number >= 0 or Infinity',
    opts.retries === Number.POSITIVE_INFINITY || (Number.isInteger(opts.retries) && opts.retries >= 0),
  );
  const clock = opts.clock ?? new RealClock();
  const { signal } = opts;
  if (signal?.aborted) throw abortError(signal);
  // The signal is not handed to p-retry, which would also reject a call that succeeded after the abort; the
  // check above and the one in shouldRetry do the rest of its work. Its own timer stays unused (minTimeout
  // 0, so its `randomize` has nothing to spread): the wait below applies the same formula on the clock.
  return pRetry(fn, {
    retries: opts.retries,
    minTimeout: 0,
    // Called only when a retry is left and the error is not a bug (a non-network TypeError): the wait happens
    // here so that it follows the classifier's yes, and an abort during it rejects the whole call.
    shouldRetry: async ({ error, retriesConsumed }) => {
      if (signal?.aborted || !opts.retryable(error)) return false;
      const backoff = Math.min(
        maxTimeoutMs,
        Math.round((1 + Math.random()) * opts.minTimeoutMs * factor ** retriesConsumed),
      );
      const wait = Math.min(maxTimeoutMs, opts.waitMs ? opts.waitMs(error, backoff) : backoff);
      if (wait > 0) await sleepOn(clock, wait, signal);
      return true;
    },
  });
}

function requireNumber(field: string, value: number, rule: string, ok: boolean): void {
  if (typeof value !== 'number' || !ok)
    throw new RangeError(`retryCall: ${field} must be ${rule}, got ${String(value)}`);
}
