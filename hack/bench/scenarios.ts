// The benchmark's scenarios. Each drives the system only through the API (as a user would) and measures from
// outside: wall time by polling Machines, costs by diffing Snapshots.
import { MachineSets, type Machine } from '../../lib/index.js';
import type { ControllerProcess } from './controller-process.js';
import { BENCH_NAMESPACE, type BenchEnvironment } from './environment.js';
import { setTimeout as sleep } from 'node:timers/promises';
import { CountSeries } from './count-series.js';
import { cost, heapMb, peakRssMb, perUnit, round, snapshot, startHeapWindow, type Cost } from './measure.js';
import type { StartProgress } from './progress.js';
import type { BenchProvider } from './providers.js';
import { eventually } from '../../sim/kit/index.js';
import { liveInstances, machineSet, machinesOf, scale } from './workload.js';
import { traceMachineWrites } from './write-trace.js';

export interface ScenarioResult {
  name: string;
  provider: string;
  metrics: Record<string, unknown>;
}

export interface BenchContext {
  env: BenchEnvironment;
  controllers: ControllerProcess[];
  /** The controllers' --sync-period, in ms. */
  syncPeriodMs: number;
  /** Report what each write to a scale-up's Machines changed (--trace-writes). */
  traceWrites?: boolean;
  log: (line: string) => void;
  /** A progress line per scenario while it waits. */
  progress: StartProgress;
}

const pollInterval = (n: number) => Math.min(1_000, 100 + n);
const running = (m: Machine) => m.status?.phase === 'Running';

function phaseSummary(ms: Machine[]): string {
  const by: Record<string, number> = {};
  for (const m of ms) {
    const p = m.metadata.deletionTimestamp ? 'Deleting' : (m.status?.phase ?? '(none)');
    by[p] = (by[p] ?? 0) + 1;
  }
  return Object.entries(by)
    .map(([p, n]) => `${p}=${n}`)
    .join(' ');
}

const sumOf = (byAction: Record<string, number>, actions: string[]) =>
  actions.reduce((a, k) => a + (byAction[k] ?? 0), 0);

/** Cloud-call keys carry the cloud's prefix ("ec2CallsPerMachine", "gceCallsPerMachine", "vpcCallsPerMachine"). */
function costMetrics(c: Cost, n: number, p: BenchProvider): Record<string, unknown> {
  const k = p.metricPrefix;
  return {
    [`${k}CallsPerMachine`]: round(c.ec2Total / n),
    ...(p.reportActionClasses
      ? {
          [`${k}CreateCallsPerMachine`]: round(sumOf(c.ec2ByAction, p.createActions) / n),
          [`${k}DescribeCallsPerMachine`]: round(sumOf(c.ec2ByAction, p.describeActions) / n),
        }
      : {}),
    [`${k}CallsPerMachineByAction`]: perUnit(c.ec2ByAction, n),
    [`${k}Throttled`]: c.ec2Throttled,
    kubeRequestsPerMachineByVerb: perUnit(c.kubeByVerb, n),
    kubeWritesPerMachine: round(c.kubeWrites / n),
    kubeWritesPerMachineByRequest: perUnit(
      Object.fromEntries(Object.entries(c.kubeByRequest).filter(([k]) => !/^(get|list|watch) /.test(k))),
      n,
    ),
    reconcilesPerMachine: perUnit(c.reconciles, n),
    cpuSeconds: c.cpuSeconds,
  };
}

/** Scale a new MachineSet from 0 to n; measured until every Machine is Running. Leaves it running. */
export async function scaleUp(
  ctx: BenchContext,
  n: number,
  opts: { name?: string; timeoutMs?: number } = {},
): Promise<ScenarioResult & { set: string; seconds: number }> {
  const name = opts.name ?? `scale-up-${n}`;
  const set = `bench-${n}-${Date.now().toString(36)}`;
  const trace = ctx.traceWrites ? traceMachineWrites(ctx.env.client, set) : undefined;
  startHeapWindow(ctx.controllers);
  const before = await snapshot(ctx.env, ctx.controllers);
  await ctx.env.client.create(MachineSets, machineSet(set, n, ctx.env.provider));
  let last: Machine[] = [];
  const runningOverTime = new CountSeries();
  const progress = ctx.progress(name, n, 'Running');
  try {
    await eventually(
      `${n} Running machines in ${set}`,
      async () => {
        last = await machinesOf(ctx.env.client, set);
        const r = last.filter(running).length;
        runningOverTime.add((performance.now() - before.at) / 1000, r);
        progress.update(r, phaseSummary(last));
        return last.length === n && r === n;
      },
      {
        timeoutMs: opts.timeoutMs ?? 120_000 + n * 1_000,
        intervalMs: pollInterval(n),
        describe: () => phaseSummary(last),
      },
    );
  } finally {
    progress.end();
  }
  const after = await snapshot(ctx.env, ctx.controllers);
  const c = cost(before, after);
  const writesByChange = await trace?.stop(n);
  ctx.log(`${name}: ${c.seconds.toFixed(1)} s`);
  return {
    name,
    provider: ctx.env.provider.name,
    set,
    seconds: c.seconds,
    metrics: {
      machines: n,
      wallSeconds: round(c.seconds, 2),
      syncPeriodSeconds: ctx.syncPeriodMs / 1000,
      ...costMetrics(c, n, ctx.env.provider),
      // The provider's CPU per Machine made: what its own process spent, whoever else shares the machine.
      cpuMsPerMachineCreated: round(((c.cpuSeconds[ctx.env.provider.binary.name] ?? 0) * 1000) / n, 1),
      peakRssMb: peakRssMb(ctx.controllers),
      ...heapMb(ctx.controllers),
      runningOverTime: runningOverTime.points,
      ...(writesByChange
        ? {
            machineWritesPerMachineByChange: writesByChange.byChange,
            timelineSeconds: writesByChange.timeline,
            kubeWritesPerMachineByClient: perUnit(
              Object.fromEntries(Object.entries(c.kubeByAgentRequest).filter(([k]) => !/\|(get|list|watch) /.test(k))),
              n,
            ),
          }
        : {}),
    },
  };
}

/** Waits until `periods` resync periods have passed since `from` (performance.now()), showing how many have. */
export async function waitResyncPeriods(ctx: BenchContext, name: string, periods: number, from: number): Promise<void> {
  const progress = ctx.progress(name, periods, 'resync periods');
  try {
    const end = from + periods * ctx.syncPeriodMs;
    for (let now = performance.now(); now < end; now = performance.now()) {
      progress.update(Math.floor((now - from) / ctx.syncPeriodMs));
      await sleep(Math.min(1_000, end - now));
    }
  } finally {
    progress.end();
  }
}

/** n Running machines left alone for `periods` resync periods: what does keeping them cost? */
export async function steadyState(ctx: BenchContext, set: string, n: number, periods: number): Promise<ScenarioResult> {
  // Let the last status writes of the scale-up settle so they are not counted as steady-state cost.
  await sleep(Math.min(5_000, ctx.syncPeriodMs / 2));
  startHeapWindow(ctx.controllers);
  const before = await snapshot(ctx.env, ctx.controllers);
  await waitResyncPeriods(ctx, `steady-state-${n}`, periods, before.at);
  const after = await snapshot(ctx.env, ctx.controllers);
  const c = cost(before, after);
  const machines = await machinesOf(ctx.env.client, set);
  const p = ctx.env.provider;
  ctx.log(`steady ${n} over ${periods} resyncs: ${c.ec2Total} ${p.cloudLabel} calls`);
  return {
    name: `steady-state-${n}`,
    provider: p.name,
    metrics: {
      machines: n,
      resyncPeriods: periods,
      syncPeriodSeconds: ctx.syncPeriodMs / 1000,
      stillRunning: machines.filter(running).length,
      [`${p.metricPrefix}CallsPerMachinePerResync`]: round(c.ec2Total / n / periods, 4),
      ...(p.reportActionClasses
        ? {
            [`${p.metricPrefix}DescribeCallsPerMachinePerResync`]: round(
              sumOf(c.ec2ByAction, p.describeActions) / n / periods,
              4,
            ),
          }
        : {}),
      [`${p.metricPrefix}CallsByAction`]: c.ec2ByAction,
      kubeRequestsPerMachinePerResync: round(Object.values(c.kubeByVerb).reduce((a, b) => a + b, 0) / n / periods, 4),
      kubeWritesPerMachinePerResync: round(c.kubeWrites / n / periods, 4),
      reconcilesPerMachinePerResync: Object.fromEntries(
        Object.entries(c.reconciles).map(([k, v]) => [k, round(v / n / periods)]),
      ),
      cpuSeconds: c.cpuSeconds,
      cpuMsPerMachinePerResync: Object.fromEntries(
        Object.entries(c.cpuSeconds).map(([k, v]) => [k, round((v * 1000) / n / periods, 2)]),
      ),
      peakRssMb: peakRssMb(ctx.controllers),
      ...heapMb(ctx.controllers),
    },
  };
}

/** Scale the set to 0 (each Machine drained, then its instance terminated); measured until no Machine is left. */
export async function scaleDown(ctx: BenchContext, set: string, n: number): Promise<ScenarioResult> {
  startHeapWindow(ctx.controllers);
  const before = await snapshot(ctx.env, ctx.controllers);
  await scale(ctx.env.client, set, 0);
  let last: Machine[] = [];
  const remainingOverTime = new CountSeries();
  const progress = ctx.progress(`scale-down-${n}`, n, 'deleted');
  try {
    await eventually(
      `no machines left in ${set}`,
      async () => {
        last = await machinesOf(ctx.env.client, set);
        remainingOverTime.add((performance.now() - before.at) / 1000, last.length);
        progress.update(n - last.length, phaseSummary(last));
        return last.length === 0;
      },
      { timeoutMs: 120_000 + n * 1_000, intervalMs: pollInterval(n), describe: () => phaseSummary(last) },
    );
  } finally {
    progress.end();
  }
  const after = await snapshot(ctx.env, ctx.controllers);
  const c = cost(before, after);
  const left = liveInstances(ctx.env.emulator).length;
  await ctx.env.client.delete(MachineSets, { namespace: BENCH_NAMESPACE, name: set });
  ctx.log(`scale-down ${n}: ${c.seconds.toFixed(1)} s, ${left} instances left`);
  return {
    name: `scale-down-${n}`,
    provider: ctx.env.provider.name,
    metrics: {
      machines: n,
      wallSeconds: round(c.seconds, 2),
      syncPeriodSeconds: ctx.syncPeriodMs / 1000,
      ...costMetrics(c, n, ctx.env.provider),
      instancesLeft: left,
      peakRssMb: peakRssMb(ctx.controllers),
      ...heapMb(ctx.controllers),
      remainingOverTime: remainingOverTime.points,
    },
  };
}
