// How fast one class of cloud calls may go, learnt from the cloud's answers. A cloud meters an account with
// token buckets that every client in the account draws on, so the rate it will take is not known in advance;
// the configured rate is only a cap. A throttling reply says the cloud's bucket is empty, and from then on
// what it still admits is its refill rate. So while the cloud keeps refusing, the rate follows what it
// admitted over the last few seconds, with a little headroom: the cloud's bucket stays in use (a scale-up
// goes as fast as the account allows) and only a small share of calls is refused. Once the cloud has
// stopped refusing for a window (a second, while it has never refused long enough to be measured), the
// rate climbs back toward the cap; the next time it refuses, the rate
// drops straight back to the admitted rate last measured instead of halving again.
import type { Clock } from '../base/clock.js';

export interface AdaptiveRateOptions {
  /** The configured rate: never exceeded. */
  capQps: number;
  /** The lowest rate the class is held to (default a twentieth of the cap). */
  floorQps?: number;
  /**
   * How far back the admitted rate is measured, and how long without a refusal ends an episode once the
   * cloud's rate has been measured (default 5 s).
   */
  windowMs?: number;
  /** Rate / admitted rate while the cloud refuses (default 1.05). */
  headroom?: number;
  /** Growth a second once the cloud has stopped refusing (default 0.2: 20 % a second). */
  growthPerSecond?: number;
  /** The cut on a first refusal while no admitted rate has been measured (default 0.5). */
  backoff?: number;
}

/** Less than this much of an episode is too little to measure the cloud's rate from. */
const MIN_MEASURE_MS = 1_000;

export class AdaptiveRate {
  private qps: number;
  private readonly cap: number;
  private readonly floor: number;
  private readonly windowMs: number;
  private readonly headroom: number;
  private readonly growth: number;
  private readonly backoff: number;
  /** When the cloud's first refusal of the current run of refusals came; undefined while it admits all. */
  private episodeStart: number | undefined;
  private lastRefusal = -Infinity;
  private refusals = 0;
  /** When each call the cloud admitted during the episode was answered, the last window's only. */
  private admittedAt: number[] = [];
  /** The cloud's admitted rate measured in the last episode, a starting point for the next. */
  private measured: number | undefined;
  private lastGrowth: number;

  constructor(
    opts: AdaptiveRateOptions,
    private readonly clock: Clock,
  ) {
    this.cap = opts.capQps;
    this.qps = opts.capQps;
    this.floor = Math.min(opts.capQps, opts.floorQps ?? opts.capQps / 20);
    this.windowMs = opts.windowMs ?? 5_000;
    this.headroom = opts.headroom ?? 1.05;
    this.growth = opts.growthPerSecond ?? 0.2;
    this.backoff = opts.backoff ?? 0.5;
    this.lastGrowth = clock.now();
  }

  /** The rate calls may go at now. */
  current(): number {
    const now = this.clock.now();
    const episodeEnd = this.lastRefusal + this.quietToEnd();
    if (this.episodeStart !== undefined && now >= episodeEnd) {
      this.episodeStart = undefined;
      this.lastGrowth = episodeEnd;
    }
    if (this.episodeStart === undefined && this.qps < this.cap) {
      const seconds = Math.max(0, now - this.lastGrowth) / 1000;
      this.qps = Math.min(this.cap, this.qps * (1 + this.growth) ** seconds);
    }
    this.lastGrowth = now;
    return this.qps;
  }

  /** The cloud answered a call without refusing it for its rate; returns the rate from now on. */
  admitted(): number {
    this.current();
    if (this.episodeStart !== undefined) {
      const now = this.clock.now();
      this.admittedAt.push(now);
      this.forgetBefore(now - this.windowMs);
    }
    return this.qps;
  }

  /** The cloud refused a call for its rate (a throttling reply); returns the rate from now on. */
  throttled(): number {
    this.current();
    const now = this.clock.now();
    this.lastRefusal = now;
    if (this.episodeStart === undefined) {
      this.episodeStart = now;
      this.refusals = 1;
      this.admittedAt = [];
      const start = this.measured === undefined ? this.qps * this.backoff : this.measured * this.headroom;
      this.qps = this.clamp(Math.min(this.qps, start));
      return this.qps;
    }
    this.refusals++;
    const spanMs = Math.min(this.windowMs, now - this.episodeStart);
    if (spanMs >= MIN_MEASURE_MS && this.refusals >= 2) {
      this.forgetBefore(now - spanMs);
      this.measured = this.admittedAt.length / (spanMs / 1000);
      this.qps = this.clamp(this.measured * this.headroom);
    }
    return this.qps;
  }

  /**
   * How long without a refusal ends an episode. Until the cloud has refused long enough for its rate to be
   * measured, a second without refusals does: the refusals were the edge of a burst larger than the cloud's,
   * not a rate it cannot take, the cut rate is below the cloud's (it would have refused again), and waiting a
   * whole window to climb back would only lose time.
   */
  private quietToEnd(): number {
    return this.measured === undefined ? MIN_MEASURE_MS : this.windowMs;
  }

  private forgetBefore(t: number): void {
    let drop = 0;
    while (drop < this.admittedAt.length && (this.admittedAt[drop] ?? 0) < t) drop++;
    if (drop > 0) this.admittedAt.splice(0, drop);
  }

  private clamp(qps: number): number {
    return Math.min(this.cap, Math.max(this.floor, qps));
  }
}
