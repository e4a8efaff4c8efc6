// npm run bench:chart -- FILE.json [FILE.json ...]
// Draws the charts of a saved run beside its JSON, as the run itself does with --json: a benchmark run's
// (FILE.scale-up.svg, FILE.scale-down.svg) or a chaos report's (FILE.summary.svg).
import { readFileSync, writeFileSync } from 'node:fs';
import { Command } from 'commander';
import { chaosChart, type ChaosReport } from '../chaos/chart-spec.js';
import type { BenchRun } from './chart-specs.js';
import { benchProvider } from './providers.js';
import { renderSvg } from './render-svg.js';
import { besideJson, writeBenchCharts } from './write-charts.js';

function isChaosReport(v: Record<string, unknown>): boolean {
  return typeof v.faultsInjected === 'object' && v.faultsInjected !== null;
}

async function chart(file: string): Promise<string[]> {
  const v = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
  if (isChaosReport(v)) {
    const out = besideJson(file, 'summary');
    writeFileSync(out, `${await renderSvg(chaosChart(v as unknown as ChaosReport))}\n`);
    return [out];
  }
  if (!Array.isArray(v.scenarios))
    throw new Error(`${file}: neither a bench run ("scenarios" array) nor a chaos report ("faultsInjected" object)`);
  const run = v as unknown as BenchRun;
  return writeBenchCharts(file, run, benchProvider(run.provider ?? 'aws'));
}

async function main(): Promise<void> {
  const files = new Command('bench:chart')
    .argument('<json...>', 'a file written by npm run bench -- --json or npm run chaos -- --json')
    .parse().args;
  for (const f of files) for (const out of await chart(f)) process.stdout.write(`${out}\n`);
}

main().catch((err: unknown) => {
  process.stderr.write(`bench:chart: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
