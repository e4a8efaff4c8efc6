// The stock-out scenario: n Machines of a MachineSet whose primary instance type the cloud refuses in every zone
// and market, with one fallback type that has capacity. It measures what capacity fallback costs against the
// same scale-up without a stock-out, measured in the same run: time to all Running, and launch calls (refused
// ones included) per Machine. The capacity memory is what keeps the latter near one. Like the throttled
// scenario it starts from rest: the scale-down just before it spent the provider's write budget (its request
// limiter's burst) that the no-stock-out scale-up started with in full, and the launches here would wait for it
// to refill; the ratio is to say what the stock-out costs, not how recently Machines were deleted.
import { setTimeout as sleep } from 'node:timers/promises';
import { MachineSets, type Machine, type MachineSet } from '../../lib/index.js';
import { eventually } from '../../sim/kit/index.js';
import { BENCH_NAMESPACE } from './environment.js';
import { cost, round, snapshot } from './measure.js';
import type { BenchProvider } from './providers.js';
import type { BenchContext, ScenarioResult } from './scenarios.js';
import { restMs } from './throttled.js';
import { machineSet, machinesOf, scale } from './workload.js';

const INSTANCE_TYPE_LABEL = 'machine.openshift.io/instance-type';

/** Gives a MachineSet of the bench's one fallback entry (another instance type, which has capacity). */
export function withCapacityFallback(set: MachineSet, p: BenchProvider): { primary: string } {
  const value = set.spec!.template!.spec!.providerSpec!.value as Record<string, unknown>;
  const { typeField, fallback } = p.stockOutFallback;
  value.fallbacks = [{ [typeField]: fallback }];
  return { primary: String(value[typeField]) };
}

export async function stockOut(ctx: BenchContext, n: number, baselineSeconds: number): Promise<ScenarioResult> {
  const p = ctx.env.provider;
  const set = `stock-out-${n}-${Date.now().toString(36)}`;
  const ms = machineSet(set, n, p);
  const { primary } = withCapacityFallback(ms, p);
  ctx.env.emulator.setTypeCapacity(primary, false);
  try {
    await sleep(restMs(p.clientLimits));
    const before = await snapshot(ctx.env, ctx.controllers);
    await ctx.env.client.create(MachineSets, ms);
    let last: Machine[] = [];
    await eventually(
      `${n} Running machines in ${set}`,
      async () => {
        last = await machinesOf(ctx.env.client, set);
        return last.length === n && last.every((m) => m.status?.phase === 'Running');
      },
      { timeoutMs: 120_000 + n * 1_000, intervalMs: Math.min(1_000, 100 + n) },
    );
    const after = await snapshot(ctx.env, ctx.controllers);
    const c = cost(before, after);
    const launches = p.createActions.reduce((a, k) => a + (c.ec2ByAction[k] ?? 0), 0);
    const onFallback = last.filter(
      (m) => m.metadata.labels?.[INSTANCE_TYPE_LABEL] === p.stockOutFallback.fallback,
    ).length;
    ctx.log(
      `stock-out ${n}: ${c.seconds.toFixed(1)} s (${baselineSeconds.toFixed(1)} s without), ${launches} launches`,
    );
    await scale(ctx.env.client, set, 0);
    await eventually(`no machines left in ${set}`, async () => (await machinesOf(ctx.env.client, set)).length === 0, {
      timeoutMs: 120_000 + n * 1_000,
      intervalMs: 500,
    });
    await ctx.env.client.delete(MachineSets, { namespace: BENCH_NAMESPACE, name: set });
    return {
      name: `stock-out-${n}`,
      provider: p.name,
      metrics: {
        machines: n,
        wallSeconds: round(c.seconds, 2),
        noStockOutSeconds: round(baselineSeconds, 2),
        ratioToNoStockOut: round(c.seconds / baselineSeconds, 2),
        mutatingCallsPerMachine: round(launches / n, 2),
        runningOnFallback: onFallback,
      },
    };
  } finally {
    ctx.env.emulator.setTypeCapacity(primary, true);
  }
}
