// Look-ups that answer the same for a while (a Secret, an AMI query, the ids of a spec's names): one call per
// key per ttlMs, concurrent callers of a key share the call in flight, and a failed call is forgotten at once,
// so a fixed spec or a recovered API takes effect on the next try instead of after the TTL.
import type { Clock } from '../base/clock.js';
import { TtlCache } from './ttl-cache.js';

export class PromiseCache<V> {
  private readonly entries: TtlCache<Promise<V>>;

  /** ttlMs may be Infinity: kept until deleted or failed. */
  constructor(clock: Clock, ttlMs: number) {
    this.entries = new TtlCache(clock, ttlMs);
  }

  /**
   * The answer for `key`: the kept or in-flight promise, else `load()`'s. `load` should not take one caller's
   * AbortSignal: other callers may be waiting on the same call (race it with `abortable` instead).
   */
  get(key: string, load: () => Promise<V>): Promise<V> {
    const kept = this.entries.get(key);
    if (kept) return kept;
    const loading = load();
    this.entries.set(key, loading);
    // Only this call's entry goes: a newer one set after this one expired stays.
    loading.catch(() => {
      if (this.entries.get(key) === loading) this.entries.delete(key);
    });
    return loading;
  }

  /** Forgets `key`, e.g. after the answer proved stale. */
  delete(key: string): void {
    this.entries.delete(key);
  }
}
