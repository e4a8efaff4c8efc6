// Work-queue rate limiters with client-go's semantics: when(item) says how long to wait before the
// item's next try, forget(item) resets its history, numRequeues(item) counts its failures.
import type { Clock } from '../base/clock.js';
import { TokenBucket } from '../base/token-bucket.js';

export interface RateLimiter<T> {
  when(item: T): number;
  forget(item: T): void;
  numRequeues(item: T): number;
}

/** base·2^failures per item, capped at max (client-go ItemExponentialFailureRateLimiter). */
export class ItemExponentialFailureRateLimiter<T> implements RateLimiter<T> {
  private readonly failures = new Map<T, number>();

  constructor(
    readonly baseDelayMs: number,
    readonly maxDelayMs: number,
  ) {
    if (!(baseDelayMs > 0)) throw new RangeError(`rateLimiter.baseDelayMs must be > 0, got ${baseDelayMs}`);
    if (!(maxDelayMs >= baseDelayMs))
      throw new RangeError(`rateLimiter.maxDelayMs must be >= baseDelayMs, got ${maxDelayMs}`);
  }

  when(item: T): number {
    const exp = this.failures.get(item) ?? 0;
    this.failures.set(item, exp + 1);
    const backoff = this.baseDelayMs * 2 ** exp;
    return Number.isFinite(backoff) && backoff <= this.maxDelayMs ? backoff : this.maxDelayMs;
  }

  forget(item: T): void {
    this.failures.delete(item);
  }

  numRequeues(item: T): number {
    return this.failures.get(item) ?? 0;
  }
}

/** One token bucket for all items (client-go BucketRateLimiter); keeps no per-item history. */
export class BucketRateLimiter<T> implements RateLimiter<T> {
  private readonly bucket: TokenBucket;

  constructor(qps: number, burst: number, clock: Clock) {
    this.bucket = new TokenBucket(qps, burst, clock);
  }

  when(_item: T): number {
    return this.bucket.reserve();
  }
  forget(_item: T): void {}
  numRequeues(_item: T): number {
    return 0;
  }
}

/** The longest wait of several limiters (client-go MaxOfRateLimiter). */
export class MaxOfRateLimiter<T> implements RateLimiter<T> {
  private readonly limiters: RateLimiter<T>[];

  constructor(...limiters: RateLimiter<T>[]) {
    this.limiters = limiters;
  }

  when(item: T): number {
    let ret = 0;
    for (const l of this.limiters) ret = Math.max(ret, l.when(item));
    return ret;
  }
  forget(item: T): void {
    for (const l of this.limiters) l.forget(item);
  }
  numRequeues(item: T): number {
    let ret = 0;
    for (const l of this.limiters) ret = Math.max(ret, l.numRequeues(item));
    return ret;
  }
}

export interface ControllerRateLimiterOptions {
  baseDelayMs?: number;
  maxDelayMs?: number;
  qps?: number;
  burst?: number;
}

/** client-go DefaultControllerRateLimiter: max(per-item 5 ms → 1000 s, overall 10 qps / burst 100). */
export function defaultControllerRateLimiter<T>(clock: Clock, opts: ControllerRateLimiterOptions = {}): RateLimiter<T> {
  return new MaxOfRateLimiter<T>(
    new ItemExponentialFailureRateLimiter<T>(opts.baseDelayMs ?? 5, opts.maxDelayMs ?? 1_000_000),
    new BucketRateLimiter<T>(opts.qps ?? 10, opts.burst ?? 100, clock),
  );
}
