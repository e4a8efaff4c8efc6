// IBM Cloud VPC's client-side rate limits, for lib's RegionalRateLimiter (one bucket per region and action class).
import type { CloudRateLimits } from '../../lib/index.js';

/** Well below what the VPC API gateway allows an account per region, so other clients in the account keep room. */
export const DEFAULT_IBM_RATE_LIMITS: CloudRateLimits = {
  describe: { qps: 10, burst: 40 },
  mutate: { qps: 4, burst: 20 },
};
