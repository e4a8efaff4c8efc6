// One clock timer per emulated resource, armed for the time its next lifecycle transition (or expiry) is due.
// Every timer calls the same `advance`, which applies whatever is due by then; the clock guarantees a timer
// never fires before now() reaches its due time (RealClock re-arms an early Node timer), so `advance` always
// finds the transition that armed it.
import type { Clock, TimerHandle } from '../../../lib/base/clock.js';

export class TransitionScheduler {
  private readonly timers = new Map<string, TimerHandle>();
  private closed = false;

  constructor(
    private readonly clock: Clock,
    private readonly advance: () => void,
  ) {}

  /** (Re)arms `key` for clock time `at`, replacing its earlier timer; undefined `at` only cancels it. */
  arm(key: string, at: number | undefined): void {
    this.cancel(key);
    if (this.closed || at === undefined) return;
    this.timers.set(
      key,
      this.clock.setTimeout(() => this.advance(), Math.max(0, at - this.clock.now())),
    );
  }

  /** Cancels `key`'s timer (a resource that is gone). */
  cancel(key: string): void {
    this.timers.get(key)?.cancel();
    this.timers.delete(key);
  }

  /** How many resources have a timer armed. */
  get armed(): number {
    return this.timers.size;
  }

  /** Cancels every timer; later arm() calls do nothing. */
  close(): void {
    this.closed = true;
    for (const t of this.timers.values()) t.cancel();
    this.timers.clear();
  }
}
