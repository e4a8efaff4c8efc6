// Client-side rate limiting for cloud calls: one token bucket per (scope, action class), shared by every
// reconcile worker, so a thousand Machines become a steady trickle of calls instead of a burst the cloud
// answers with its throttling error. The scope is what the cloud meters by (an EC2 region, a GCP project).
import type { Clock } from '../base/clock.js';
import type { WriteFence } from '../client/write-fence.js';
import { TokenBucket } from '../base/token-bucket.js';

/** Reads (describe/get/list) and writes (create/delete/modify) are metered apart by every cloud we know. */
export type ActionClass = 'describe' | 'mutate';

export interface CloudRateLimits {
  describe: { qps: number; burst: number };
  mutate: { qps: number; burst: number };
}

export class RegionalRateLimiter {
  private readonly buckets = new Map<string, TokenBucket>();

  constructor(
    private readonly limits: CloudRateLimits,
    private readonly clock: Clock,
    /**
     * The leader's fence (the one the Kubernetes writes pass): a mutating call leaves only while it is open.
     * A replica paused while its launch waited here (SIGSTOP, a frozen VM) resumes past its lease, after
     * another replica may have found nothing launched and let the Machine go: its launch must not follow.
     */
    private readonly fence?: WriteFence,
  ) {}

  /**
   * Waits for a token of `cls` in `scope`; rejects with the signal's reason when aborted, and a mutating call
   * with the fence's error when this process may no longer change the world.
   */
  async acquire(scope: string, cls: ActionClass, signal?: AbortSignal): Promise<void> {
    await this.bucket(scope, cls).wait(signal);
    if (cls === 'mutate') this.fence?.check('cloud', `${scope} (a mutating call)`);
  }

  /**
   * Resolves once a token of `cls` in `scope` is free, without taking it: a batcher holds its batch open
   * until then, so look-ups queued behind the limit ride one call instead of one call each.
   */
  async whenAvailable(scope: string, cls: ActionClass): Promise<void> {
    const bucket = this.bucket(scope, cls);
    for (let wait = bucket.msUntilAvailable(); wait > 0; wait = bucket.msUntilAvailable()) await this.clock.sleep(wait);
  }

  private bucket(scope: string, cls: ActionClass): TokenBucket {
    const key = `${scope}/${cls}`;
    let bucket = this.buckets.get(key);
    if (!bucket) {
      bucket = new TokenBucket(this.limits[cls].qps, this.limits[cls].burst, this.clock);
      this.buckets.set(key, bucket);
    }
    return bucket;
  }

  /** Tokens left in a bucket (negative while callers wait); for tests and metrics. */
  available(scope: string, cls: ActionClass): number {
    return this.buckets.get(`${scope}/${cls}`)?.available() ?? this.limits[cls].burst;
  }
}
