// Throttled scale-up: the emulator meters calls with EC2's documented request token buckets (per API, per
// account and region: non-mutating actions bucket 100 refilling 20/s, mutating actions bucket 200 refilling
// 5/s; RunInstances also spends one token of its resource bucket, 1,000 refilling 2/s, per instance). The
// floor is the time one machine takes in the same environment plus the time those buckets need to admit the
// N RunInstances calls the scale-up cannot do without; the result is completion time / floor and the share
// of replies that were RequestLimitExceeded.
import { round } from './measure.js';
import { scaleDown, scaleUp, type BenchContext, type ScenarioResult } from './scenarios.js';

export interface Bucket {
  /** An action name or class ("describe", "mutate"), as the emulator kit matches them. */
  match: string;
  burst: number;
  ratePerSecond: number;
  perAction: boolean;
}

/** EC2's default request buckets (resource buckets apply per instance; one instance per RunInstances here). */
export const EC2_BUCKETS: Bucket[] = [
  { match: 'describe', burst: 100, ratePerSecond: 20, perAction: true },
  { match: 'mutate', burst: 200, ratePerSecond: 5, perAction: true },
  { match: 'RunInstances', burst: 1000, ratePerSecond: 2, perAction: false },
];

/** Seconds a bucket needs to admit `calls` calls starting full. */
export function bucketSeconds(calls: number, b: { burst: number; ratePerSecond: number }): number {
  return Math.max(0, calls - b.burst) / b.ratePerSecond;
}

/** `baselineSeconds`: one machine's scale-up in the same environment without buckets (the floor's per-machine part). */
export async function throttled(ctx: BenchContext, n: number, baselineSeconds: number, buckets: Bucket[] = EC2_BUCKETS): Promise<ScenarioResult> {
  const knobs = ctx.env.emulator.knobs;
  for (const b of buckets) knobs.setRateLimit(b.match, { burst: b.burst, ratePerSecond: b.ratePerSecond, perAction: b.perAction });
  const runInstancesBuckets = buckets.filter((b) => b.match === 'RunInstances' || b.match === 'mutate');
  const floorSeconds = baselineSeconds + Math.max(0, ...runInstancesBuckets.map((b) => bucketSeconds(n, b)));
  const up = await scaleUp(ctx, n, { name: `throttled-scale-up-${n}` });
  const m = up.metrics as { ec2CallsPerMachine: number; ec2Throttled: number };
  const calls = m.ec2CallsPerMachine * n;
  await scaleDown(ctx, up.set, n);
  knobs.reset();
  return {
    name: `throttled-scale-up-${n}`,
    provider: 'aws',
    metrics: {
      ...up.metrics,
      buckets: buckets.map((b) => ({ match: b.match, burst: b.burst, ratePerSecond: b.ratePerSecond })),
      floorSeconds: round(floorSeconds, 2),
      ratioToFloor: round(up.seconds / floorSeconds, 3),
      throttledShare: round(calls > 0 ? m.ec2Throttled / calls : 0, 4),
    },
  };
}
