// Client-side rate limiting for cloud calls: one token bucket (lib's) per (region, action class), shared
// by every reconcile worker, so a thousand Machines become a steady trickle of calls instead of a burst
// that EC2 answers with RequestLimitExceeded.
import { TokenBucket, type Clock } from '../../lib/index.js';

export type ActionClass = 'describe' | 'mutate';

export interface CloudRateLimits {
  describe: { qps: number; burst: number };
  mutate: { qps: number; burst: number };
}

/** Below EC2's per-account defaults (describe: bucket 100 refilling 20/s; mutate: 50 at 5/s), so that
 * other clients in the same account keep room. */
export const DEFAULT_EC2_RATE_LIMITS: CloudRateLimits = {
  describe: { qps: 10, burst: 50 },
  mutate: { qps: 4, burst: 20 },
};

export class RegionalRateLimiter {
  private readonly buckets = new Map<string, TokenBucket>();

  constructor(
    private readonly limits: CloudRateLimits,
    private readonly clock: Clock,
  ) {}

  /** Waits for a token of `cls` in `region`; rejects with the signal's reason when aborted. */
  acquire(region: string, cls: ActionClass, signal?: AbortSignal): Promise<void> {
    const key = `${region}/${cls}`;
    let bucket = this.buckets.get(key);
    if (!bucket) {
      bucket = new TokenBucket(this.limits[cls].qps, this.limits[cls].burst, this.clock);
      this.buckets.set(key, bucket);
    }
    return bucket.wait(signal);
  }

  /** Tokens left in a bucket (negative while callers wait); for tests and metrics. */
  available(region: string, cls: ActionClass): number {
    return this.buckets.get(`${region}/${cls}`)?.available() ?? this.limits[cls].burst;
  }
}
