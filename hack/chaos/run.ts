// npm run chaos [-- --provider aws|gcp|ibmcloud] [--runs N] [--seed S] [--json FILE] [--in-process] [--duration 20s] [--parallel P] [--tsx]
// Seeded, reproducible fault runs; run k uses seed S+k, so any violation can be replayed alone with
// --runs 1 --seed <its seed>. Exits 1 when an invariant was violated.
// The SDK prints a Node-version notice on every client otherwise.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Command, InvalidArgumentError } from 'commander';
import { DEFAULT_TERMINATION_FOLLOW, DEFAULT_VISIBILITY_WINDOW_MS } from '../../lib/index.js';
import { ensureCompiled } from '../bench/build.js';
import { benchProvider, PROVIDER_NAMES, type BenchProvider } from '../bench/providers.js';
import { besideJson } from '../bench/write-charts.js';
import { renderSvg } from '../bench/render-svg.js';
import { chaosChart, type ChaosReport, type ChaosRunSummary } from './chart-spec.js';
import { chaosStateDir, runChaos } from './chaos-run.js';
import type { Violation } from './invariants.js';

function int(flag: string, min: number) {
  return (v: string): number => {
    const n = Number(v);
    if (!Number.isInteger(n) || n < min)
      throw new InvalidArgumentError(`${flag} must be an integer >= ${min}, got ${JSON.stringify(v)}`);
    return n;
  };
}

/**
 * The stated bound for the real binaries. The longest wait the controllers may legitimately take once faults
 * stop: a deleted Machine whose instance vanished without being seen terminating (a delete whose reply was
 * lost) keeps its finalizer until the visibility window after its launch has passed, then one termination
 * follow; plus 20 s for the controllers to settle everything else.
 */
const PROCESS_SETTLE_BOUND_MS = DEFAULT_VISIBILITY_WINDOW_MS + DEFAULT_TERMINATION_FOLLOW.maxMs + 20_000;

function providerOption(v: string): BenchProvider {
  try {
    return benchProvider(v);
  } catch (err) {
    throw new InvalidArgumentError((err as Error).message);
  }
}

async function main(): Promise<void> {
  const o = new Command('chaos')
    .option(
      '--provider <name>',
      `cloud: ${PROVIDER_NAMES.join(', ')} (the in-process controllers are AWS only)`,
      providerOption,
      benchProvider('aws'),
    )
    .option('--runs <n>', 'number of runs', int('--runs', 1), 5)
    .option('--seed <s>', 'seed of the first run', int('--seed', 0), 1)
    .option('--json <file>', 'write {"runs", "faultsInjected", "violations", "runResults"} here, and a chart beside it')
    .option('--in-process', 'run the controllers in this process instead of as the real binaries')
    .option('--duration <seconds>', 'seconds of workload and faults per run', int('--duration', 1), 20)
    .option('--max-replicas <n>', 'largest MachineSet size the workload asks for', int('--max-replicas', 1), 4)
    .option('--keep', 'keep the state directories (logs, API data)')
    .option(
      '--parallel <n>',
      'runs at a time (each has its own control plane, emulator and controllers)',
      int('--parallel', 1),
      1,
    )
    .option('--tsx', 'run the controller binaries from source through tsx instead of compiled')
    .parse()
    .opts<{
      provider: BenchProvider;
      runs: number;
      seed: number;
      json?: string;
      inProcess?: boolean;
      duration: number;
      maxReplicas: number;
      keep?: boolean;
      parallel: number;
      tsx?: boolean;
    }>();
  const log = (l: string) => process.stderr.write(`chaos: ${l}\n`);
  const root = mkdtempSync(join(tmpdir(), 'machine-api-chaos-'));
  // Compiled once; the tree is never rewritten, so a long run's restarts always find the binaries it began with.
  const compiledDir = o.inProcess || o.tsx ? undefined : ensureCompiled(log);
  const faultsInjected: Record<string, number> = {};
  const violations: Violation[] = [];
  const runResults: ChaosRunSummary[] = [];
  const settleTimeoutMs = o.inProcess ? 60_000 : PROCESS_SETTLE_BOUND_MS;
  let next = 0;
  let done = 0;
  const worker = async (): Promise<void> => {
    while (next < o.runs) {
      const seed = o.seed + next++;
      const r = await runChaos({
        seed,
        stateDir: chaosStateDir(root, seed),
        controllers: o.inProcess ? 'in-process' : 'process',
        compiledDir,
        durationMs: o.duration * 1000,
        tickMs: o.inProcess ? 300 : 600,
        maxReplicas: o.maxReplicas,
        provider: o.provider,
        settleTimeoutMs,
        log: (l) => log(`[seed ${seed}] ${l}`),
      });
      for (const [f, n] of Object.entries(r.faultsInjected)) faultsInjected[f] = (faultsInjected[f] ?? 0) + n;
      violations.push(...r.violations);
      const faults = Object.values(r.faultsInjected).reduce((a, b) => a + b, 0);
      runResults.push({
        seed,
        faults,
        settledSeconds: Math.round(r.settledMs / 100) / 10,
        violations: r.violations.length,
      });
      process.stdout.write(
        `run ${++done}/${o.runs} seed ${seed}: ${faults} faults, settled in ${(r.settledMs / 1000).toFixed(1)} s, ${r.violations.length} violations\n`,
      );
      for (const v of r.violations) process.stdout.write(`  VIOLATION seed ${v.seed}: ${v.invariant}: ${v.detail}\n`);
    }
  };
  try {
    await Promise.all(Array.from({ length: Math.min(o.parallel, o.runs) }, () => worker()));
  } finally {
    if (!o.keep) rmSync(root, { recursive: true, force: true });
    else process.stderr.write(`chaos: state kept in ${root}\n`);
  }
  process.stdout.write(
    `${o.runs} runs, ${Object.values(faultsInjected).reduce((a, b) => a + b, 0)} faults injected, ${violations.length} violations\n`,
  );
  if (o.json) {
    const report: ChaosReport = {
      runs: o.runs,
      faultsInjected,
      violations,
      runResults: runResults.sort((a, b) => a.seed - b.seed),
      settleBoundSeconds: settleTimeoutMs / 1000,
      ...(o.provider.name === 'aws' ? {} : { provider: o.provider.name }),
    };
    writeFileSync(o.json, `${JSON.stringify(report, null, 2)}\n`);
    const chart = besideJson(o.json, 'summary');
    writeFileSync(chart, `${await renderSvg(chaosChart(report))}\n`);
    log(`chart in ${chart}`);
  }
  if (violations.length > 0) process.exitCode = 1;
}

main().catch((err: unknown) => {
  process.stderr.write(`chaos: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(2);
});
