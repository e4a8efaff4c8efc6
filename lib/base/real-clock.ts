// The wall clock, for production.
import type { Clock, TimerHandle } from './clock.js';

export class RealClock implements Clock {
  now(): number {
    return Date.now();
  }

  /**
   * Node's timers run on a monotonic clock and may fire a millisecond before Date.now() reaches the due
   * time; callers that compare now() with a deadline would then find nothing due. So the callback only
   * runs once now() has reached it.
   */
  setTimeout(fn: () => void, ms: number): TimerHandle {
    const due = Date.now() + Math.max(0, ms);
    let t: NodeJS.Timeout;
    const arm = (delay: number): void => {
      t = setTimeout(() => {
        const early = due - Date.now();
        if (early > 0) arm(early);
        else fn();
      }, delay);
    };
    arm(Math.max(0, ms));
    return { cancel: () => clearTimeout(t) };
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return sleepOn(this, ms, signal);
  }
}

/** A sleep built on any Clock's setTimeout, so fake and real clocks share the abort handling. */
export function sleepOn(clock: Clock, ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    if (signal?.aborted) {
      reject(abortError(signal));
      return;
    }
    const onAbort = (): void => {
      timer.cancel();
      reject(abortError(signal!));
    };
    const timer = clock.setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** The signal's reason as an Error (a non-Error reason is wrapped), for rejecting promises. */
export function abortError(signal: AbortSignal): Error {
  const reason: unknown = signal.reason;
  if (reason instanceof Error) return reason;
  return new DOMException(typeof reason === 'string' ? reason : 'The operation was aborted', 'AbortError');
}
