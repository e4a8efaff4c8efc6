// A short-lived AbortController that also aborts when a longer-lived signal does, and lets go of that signal
// when its work is done. AbortSignal.any() is not usable for this in Node.js 22: each call with a source that
// outlives it (the manager's stop signal, a controller's hard stop) registers an entry in a FinalizationRegistry
// keyed on that source, and the entry is only released when the source itself is collected, so every reconcile
// and every API request left about 150 bytes behind for as long as the process ran. A deadline, when given,
// aborts it too, and is cancelled with the rest by release().
import type { Clock } from './clock.js';

/** Aborts the work with `reason()` once `ms` have passed on `clock`. */
export interface Deadline {
  clock: Clock;
  ms: number;
  reason: () => unknown;
}

export interface LinkedAbort {
  /** Aborts when `abort()` is called or when the parent aborts (with the parent's reason), whichever is first. */
  readonly signal: AbortSignal;
  abort(reason?: unknown): void;
  /** Stops following the parent and cancels the deadline; call when the work the signal guards is over. Idempotent. */
  release(): void;
}

/** An AbortController that follows `parent` (when given) and aborts at `deadline` (when given), until released. */
export function linkedAbort(parent: AbortSignal | undefined, deadline?: Deadline): LinkedAbort {
  const own = new AbortController();
  const abort = (r: unknown): void => own.abort(r);
  if (parent?.aborted) {
    own.abort(parent.reason);
    return { signal: own.signal, abort, release: () => undefined };
  }
  const timer = deadline?.clock.setTimeout(() => own.abort(deadline.reason()), deadline.ms);
  const follow = (): void => own.abort(parent?.reason);
  parent?.addEventListener('abort', follow, { once: true });
  const release = (): void => {
    timer?.cancel();
    parent?.removeEventListener('abort', follow);
  };
  // Once aborted for any reason, neither the parent nor the deadline has anything left to tell it.
  own.signal.addEventListener('abort', release, { once: true });
  return { signal: own.signal, abort, release };
}
