// The queue controllers use: addRateLimited waits as long as the rate limiter says (per-item backoff and
// the overall bucket), forget resets an item's backoff after success.
import type { Clock } from '../base/clock.js';
import type { RateLimiter } from './rate-limiters.js';
import { DelayingQueue, type WorkQueueOptions } from './work-queue.js';

export class RateLimitingQueue<T> extends DelayingQueue<T> {
  constructor(
    clock: Clock,
    private readonly rateLimiter: RateLimiter<T>,
    opts: WorkQueueOptions<T> = {},
  ) {
    super(clock, opts);
  }

  /** After the limiter's delay, at `priority` (a retry keeps the priority its failed attempt had). */
  addRateLimited(item: T, priority?: number): void {
    this.addAfter(item, this.rateLimiter.when(item), priority === undefined ? {} : { priority });
  }

  forget(item: T): void {
    this.rateLimiter.forget(item);
  }

  numRequeues(item: T): number {
    return this.rateLimiter.numRequeues(item);
  }
}
