// steady-N (the adopted steady state): the binaries start, as the Deployment starts them, into a cluster of N Machines that need
// nothing (adopted.ts made them): how long until the machine controller has looked at every Machine once
// (firstSyncSeconds), and what keeping them costs over the plan's resync periods: cloud calls, reconciles and
// Kubernetes writes per Machine per resync (writes should be none), CPU per Machine per resync, heap and RSS.
import { setTimeout as sleep } from 'node:timers/promises';
import { sumMetric } from './controller-process.js';
import { cost, heapMb, peakRssMb, round, snapshot, type Cost, type Snapshot } from './measure.js';
import { waitResyncPeriods, type BenchContext, type ScenarioResult } from './scenarios.js';
import { machinesOf } from './workload.js';

export const MACHINE_CONTROLLER = 'machine-controller';

/** Per Machine per resync, rounded. */
const perMachineResync = (r: Record<string, number>, n: number, periods: number, digits = 4) =>
  Object.fromEntries(Object.entries(r).map(([k, v]) => [k, round(v / n / periods, digits)]));

/** Writes by "client|verb resource" (what wrote, when something did). */
const writesByClient = (c: Cost) =>
  Object.fromEntries(Object.entries(c.kubeByAgentRequest).filter(([k]) => !/\|(get|list|watch) /.test(k)));

/** The machine controller's reconciles so far, from the provider binary's /metrics. */
async function machineReconciles(ctx: BenchContext): Promise<number> {
  const provider = ctx.controllers.find((c) => c.name === ctx.env.provider.binary.name);
  if (!provider?.running) throw new Error('the provider binary is not running');
  return sumMetric(await provider.metrics(), 'controller_runtime_reconcile_total', { controller: MACHINE_CONTROLLER });
}

/** Waits until binaries just started on n existing Machines have reconciled each of them once. */
export async function firstSync(ctx: BenchContext, name: string, n: number): Promise<void> {
  const first = ctx.progress(`${name} first sync`, n, 'reconciled');
  try {
    const deadline = performance.now() + 600_000;
    for (;;) {
      const done = await machineReconciles(ctx);
      first.update(Math.min(n, done));
      if (done >= n) break;
      if (performance.now() > deadline) throw new Error(`${name}: ${done} of ${n} Machines reconciled in 10 min`);
      await sleep(250);
    }
  } finally {
    first.end();
  }
}

/**
 * Measures from `startedAt` (when the binaries were started) until the machine controller has reconciled n times,
 * then over `periods` resync periods. `start` was taken before the binaries started, so the first sync's cost
 * includes what they did while starting.
 */
export async function steadyAdopted(
  ctx: BenchContext,
  o: { sets: string[]; n: number; periods: number; startedAt: number; start: Snapshot },
): Promise<ScenarioResult> {
  const { sets, n, periods, startedAt, start } = o;
  const name = `steady-${n}`;
  const p = ctx.env.provider;
  await firstSync(ctx, name, n);
  const firstSyncSeconds = (performance.now() - startedAt) / 1000;
  // What the first look wrote settles (the writes' own watch events come back) before the resyncs are counted.
  await sleep(Math.min(5_000, ctx.syncPeriodMs / 2));
  const firstSyncCost = cost(start, await snapshot(ctx.env, ctx.controllers));
  const before = await snapshot(ctx.env, ctx.controllers);
  await waitResyncPeriods(ctx, name, periods, before.at);
  const c = cost(before, await snapshot(ctx.env, ctx.controllers));
  let running = 0;
  for (const set of sets)
    running += (await machinesOf(ctx.env.client, set)).filter((m) => m.status?.phase === 'Running').length;
  ctx.log(`${name}: first sync ${firstSyncSeconds.toFixed(1)} s, ${c.kubeWrites} writes over ${periods} resyncs`);
  return {
    name,
    provider: p.name,
    metrics: {
      machines: n,
      machineSets: sets.length,
      resyncPeriods: periods,
      syncPeriodSeconds: ctx.syncPeriodMs / 1000,
      stillRunning: running,
      firstSyncSeconds: round(firstSyncSeconds, 1),
      [`firstSync${p.metricPrefix.replace(/^./, (x) => x.toUpperCase())}CallsPerMachine`]: round(
        firstSyncCost.ec2Total / n,
        4,
      ),
      firstSyncKubeWritesPerMachine: round(firstSyncCost.kubeWrites / n, 3),
      firstSyncKubeWritesByClient: writesByClient(firstSyncCost),
      [`${p.metricPrefix}CallsPerMachinePerResync`]: round(c.ec2Total / n / periods, 4),
      [`${p.metricPrefix}CallsByAction`]: c.ec2ByAction,
      kubeWritesPerResync: round(c.kubeWrites / periods, 1),
      kubeWritesByClient: writesByClient(c),
      kubeRequestsPerMachinePerResync: round(Object.values(c.kubeByVerb).reduce((a, b) => a + b, 0) / n / periods, 4),
      reconcilesPerMachinePerResync: perMachineResync(c.reconciles, n, periods, 3),
      // What brought a reconcile back beyond the resync (a requeue or an error shows here).
      reconcilesByResult: c.reconcileResults,
      cpuSeconds: c.cpuSeconds,
      cpuMsPerMachinePerResync: Object.fromEntries(
        Object.entries(c.cpuSeconds).map(([k, v]) => [k, round((v * 1000) / n / periods, 3)]),
      ),
      peakRssMb: peakRssMb(ctx.controllers),
      ...heapMb(ctx.controllers),
    },
  };
}
