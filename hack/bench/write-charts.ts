// The benchmark's charts beside its JSON: bench.json -> bench.scale-up.svg, bench.scale-down.svg.
import { writeFileSync } from 'node:fs';
import { basename, dirname, extname, join } from 'node:path';
import { benchCharts, type BenchRun, type CloudLabels } from './chart-specs.js';
import { renderSvg } from './render-svg.js';

/** `dir/name.json` -> `dir/name.<suffix>.svg`. */
export function besideJson(jsonPath: string, suffix: string): string {
  return join(dirname(jsonPath), `${basename(jsonPath, extname(jsonPath))}.${suffix}.svg`);
}

/** Writes one SVG per scale scenario family of the run; returns the files written. */
export async function writeBenchCharts(jsonPath: string, run: BenchRun, cloud: CloudLabels): Promise<string[]> {
  const written: string[] = [];
  for (const c of benchCharts(run, cloud)) {
    const file = besideJson(jsonPath, c.family);
    writeFileSync(file, `${await renderSvg(c.spec)}\n`);
    written.push(file);
  }
  return written;
}
