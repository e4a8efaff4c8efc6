// A map whose entries expire after a fixed time on an injected clock.
import type { Clock } from '../runtime/clock.js';

export class TtlCache<V> {
  private readonly entries = new Map<string, { value: V; expires: number }>();

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
    this.entries.set(key, { value, expires: this.clock.now() + this.ttlMs });
  }

  delete(key: string): void {
    this.entries.delete(key);
  }
}
