// npm run bench [-- --quick] [--provider aws|gcp|ibmcloud] [--json FILE] [--sizes 1,100,500,1000,2000] [--stock-out N]
// [--controller-arg=--flag=value]
// Runs the real provider binary and MachineSet controller as separate processes against the local control
// plane, the cloud's emulator and the kubelet simulator (hosted here), and measures from outside. See README.md.
// The SDK prints a Node-version notice on every client otherwise.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Command, InvalidArgumentError } from 'commander';
import { ensureCompiled } from './build.js';
import { controllerProcesses, type ControllerProcess } from './controller-process.js';
import { BENCH_NAMESPACE, startBenchEnvironment, type BenchEnvironment } from './environment.js';
import { evaluateTargets, formatTable, type BenchReport } from './report.js';
import { benchProvider, PROVIDER_NAMES, type BenchProvider } from './providers.js';
import { scaleDown, scaleUp, steadyState, type BenchContext, type ScenarioResult } from './scenarios.js';
import { planFor, type Plan } from './plans.js';
import { progressPrinter } from './progress.js';
import { seedAdopted } from './adopted.js';
import { snapshot, startHeapWindow } from './measure.js';
import { firstSync, steadyAdopted } from './steady-adopted.js';
import { stockOut } from './stock-out.js';
import { throttled } from './throttled.js';
import { writeBenchCharts } from './write-charts.js';

function providerOption(v: string): BenchProvider {
  try {
    return benchProvider(v);
  } catch (err) {
    throw new InvalidArgumentError((err as Error).message);
  }
}

function sizes(v: string): number[] {
  const out = v.split(',').map((s) => Number(s.trim()));
  if (out.some((n) => !Number.isInteger(n) || n < 1))
    throw new InvalidArgumentError(`--sizes must be positive integers separated by commas, got ${JSON.stringify(v)}`);
  return out;
}

/** The Deployment's resync period: the binaries' own default, as the operator runs them (no --sync-period). */
const DEPLOYED_SYNC_PERIOD_MS = 600_000;

/**
 * Runs `fn` with the controller binaries up. `syncPeriodMs` undefined runs them as deployed (their own 10-minute
 * resync); the steady-state scenarios shorten it so that several resyncs fit in a minute or two.
 */
async function withControllers<T>(
  env: BenchEnvironment,
  syncPeriodMs: number | undefined,
  logDir: string,
  compiledDir: string | undefined,
  extraArgs: { all: string[]; provider: string[] },
  traceWrites: boolean,
  fn: (ctx: BenchContext, startedAt: number) => Promise<T>,
): Promise<T> {
  const controllers: ControllerProcess[] = controllerProcesses({
    kubeconfigPath: env.kubeconfigPath,
    provider: env.provider,
    cloudArgs: env.provider.cloudArgs(env.emulator),
    namespace: BENCH_NAMESPACE,
    logDir,
    extraArgs: [...(syncPeriodMs === undefined ? [] : [`--sync-period=${syncPeriodMs}ms`]), ...extraArgs.all],
    providerArgs: extraArgs.provider,
    compiledDir,
  });
  const startedAt = performance.now();
  try {
    for (const c of controllers) await c.start();
    for (const c of controllers) await c.waitReady();
    // The control plane's process is measured as the controllers are (CPU, RSS, heap), but outlives them.
    const measured = env.controlPlaneProcess ? [...controllers, env.controlPlaneProcess] : controllers;
    // RSS from /proc every 500 ms; V8 heap used from each process's /metrics every second (a scrape is not free).
    const rssTimer = setInterval(() => measured.forEach((c) => c.sampleRss()), 500);
    const heapTimer = setInterval(() => measured.forEach((c) => void c.sampleHeap()), 1_000);
    try {
      return await fn(
        {
          env,
          controllers: measured,
          syncPeriodMs: syncPeriodMs ?? DEPLOYED_SYNC_PERIOD_MS,
          traceWrites,
          log: (l) => process.stderr.write(`bench: ${l}\n`),
          progress: progressPrinter({ stream: process.stderr, now: () => performance.now(), prefix: 'bench: ' }),
        },
        startedAt,
      );
    } finally {
      clearInterval(rssTimer);
      clearInterval(heapTimer);
    }
  } finally {
    for (const c of controllers) await c.stop();
  }
}

async function main(): Promise<void> {
  const program = new Command('bench')
    .option('--quick', 'reduced set (under 2 minutes)')
    .option('--provider <name>', `cloud: ${PROVIDER_NAMES.join(', ')}`, providerOption, benchProvider('aws'))
    .option('--json <file>', 'also write the results as JSON')
    .option('--sizes <list>', 'scale-up sizes, e.g. 1,100,500,1000,2000', sizes)
    .option('--keep', 'keep the state directory (logs, API data)')
    .option('--strict', 'exit 1 when a target is missed')
    .option('--no-throttled', 'skip the throttled scenario')
    .option('--no-stock-out', 'skip the stock-out scenario')
    .option(
      '--stock-out <n>',
      'the stock-out scenario alone, with n machines (and its no-stock-out scale-up)',
      (v) => sizes(v)[0]!,
    )
    .option('--no-steady-adopted', 'skip the steady-adopted scenario')
    .option(
      '--steady-adopted <n>',
      'the steady-adopted scenario alone, with n Machines made as adopted before the controllers start',
      (v) => sizes(v)[0]!,
    )
    .option('--trace-writes', "report what each write to a scale-up's Machines changed")
    .option('--tsx', 'run the controllers from source through tsx instead of compiling them first')
    .option(
      '--controller-arg <flag>',
      'a flag for every controller binary, repeatable (e.g. --controller-arg=--kube-api-qps=300)',
      (v: string, acc: string[]) => [...acc, v],
      [] as string[],
    )
    .option(
      '--provider-arg <flag>',
      'a flag for the provider binary alone, repeatable (e.g. --provider-arg=--enable-pprof)',
      (v: string, acc: string[]) => [...acc, v],
      [] as string[],
    )
    .parse();
  const o = program.opts<{
    quick?: boolean;
    provider: BenchProvider;
    json?: string;
    sizes?: number[];
    keep?: boolean;
    strict?: boolean;
    throttled: boolean;
    stockOut: boolean | number;
    steadyAdopted: boolean | number;
    tsx?: boolean;
    traceWrites?: boolean;
    controllerArg: string[];
    providerArg: string[];
  }>();
  const plan: Plan = planFor(o.quick === true, o.provider);
  if (o.sizes) {
    plan.sizes = o.sizes;
    plan.steadyN = Math.max(...o.sizes);
    // A run of chosen sizes is about them: the 5,000 adopted Machines come only when asked for by --steady-adopted.
    if (o.steadyAdopted === true) o.steadyAdopted = false;
  }
  if (typeof o.stockOut === 'number') {
    plan.stockOutN = o.stockOut;
    plan.sizes = [];
    o.throttled = false;
    if (o.steadyAdopted === true) o.steadyAdopted = false;
  }
  if (typeof o.steadyAdopted === 'number') {
    plan.adoptedN = o.steadyAdopted;
    plan.sizes = [];
    o.throttled = false;
    o.stockOut = false;
  }
  if (o.steadyAdopted === false) plan.adoptedN = 0;
  const log = (l: string) => process.stderr.write(`bench: ${l}\n`);
  const compiledDir = o.tsx ? undefined : ensureCompiled(log);
  const stateDir = mkdtempSync(join(tmpdir(), 'machine-api-bench-'));
  log(`state and logs in ${stateDir}`);
  const scenarios: ScenarioResult[] = [];
  const start = Date.now();
  try {
    // One environment for every scenario: default emulator (20 ms per call, 10 s boot); the throttled
    // scenario adds the cloud's buckets at the end and removes them after.
    const env = await startBenchEnvironment({
      stateDir,
      bootDelayMs: plan.bootDelayMs,
      latencyMs: plan.latencyMs,
      provider: o.provider,
      controlPlaneProcess: { compiledDir },
    });
    try {
      const controllersFor = <T>(
        syncPeriodMs: number | undefined,
        fn: (ctx: BenchContext, startedAt: number) => Promise<T>,
      ) =>
        withControllers(
          env,
          syncPeriodMs,
          stateDir,
          compiledDir,
          { all: o.controllerArg, provider: o.providerArg },
          o.traceWrites === true,
          fn,
        );
      // Scale-ups, scale-downs, stock-out and throttled run the binaries as deployed: a 30 s resync in a 2-minute
      // scale-up would reconcile every Machine four more times, a cost of the bench's period, not of the cluster.
      // The steady state gets binaries of its own with the plan's short period, started on the Machines the
      // scale-up of its size left, and the scale-down of that size gets deployed binaries again.
      const steadyAt = plan.sizes.indexOf(plan.steadyN);
      const upTo = steadyAt >= 0 ? plan.sizes.slice(0, steadyAt + 1) : plan.sizes;
      const beyond = steadyAt >= 0 ? plan.sizes.slice(steadyAt + 1) : [];
      let baseline: number | undefined;
      let noStockOut: number | undefined;
      let kept: string | undefined;
      const ladder = async (ctx: BenchContext, ns: number[]): Promise<void> => {
        for (const n of ns) {
          const up = await scaleUp(ctx, n);
          if (n === 1) baseline = up.seconds;
          if (n === plan.stockOutN) noStockOut = up.seconds;
          scenarios.push(up);
          if (steadyAt >= 0 && n === plan.steadyN && kept === undefined) kept = up.set;
          else scenarios.push(await scaleDown(ctx, up.set, n));
        }
      };
      if (upTo.length > 0) await controllersFor(undefined, (ctx) => ladder(ctx, upTo));
      if (kept !== undefined) {
        const set = kept;
        await controllersFor(plan.syncPeriodMs, async (ctx) => {
          await firstSync(ctx, `steady-state-${plan.steadyN}`, plan.steadyN);
          scenarios.push(await steadyState(ctx, set, plan.steadyN, plan.steadyPeriods));
        });
      }
      if (kept !== undefined || beyond.length > 0 || o.stockOut || o.throttled)
        await controllersFor(undefined, async (ctx) => {
          if (kept !== undefined) {
            await firstSync(ctx, `scale-down-${plan.steadyN}`, plan.steadyN);
            scenarios.push(await scaleDown(ctx, kept, plan.steadyN));
          }
          await ladder(ctx, beyond);
          if (o.stockOut) {
            if (noStockOut === undefined) {
              const same = await scaleUp(ctx, plan.stockOutN, { name: `stock-out-baseline-${plan.stockOutN}` });
              await scaleDown(ctx, same.set, plan.stockOutN);
              noStockOut = same.seconds;
            }
            scenarios.push(await stockOut(ctx, plan.stockOutN, noStockOut));
          }
          if (o.throttled) {
            if (baseline === undefined) {
              const one = await scaleUp(ctx, 1, { name: 'throttled-baseline-1' });
              await scaleDown(ctx, one.set, 1);
              baseline = one.seconds;
            }
            scenarios.push(await throttled(ctx, plan.throttledN, baseline, plan.buckets));
          }
        });
      // Last: its Machines stay until the environment goes, and its binaries start after the seeding, as a
      // Deployment rolled out onto an existing cluster would.
      if (plan.adoptedN > 0) {
        const n = plan.adoptedN;
        const { sets } = await seedAdopted(env, `adopted-${n}`, n, log);
        const cp = env.controlPlaneProcess;
        if (cp) startHeapWindow([cp]);
        const start = await snapshot(env, cp ? [cp] : []);
        scenarios.push(
          await controllersFor(plan.syncPeriodMs, (ctx, startedAt) =>
            steadyAdopted(ctx, { sets, n, periods: plan.steadyPeriods, startedAt, start }),
          ),
        );
      }
    } finally {
      await env.stop();
    }
  } finally {
    if (!o.keep) rmSync(stateDir, { recursive: true, force: true });
  }
  const totalSeconds = Math.round((Date.now() - start) / 1000);
  const report: BenchReport = {
    scenarios,
    targets: evaluateTargets(scenarios, {
      largest: Math.max(0, ...plan.sizes),
      limits: plan.limits,
      cloud: o.provider,
      totalSeconds,
    }),
    totalSeconds,
  };
  process.stdout.write(formatTable(report));
  process.stdout.write(`\ntotal ${totalSeconds} s\n`);
  if (o.json) {
    const run = {
      ...report,
      quick: o.quick === true,
      ...(o.provider.name === 'aws' ? {} : { provider: o.provider.name }),
    };
    writeFileSync(o.json, `${JSON.stringify(run, null, 2)}\n`);
    for (const file of await writeBenchCharts(o.json, run, o.provider)) log(`chart in ${file}`);
  }
  if (o.strict && report.targets.some((t) => !t.met)) process.exitCode = 1;
}

main().catch((err: unknown) => {
  process.stderr.write(`bench: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(2);
});
