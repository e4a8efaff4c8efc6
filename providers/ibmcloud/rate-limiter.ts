// IBM Cloud VPC's client-side rate limits, for lib's RegionalRateLimiter (one bucket per region and action class).
import type { CloudRateLimits } from '../../lib/index.js';

/**
 * IBM publishes no per-account request rates for the VPC API, so these take EC2's documented shape (reads
 * refilling 20/s, writes 5/s), the one the benchmark's throttled scenario also assumes. Bursts stay small:
 * an account's budget is shared with every other client in it, and a 429 that still comes holds the whole
 * class of calls back for its Retry-After (metered-vpc-api.ts) rather than letting each worker retry. A
 * write rate below the account's only slows a scale-up: at 4/s, 60 creates past the burst waited 25 % longer
 * than the account made them wait.
 */
export const DEFAULT_IBM_RATE_LIMITS: CloudRateLimits = {
  describe: { qps: 20, burst: 20 },
  mutate: { qps: 5, burst: 20 },
};
