// Coalesces look-ups by key that arrive within a short window into one batched call, so that many workers
// checking many Machines cost one cloud list/describe call per window instead of one each (EC2
// DescribeInstances by ids, GCE instances.list with a name filter).
import type { Clock, TimerHandle } from '../base/clock.js';
import { abortError } from '../base/real-clock.js';

export interface DescribeBatcherOptions<V> {
  /** How long the first request of a batch waits for company. */
  windowMs: number;
  /** Largest batch one call may carry (e.g. DescribeInstances: 1,000 ids). */
  maxBatch: number;
  clock: Clock;
  /** Fetches a batch; keys absent from the result are "not found". A rejection fails the whole batch. */
  fetch: (keys: string[]) => Promise<Map<string, V>>;
  /**
   * Resolves when a call may be made now (a free token of the client-side rate limiter). The batch stays
   * open until then: under the limit, the look-ups that queue up meanwhile ride one call, not one call each.
   */
  admit?: () => Promise<void>;
}

interface Pending<V> {
  resolve: (v: V | undefined) => void;
  reject: (err: Error) => void;
}

export class DescribeBatcher<V> {
  private queue = new Map<string, Pending<V>[]>();
  private timer: TimerHandle | undefined;
  /** The window closed and the batch waits for admit(); look-ups still join it. */
  private admitting = false;

  constructor(private readonly opts: DescribeBatcherOptions<V>) {}

  /** Resolves with the value for key, or undefined when the cloud does not know it. */
  get(key: string, signal?: AbortSignal): Promise<V | undefined> {
    if (signal?.aborted) return Promise.reject(abortError(signal));
    return new Promise<V | undefined>((resolve, reject) => {
      const entry: Pending<V> = { resolve, reject };
      if (signal) {
        // The batch still runs for the others; this caller just stops waiting.
        const onAbort = () => reject(abortError(signal));
        signal.addEventListener('abort', onAbort, { once: true });
        entry.resolve = (v) => {
          signal.removeEventListener('abort', onAbort);
          resolve(v);
        };
        entry.reject = (e) => {
          signal.removeEventListener('abort', onAbort);
          reject(e);
        };
      }
      const list = this.queue.get(key);
      if (list) list.push(entry);
      else this.queue.set(key, [entry]);
      if (this.queue.size >= this.opts.maxBatch) this.flush();
      else if (!this.timer && !this.admitting)
        this.timer = this.opts.clock.setTimeout(() => this.windowClosed(), this.opts.windowMs);
    });
  }

  private windowClosed(): void {
    this.timer = undefined;
    const admit = this.opts.admit;
    if (!admit) return this.flush();
    this.admitting = true;
    // admit() only waits; should it fail, the call itself meets the limiter (or the error) as before.
    admit()
      .catch(() => undefined)
      .finally(() => {
        this.admitting = false;
        this.flush();
      });
  }

  private flush(): void {
    this.timer?.cancel();
    this.timer = undefined;
    const batch = this.queue;
    this.queue = new Map();
    if (batch.size === 0) return;
    const keys = [...batch.keys()];
    for (let i = 0; i < keys.length; i += this.opts.maxBatch) {
      const chunk = keys.slice(i, i + this.opts.maxBatch);
      this.opts.fetch(chunk).then(
        (found) => {
          for (const k of chunk) for (const p of batch.get(k) ?? []) p.resolve(found.get(k));
        },
        (err: unknown) => {
          const e = err instanceof Error ? err : new Error(String(err));
          for (const k of chunk) for (const p of batch.get(k) ?? []) p.reject(e);
        },
      );
    }
  }
}
