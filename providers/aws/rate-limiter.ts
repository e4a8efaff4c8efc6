// EC2's client-side rate limits, for lib's RegionalRateLimiter (one bucket per region and action class).
import type { CloudRateLimits } from '../../lib/index.js';

/** Below EC2's per-account defaults (describe: bucket 100 refilling 20/s; mutate: 50 at 5/s), so that
 * other clients in the same account keep room. */
export const DEFAULT_EC2_RATE_LIMITS: CloudRateLimits = {
  describe: { qps: 10, burst: 50 },
  mutate: { qps: 4, burst: 20 },
};
