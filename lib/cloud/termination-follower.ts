// How often to look at an instance whose termination (or first sighting) is being waited for. Clouds finish
// most terminations within seconds, a few take minutes: a fixed long requeue makes every delete last that long,
// a fixed short one costs a read per second for the slow ones. Here the wait starts near one second and grows
// with how long the wait has lasted (a fraction of it, capped): a termination of T seconds is noticed within
// about max(first, T·growth) of its end, and a long one costs a few reads per minute.
import type { Clock } from '../base/clock.js';

export interface TerminationFollowPolicy {
  /** The first wait (default 1 s). */
  firstMs: number;
  /** The wait as a fraction of how long the key has been followed, once that exceeds firstMs (default 0.5). */
  growth: number;
  /** The longest wait (default 10 s). */
  maxMs: number;
}

export const DEFAULT_TERMINATION_FOLLOW: TerminationFollowPolicy = { firstMs: 1_000, growth: 0.5, maxMs: 10_000 };

export class TerminationFollower {
  private readonly policy: TerminationFollowPolicy;
  /** key → when it started being followed. */
  private readonly since = new Map<string, number>();

  constructor(
    private readonly clock: Clock,
    policy: Partial<TerminationFollowPolicy> = {},
  ) {
    this.policy = { ...DEFAULT_TERMINATION_FOLLOW, ...policy };
    const { firstMs, growth, maxMs } = this.policy;
    if (!(Number.isFinite(firstMs) && firstMs > 0))
      throw new RangeError(`TerminationFollower: firstMs must be a finite number > 0, got ${firstMs}`);
    if (!(Number.isFinite(growth) && growth >= 0))
      throw new RangeError(`TerminationFollower: growth must be a finite number >= 0, got ${growth}`);
    if (!(Number.isFinite(maxMs) && maxMs >= firstMs))
      throw new RangeError(`TerminationFollower: maxMs must be a finite number >= firstMs (${firstMs}), got ${maxMs}`);
  }

  /** The wait before the next look at key; the first call starts following it. */
  next(key: string): number {
    const now = this.clock.now();
    const start = this.since.get(key) ?? now;
    this.since.set(key, start);
    const { firstMs, growth, maxMs } = this.policy;
    return Math.round(Math.min(maxMs, Math.max(firstMs, (now - start) * growth)));
  }

  /** The wait is over (the instance is gone, or the object is): the next follow starts afresh. */
  done(key: string): void {
    this.since.delete(key);
  }
}
