// How long a short-circuited MachineHealthCheck waits before it looks again. The delay is derived from how
// long the MHC has been short-circuited, never from how many passes it made: watch events (a scale-up
// creating and updating machines) can run a dozen passes in a fraction of a second, and counting them would
// push the recheck of a brand-new episode to its maximum at once. The delay is the time short-circuited so
// far, clamped to [base, max]: looking again after as long as it has lasted doubles the wait over time.

export interface ShortCircuitBackoffOptions {
  baseMs: number;
  maxMs: number;
}

/** The requeue delay after `elapsedMs` short-circuited. */
export function shortCircuitDelayMs(elapsedMs: number, o: ShortCircuitBackoffOptions): number {
  return Math.min(o.maxMs, Math.max(o.baseMs, elapsedMs));
}

/** When each MHC's current short-circuit episode began (by key), and the delay that gives now. */
export class ShortCircuitEpisodes {
  private readonly since = new Map<string, number>();

  constructor(private readonly o: ShortCircuitBackoffOptions) {}

  /** Records a short-circuited pass at `now` (starting an episode if none is running) and returns the delay. */
  delayMs(key: string, now: number): number {
    let start = this.since.get(key);
    if (start === undefined || start > now) {
      start = now;
      this.since.set(key, start);
    }
    return shortCircuitDelayMs(now - start, this.o);
  }

  /** Remediation is allowed again (or the MHC is gone): the next short-circuit starts a new episode. */
  end(key: string): void {
    this.since.delete(key);
  }
}
