// npm run bench [-- --quick] [--json FILE] [--sizes 1,100,500,1000]
// Runs the real provider binary and MachineSet controller as separate processes against the local control
// plane, the EC2 emulator and the kubelet simulator (hosted here), and measures from outside. See README.md.
// The SDK prints a Node-version notice on every client otherwise.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Command, InvalidArgumentError } from 'commander';
import { controllerProcesses, type ControllerProcess } from './controller-process.js';
import { BENCH_NAMESPACE, startBenchEnvironment, type BenchEnvironment } from './environment.js';
import { evaluateTargets, formatTable, type BenchReport } from './report.js';
import { scaleDown, scaleUp, steadyState, type BenchContext, type ScenarioResult } from './scenarios.js';
import { EC2_BUCKETS, throttled, type Bucket } from './throttled.js';

interface Plan {
  sizes: number[];
  steadyN: number;
  steadyPeriods: number;
  syncPeriodMs: number;
  throttledN: number;
  bootDelayMs: number;
  latencyMs: number;
  buckets: Bucket[];
}

const FULL: Plan = { sizes: [1, 100, 500, 1000], steadyN: 1000, steadyPeriods: 3, syncPeriodMs: 30_000, throttledN: 500, bootDelayMs: 10_000, latencyMs: 20, buckets: EC2_BUCKETS };
const QUICK: Plan = { sizes: [1, 50], steadyN: 50, steadyPeriods: 2, syncPeriodMs: 8_000, throttledN: 60, bootDelayMs: 10_000, latencyMs: 20, buckets: EC2_BUCKETS.map((b) => ({ ...b, burst: b.burst / 10 })) };
// --quick keeps EC2's refill rates but a tenth of its bucket sizes, so that 60 machines already outrun them.

function sizes(v: string): number[] {
  const out = v.split(',').map((s) => Number(s.trim()));
  if (out.some((n) => !Number.isInteger(n) || n < 1)) throw new InvalidArgumentError(`--sizes must be positive integers separated by commas, got ${JSON.stringify(v)}`);
  return out;
}

async function withControllers<T>(env: BenchEnvironment, plan: Plan, logDir: string, fn: (ctx: BenchContext) => Promise<T>): Promise<T> {
  const controllers: ControllerProcess[] = controllerProcesses({
    kubeconfigPath: env.kubeconfigPath,
    awsEndpoint: env.emulator.endpoint,
    namespace: BENCH_NAMESPACE,
    logDir,
    extraArgs: [`--sync-period=${plan.syncPeriodMs}ms`],
  });
  try {
    for (const c of controllers) await c.start();
    for (const c of controllers) await c.waitReady();
    const rssTimer = setInterval(() => controllers.forEach((c) => c.sampleRss()), 500);
    try {
      return await fn({ env, controllers, syncPeriodMs: plan.syncPeriodMs, log: (l) => process.stderr.write(`bench: ${l}\n`) });
    } finally {
      clearInterval(rssTimer);
    }
  } finally {
    for (const c of controllers) await c.stop();
  }
}

async function main(): Promise<void> {
  const program = new Command('bench')
    .option('--quick', 'reduced set (under 2 minutes)')
    .option('--json <file>', 'also write the results as JSON')
    .option('--sizes <list>', 'scale-up sizes, e.g. 1,100,500,1000', sizes)
    .option('--keep', 'keep the state directory (logs, API data)')
    .option('--strict', 'exit 1 when a target is missed')
    .option('--no-throttled', 'skip the throttled scenario')
    .parse();
  const o = program.opts<{ quick?: boolean; json?: string; sizes?: number[]; keep?: boolean; strict?: boolean; throttled: boolean }>();
  const plan: Plan = { ...(o.quick ? QUICK : FULL) };
  if (o.sizes) {
    plan.sizes = o.sizes;
    plan.steadyN = Math.max(...o.sizes);
  }
  const stateDir = mkdtempSync(join(tmpdir(), 'machine-api-bench-'));
  process.stderr.write(`bench: state and logs in ${stateDir}\n`);
  const scenarios: ScenarioResult[] = [];
  const start = Date.now();
  try {
    // The main run: default emulator (20 ms per call, 10 s boot), one environment for every size.
    const env = await startBenchEnvironment({ stateDir: join(stateDir, 'main'), bootDelayMs: plan.bootDelayMs, latencyMs: plan.latencyMs });
    try {
      await withControllers(env, plan, join(stateDir, 'main'), async (ctx) => {
        for (const n of plan.sizes) {
          const up = await scaleUp(ctx, n);
          scenarios.push(up);
          if (n === plan.steadyN) scenarios.push(await steadyState(ctx, up.set, n, plan.steadyPeriods));
          scenarios.push(await scaleDown(ctx, up.set, n));
        }
      });
    } finally {
      await env.stop();
    }
    // Throttled: a fresh environment whose emulator has EC2's buckets.
    if (o.throttled) {
    const tenv = await startBenchEnvironment({ stateDir: join(stateDir, 'throttled'), bootDelayMs: plan.bootDelayMs, latencyMs: plan.latencyMs });
    try {
      await withControllers(tenv, plan, join(stateDir, 'throttled'), async (ctx) => {
        scenarios.push(await throttled(ctx, plan.throttledN, plan.buckets));
      });
    } finally {
      await tenv.stop();
    }
    }
  } finally {
    if (!o.keep) rmSync(stateDir, { recursive: true, force: true });
  }
  const report: BenchReport = { scenarios, targets: evaluateTargets(scenarios, { largest: Math.max(...plan.sizes) }) };
  process.stdout.write(formatTable(report));
  process.stdout.write(`\ntotal ${((Date.now() - start) / 1000).toFixed(0)} s\n`);
  if (o.json) writeFileSync(o.json, `${JSON.stringify({ ...report, quick: o.quick === true }, null, 2)}\n`);
  if (o.strict && report.targets.some((t) => !t.met)) process.exitCode = 1;
}

main().catch((err: unknown) => {
  process.stderr.write(`bench: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(2);
});
