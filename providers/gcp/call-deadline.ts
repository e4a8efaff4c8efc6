// The deadline of every Compute call, kept by us rather than by gax. The REST transport of google-gax 6 arms an
// `AbortSignal.timeout(deadline)` per call and never removes its abort listener (fallbackServiceStub.js, the
// `timeoutSignal.addEventListener('abort', ...)` of each RPC). Node keeps a timeout signal that has listeners
// strongly reachable until it fires (its `gcPersistentSignals` set), and the listener's closure shares its
// scope with the call's callback, which reaches the decoded reply (for a list, the ResourceCollector's every
// instance). Each reply therefore stayed in the heap for the whole Compute deadline, 600 s, after the call
// returned: about 9 KB per listed instance per call. Given no timeout (an infinite one), gax arms no signal;
// the call is bounded here instead, by a timer cleared when the call ends, and cancelled through gax's own
// `signal` call option, which gax unhooks when the call settles.

/** The Compute client's own deadline for every method (its client config's timeout_millis). */
export const DEFAULT_GCE_CALL_TIMEOUT_MS = 600_000;

/** The gax call options that hand a call's deadline and cancellation to us. */
export interface GaxCallOptions {
  timeout: number;
  signal: AbortSignal;
}

/** A Compute call that outlived its deadline: transient, as gax's own DEADLINE_EXCEEDED is. */
export class GceCallTimedOut extends Error {
  override readonly name = 'GceCallTimedOut';
  /** gRPC DEADLINE_EXCEEDED, as gax reports a deadline. */
  readonly code = 4;
  constructor(readonly timeoutMs: number) {
    super(`4 DEADLINE_EXCEEDED: the GCE call timed out after ${timeoutMs} ms`);
  }
}

/**
 * Runs `call` with gax options that leave it no deadline of its own, cancelling it (through gax) when
 * `timeoutMs` passes or `signal` aborts. The timer and the listener are gone once the call settles.
 */
export async function withCallDeadline<T>(
  timeoutMs: number,
  signal: AbortSignal | undefined,
  call: (gax: GaxCallOptions) => Promise<T>,
): Promise<T> {
  const cancel = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    cancel.abort();
  }, timeoutMs);
  const forward = (): void => cancel.abort(signal?.reason);
  // A signal that has aborted already fires no more events: gax is then handed one aborted too, and sends nothing.
  if (signal?.aborted) forward();
  else signal?.addEventListener('abort', forward, { once: true });
  try {
    return await call({ timeout: Infinity, signal: cancel.signal });
  } catch (err) {
    throw timedOut ? new GceCallTimedOut(timeoutMs) : err;
  } finally {
    clearTimeout(timer);
    signal?.removeEventListener('abort', forward);
  }
}
