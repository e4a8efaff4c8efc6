// A bounded ring of the most recent change events of one resource type: what lets a watch resume
// from a resourceVersion, and what decides when that resourceVersion is too old (410 Gone).
import type { StoreEvent } from './store-event.js';

export class History {
  private events: StoreEvent[] = [];
  private start = 0;
  /** A watch may resume from rv only if rv >= this: every later event is still here. */
  private oldestResumable: number;

  constructor(
    private readonly limit: number,
    startRv: number,
  ) {
    this.oldestResumable = startRv;
  }

  push(ev: StoreEvent): void {
    this.events.push(ev);
    if (this.events.length - this.start > this.limit) {
      const dropped = this.events[this.start];
      this.start++;
      if (dropped) this.oldestResumable = dropped.rv;
      if (this.start > this.limit) {
        this.events = this.events.slice(this.start);
        this.start = 0;
      }
    }
  }

  /** Events after rv in order, or undefined when some of them are no longer kept. */
  since(rv: number): StoreEvent[] | undefined {
    if (rv < this.oldestResumable) return undefined;
    let lo = this.start;
    let hi = this.events.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((this.events[mid]?.rv ?? 0) <= rv) lo = mid + 1;
      else hi = mid;
    }
    return this.events.slice(lo);
  }

  /** Forgets everything up to currentRv. */
  compact(currentRv: number): void {
    this.events = [];
    this.start = 0;
    this.oldestResumable = currentRv;
  }

  get oldest(): number {
    return this.oldestResumable;
  }
}
