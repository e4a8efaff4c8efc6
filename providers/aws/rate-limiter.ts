// EC2's client-side rate limits, for lib's RegionalRateLimiter (one bucket per region and action class).
import type { CloudRateLimits } from '../../lib/index.js';

/**
 * Caps, not targets: EC2's per-account buckets (describe: 100 refilling 20/s; mutating actions: 200 refilling
 * 5/s) are shared with everyone in the account, so the rate actually sustained is found at run time: once EC2
 * answers RequestLimitExceeded, lib's limiter holds the class to the rate EC2 admits (every SDK attempt passes
 * it, metered-attempts.ts). A fixed mutate rate of 4/s kept a 500-Machine scale-up waiting two minutes on an
 * account with room to spare (hack/bench).
 */
export const DEFAULT_EC2_RATE_LIMITS: CloudRateLimits = {
  describe: { qps: 20, burst: 100 },
  mutate: { qps: 20, burst: 200 },
};
