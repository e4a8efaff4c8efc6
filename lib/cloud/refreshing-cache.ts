// A per-key cache for slow cloud look-ups (instance-type catalogs for scale-from-zero): an answer is reused
// for ttlMs, concurrent callers of one key share one look-up, and a failed refresh serves the previous
// answer while there is one, so a cloud hiccup does not blank out what the autoscaler already knew.
//
// How a provider uses it (one cache per catalog, keyed by whatever scopes the answer: region, project,
// credentials, type):
//   private readonly cache = new RefreshingCache<Map<string, InstanceTypeInfo>>(clock, ttlMs);
//   const types = await this.cache.get(key, () => loadAll(), (err) => log.info('refresh failed; using the previous list', { error: describe(err) }));
import type { Clock } from '../base/clock.js';

export interface RefreshingCacheOptions<V> {
  /** Whether a previous answer may stand in for a failed refresh; default: any answer may. */
  serveStale?: (previous: V) => boolean;
}

interface Entry<V> {
  has: boolean;
  value?: V;
  loadedAt: number;
  inflight?: Promise<V>;
}

export class RefreshingCache<V> {
  private readonly entries = new Map<string, Entry<V>>();

  constructor(
    private readonly clock: Clock,
    private readonly ttlMs: number,
    private readonly opts: RefreshingCacheOptions<V> = {},
  ) {}

  /**
   * The answer for `key`: cached while fresh, else from `load` (shared with concurrent callers). When `load`
   * fails and a previous answer may be served, calls `onStale(err)` and returns that answer; else rethrows.
   */
  async get(key: string, load: () => Promise<V>, onStale?: (err: unknown) => void): Promise<V> {
    let entry = this.entries.get(key);
    if (!entry) {
      entry = { has: false, loadedAt: 0 };
      this.entries.set(key, entry);
    }
    if (entry.has && this.clock.now() - entry.loadedAt < this.ttlMs) return entry.value as V;
    const e = entry;
    const inflight = (e.inflight ??= (async () => {
      try {
        const value = await load();
        e.value = value;
        e.has = true;
        e.loadedAt = this.clock.now();
        return value;
      } finally {
        e.inflight = undefined;
      }
    })());
    try {
      return await inflight;
    } catch (err) {
      if (e.has && (this.opts.serveStale?.(e.value as V) ?? true)) {
        onStale?.(err);
        return e.value as V;
      }
      throw err;
    }
  }
}
