// Throttled scale-up: the emulator meters calls with EC2's documented request token buckets (per API, per
// account and region: non-mutating actions bucket 100 refilling 20/s, mutating actions bucket 200 refilling
// 5/s; RunInstances also spends one token of its resource bucket, 1,000 refilling 2/s, per instance). The
// floor is the time one machine takes in the same environment plus the time those buckets need to admit the
// N RunInstances calls the scale-up cannot do without; the result is completion time / floor and the share
// of replies that were RequestLimitExceeded. The scale-up starts from rest: the controllers' own request
// limiters have refilled after the scenario before it, as the floor's full buckets assume (a scale-down just
// before spends the same write quota the inserts need, and would measure how fast it finished instead).
// Other clouds use their own create action and classes (see providers.ts).
import { setTimeout as sleep } from 'node:timers/promises';
import { round } from './measure.js';
import type { CloudRateLimits } from '../../lib/index.js';
import type { Bucket } from './providers.js';
import { scaleDown, scaleUp, type BenchContext, type ScenarioResult } from './scenarios.js';

export type { Bucket };

/** How long the controller's own request buckets take to refill from empty, and a second more. */
export function restMs(limits: CloudRateLimits): number {
  return 1_000 + 1_000 * Math.max(...Object.values(limits).map((l) => l.burst / l.qps));
}

/** Seconds a bucket needs to admit `calls` calls starting full. */
export function bucketSeconds(calls: number, b: { burst: number; ratePerSecond: number }): number {
  return Math.max(0, calls - b.burst) / b.ratePerSecond;
}

/** `baselineSeconds`: one machine's scale-up in the same environment without buckets (the floor's per-machine part). */
export async function throttled(
  ctx: BenchContext,
  n: number,
  baselineSeconds: number,
  buckets: Bucket[],
): Promise<ScenarioResult> {
  const knobs = ctx.env.emulator.knobs;
  const p = ctx.env.provider;
  await sleep(restMs(p.clientLimits));
  for (const b of buckets)
    knobs.setRateLimit(b.match, { burst: b.burst, ratePerSecond: b.ratePerSecond, perAction: b.perAction });
  const runInstancesBuckets = buckets.filter((b) => p.createActions.includes(b.match) || b.match === 'mutate');
  const floorSeconds = baselineSeconds + Math.max(0, ...runInstancesBuckets.map((b) => bucketSeconds(n, b)));
  const up = await scaleUp(ctx, n, { name: `throttled-scale-up-${n}` });
  const perMachine = up.metrics[`${p.metricPrefix}CallsPerMachine`];
  const throttledReplies = up.metrics[`${p.metricPrefix}Throttled`];
  const calls = (typeof perMachine === 'number' ? perMachine : 0) * n;
  await scaleDown(ctx, up.set, n);
  knobs.reset();
  return {
    name: `throttled-scale-up-${n}`,
    provider: p.name,
    metrics: {
      ...up.metrics,
      buckets: buckets.map((b) => ({ match: b.match, burst: b.burst, ratePerSecond: b.ratePerSecond })),
      floorSeconds: round(floorSeconds, 2),
      ratioToFloor: round(up.seconds / floorSeconds, 3),
      throttledShare: round(calls > 0 && typeof throttledReplies === 'number' ? throttledReplies / calls : 0, 4),
    },
  };
}
