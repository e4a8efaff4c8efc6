// A map whose entries expire after a fixed time on an injected clock.
import type { Clock } from '../base/clock.js';

export class TtlCache<V> {
  private readonly entries = new Map<string, { value: V; expires: number }>();
  /** When set() next drops every expired entry: keys that are never read again must not stay forever. */
  private nextSweep = 0;

  constructor(
    private readonly clock: Clock,
    private readonly ttlMs: number,
  ) {}

  get(key: string): V | undefined {
    const e = this.entries.get(key);
    if (!e) return undefined;
    if (this.clock.now() >= e.expires) {
      this.entries.delete(key);
      return undefined;
    }
    return e.value;
  }

  /** get, then delete: a value that answers once. */
  take(key: string): V | undefined {
    const v = this.get(key);
    this.entries.delete(key);
    return v;
  }

  set(key: string, value: V): void {
    const now = this.clock.now();
    if (now >= this.nextSweep) {
      for (const [k, e] of this.entries) if (now >= e.expires) this.entries.delete(k);
      this.nextSweep = now + Math.max(this.ttlMs, 1_000);
    }
    this.entries.set(key, { value, expires: now + this.ttlMs });
  }

  get size(): number {
    return this.entries.size;
  }

  delete(key: string): void {
    this.entries.delete(key);
  }
}
