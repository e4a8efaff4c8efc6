// The recent change events of one resource type, oldest first: what lets a watch resume from a
// resourceVersion, and what decides when that resourceVersion is too old (410 Gone). The store decides
// what to evict (a per-type event count and a byte budget shared by every type); this only keeps order.
import type { StoreEvent } from './store-event.js';

export class History {
  private events: StoreEvent[] = [];
  private start = 0;
  /** A watch may resume from rv only if rv >= this: every later event is still here. */
  private oldestResumable: number;
  /** The sum of the kept events' sizes. */
  bytes = 0;

  constructor(startRv: number) {
    this.oldestResumable = startRv;
  }

  get length(): number {
    return this.events.length - this.start;
  }

  push(ev: StoreEvent): void {
    this.events.push(ev);
    this.bytes += ev.size;
  }

  /** The oldest kept event, the next to be evicted. */
  peekOldest(): StoreEvent | undefined {
    return this.events[this.start];
  }

  /** Forgets the oldest event: resuming from before it is no longer possible. */
  dropOldest(): StoreEvent | undefined {
    const dropped = this.events[this.start];
    if (!dropped) return undefined;
    this.start++;
    this.bytes -= dropped.size;
    this.oldestResumable = dropped.rv;
    // Reclaim the dropped prefix once it is as long as what is kept, so a push stays O(1) amortised.
    if (this.start > this.length) {
      this.events = this.events.slice(this.start);
      this.start = 0;
    }
    return dropped;
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
    this.bytes = 0;
    this.oldestResumable = currentRv;
  }

  get oldest(): number {
    return this.oldestResumable;
  }
}
