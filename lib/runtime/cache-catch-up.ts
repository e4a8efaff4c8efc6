// A short wait for an informer's cache to catch up with a controller's own write. A reconcile handed a copy older
// than its last write (the event of someone else's earlier change raced ahead of the write's own) would otherwise
// end and come back for the fresh copy, one more reconcile each time; the watch event of the write is usually
// milliseconds away, so the reconcile waits for it, a bounded while, and goes on with the fresh copy.
import type { KubeObject } from '../apis/meta.js';
import type { Clock } from '../base/clock.js';
import type { Informer } from './types.js';

/**
 * Resolves true as soon as `caughtUp()` holds (checked now and after each update the informers deliver), false after
 * `withinMs` or when the signal aborts.
 */
export function cacheCaughtUp(
  informers: ReadonlyArray<Informer<KubeObject>>,
  caughtUp: () => boolean,
  clock: Clock,
  withinMs: number,
  signal?: AbortSignal,
): Promise<boolean> {
  if (caughtUp()) return Promise.resolve(true);
  if (withinMs <= 0 || signal?.aborted) return Promise.resolve(false);
  return new Promise((resolve) => {
    const stops: Array<() => void> = [];
    const finish = (result: boolean): void => {
      for (const stop of stops) stop();
      timer.cancel();
      signal?.removeEventListener('abort', onAbort);
      resolve(result);
    };
    const onAbort = (): void => finish(false);
    const check = (): void => {
      if (caughtUp()) finish(true);
    };
    const timer = clock.setTimeout(() => finish(false), withinMs);
    signal?.addEventListener('abort', onAbort, { once: true });
    // Updates only: a write's echo is one, and a late 'add' handler would be handed the whole cache.
    for (const informer of informers) stops.push(informer.on('update', check));
  });
}
