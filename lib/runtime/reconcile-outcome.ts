// The one place that decides what a reconcile's result means for the queue (controller-runtime's
// reconcileHandler): an error retries with backoff unless it is terminal; requeueAfterMs waits without
// counting as a failure; success forgets the key's backoff.
import { TerminalError, type Result } from './types.js';

export type ReconcileOutcome =
  | { action: 'forget'; result: 'success' }
  | { action: 'forget-and-add-after'; result: 'requeue_after'; delayMs: number }
  | { action: 'add-rate-limited'; result: 'error'; error: unknown }
  | { action: 'drop'; result: 'error'; error: unknown; terminal: true };

/** A thrown value counts as an error; `result` is what the reconciler returned (if it returned). */
export function decideOutcome(
  outcome: { ok: true; result: Result | void } | { ok: false; error: unknown },
): ReconcileOutcome {
  if (!outcome.ok) {
    if (isTerminal(outcome.error)) return { action: 'drop', result: 'error', error: outcome.error, terminal: true };
    return { action: 'add-rate-limited', result: 'error', error: outcome.error };
  }
  const delayMs = outcome.result?.requeueAfterMs ?? 0;
  if (delayMs > 0) return { action: 'forget-and-add-after', result: 'requeue_after', delayMs };
  return { action: 'forget', result: 'success' };
}

/** True when a TerminalError is the error or anywhere in its cause chain (or inside an AggregateError). */
export function isTerminal(err: unknown): boolean {
  const seen = new Set<unknown>();
  const stack: unknown[] = [err];
  while (stack.length > 0) {
    const e = stack.pop();
    if (e === undefined || e === null || seen.has(e)) continue;
    seen.add(e);
    if (e instanceof TerminalError) return true;
    if (e instanceof AggregateError) stack.push(...(e.errors as unknown[]));
    if (e instanceof Error) stack.push(e.cause);
  }
  return false;
}
