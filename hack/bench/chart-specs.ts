// The benchmark's results as Vega-Lite specs, one per scale scenario family (scale-up, scale-down): the count of
// Machines over time per size, when the run recorded it, then wall time and cloud calls per Machine by size. Pure
// functions from a run's JSON to specs; render-svg.ts draws them.
import type { TopLevelSpec } from 'vega-lite';
import type { ChartPanel } from './render-svg.js';
import type { ScenarioResult } from './scenarios.js';

/** What `npm run bench -- --json FILE` writes (the fields the charts read). */
export interface BenchRun {
  scenarios: ScenarioResult[];
  quick?: boolean;
  /** Absent for AWS. */
  provider?: string;
  totalSeconds?: number;
}

/** The cloud's metric-key prefix and label, as in providers.ts ("ec2", "EC2"). */
export interface CloudLabels {
  metricPrefix: string;
  cloudLabel: string;
}

export interface ChartFamily {
  /** The scenario name without its size: "scale-up" for scale-up-1 … scale-up-2000. */
  family: string;
  /** The metric holding the count over time: [seconds, count] pairs. */
  seriesKey: string;
  /** What that count is, as the axis says it. */
  counted: string;
}

export const CHART_FAMILIES: readonly ChartFamily[] = [
  { family: 'scale-up', seriesKey: 'runningOverTime', counted: 'Machines Running' },
  { family: 'scale-down', seriesKey: 'remainingOverTime', counted: 'Machines left' },
];

export interface BenchChart {
  family: string;
  spec: TopLevelSpec;
  /** False when no scenario of the family carried its time series (runs before it was recorded). */
  hasSeries: boolean;
}

const SCHEMA = 'https://vega.github.io/schema/vega-lite/v6.json';
/** Sizes are categories of very different magnitude (1 … 2,000): a categorical palette keeps size 1 visible. */
const SIZE_COLOR = { scheme: 'tableau10' } as const;

const num = (s: ScenarioResult, key: string): number | undefined => {
  const v = s.metrics[key];
  return typeof v === 'number' ? v : undefined;
};

function numbers(s: ScenarioResult, key: string): Record<string, number> {
  const v = s.metrics[key];
  if (!v || typeof v !== 'object' || Array.isArray(v)) return {};
  return Object.fromEntries(Object.entries(v).filter((e): e is [string, number] => typeof e[1] === 'number'));
}

function series(s: ScenarioResult, key: string): Array<[number, number]> | undefined {
  const v = s.metrics[key];
  if (!Array.isArray(v)) return undefined;
  return v.filter(
    (p): p is [number, number] => Array.isArray(p) && typeof p[0] === 'number' && typeof p[1] === 'number',
  );
}

/** The family's scenarios, one per size, smallest first ("throttled-scale-up-N" is not "scale-up"). */
export function familyScenarios(run: BenchRun, family: string): Array<{ size: number; s: ScenarioResult }> {
  const out: Array<{ size: number; s: ScenarioResult }> = [];
  for (const s of run.scenarios) {
    if (!s.name.startsWith(`${family}-`)) continue;
    const size = Number(s.name.slice(family.length + 1));
    if (Number.isInteger(size) && size > 0) out.push({ size, s });
  }
  return out.sort((a, b) => a.size - b.size);
}

/** Room above the tallest bar for its label. */
const headroom = (values: number[]) => ({ domain: [0, Math.max(0, ...values) * 1.15] });

const sizeAxis = { field: 'size', type: 'ordinal', title: 'Machines', axis: { labelAngle: 0 } } as const;

function timePanel(rows: Array<{ size: number; seconds: number; count: number }>, counted: string): ChartPanel {
  return {
    title: `${counted} over time`,
    width: 640,
    height: 260,
    data: { values: rows },
    mark: { type: 'line', interpolate: 'step-after', point: false, strokeWidth: 2 },
    encoding: {
      x: { field: 'seconds', type: 'quantitative', title: 'seconds since the scenario started' },
      // Machines are whole: no 0.2 ticks on a size-1 chart.
      y: { field: 'count', type: 'quantitative', title: counted, axis: { tickMinStep: 1, format: 'd' } },
      color: { field: 'size', type: 'ordinal', title: 'Machines', scale: SIZE_COLOR },
    },
  };
}

function wallPanel(rows: Array<{ size: number; wallSeconds: number }>): ChartPanel {
  return {
    title: 'Wall time',
    width: 300,
    height: 220,
    data: { values: rows },
    encoding: {
      x: sizeAxis,
      y: {
        field: 'wallSeconds',
        type: 'quantitative',
        title: 'seconds',
        scale: headroom(rows.map((r) => r.wallSeconds)),
      },
    },
    layer: [
      { mark: { type: 'bar', color: '#4c78a8' } },
      {
        mark: { type: 'text', dy: -6 },
        encoding: { text: { field: 'wallSeconds', type: 'quantitative', format: '.1f' } },
      },
    ],
  };
}

function callsPanel(
  byAction: Array<{ size: number; action: string; calls: number }>,
  totals: Array<{ size: number; calls: number }>,
  label: string,
): ChartPanel {
  return {
    title: `${label} calls per Machine`,
    width: 300,
    height: 220,
    layer: [
      {
        data: { values: byAction },
        mark: 'bar',
        encoding: {
          x: sizeAxis,
          y: {
            field: 'calls',
            type: 'quantitative',
            stack: 'zero',
            title: 'calls per Machine',
            scale: headroom(totals.map((r) => r.calls)),
          },
          color: {
            field: 'action',
            type: 'nominal',
            title: `${label} action`,
            scale: { scheme: 'tableau20' },
            legend: { labelLimit: 0 },
          },
          order: { field: 'action' },
        },
      },
      {
        data: { values: totals },
        mark: { type: 'text', dy: -6 },
        encoding: {
          x: sizeAxis,
          y: { field: 'calls', type: 'quantitative' },
          text: { field: 'calls', type: 'quantitative', format: '.2~f' },
        },
      },
    ],
  };
}

/** One family's chart, or undefined when the run has none of its scenarios. */
export function familyChart(run: BenchRun, f: ChartFamily, cloud: CloudLabels): BenchChart | undefined {
  const scenarios = familyScenarios(run, f.family);
  if (scenarios.length === 0) return undefined;
  const k = cloud.metricPrefix;
  const timeRows = scenarios.flatMap(({ size, s }) =>
    (series(s, f.seriesKey) ?? []).map(([seconds, count]) => ({ size, seconds, count })),
  );
  const wallRows = scenarios.flatMap(({ size, s }) => {
    const wallSeconds = num(s, 'wallSeconds');
    return wallSeconds === undefined ? [] : [{ size, wallSeconds }];
  });
  const actionRows = scenarios.flatMap(({ size, s }) =>
    Object.entries(numbers(s, `${k}CallsPerMachineByAction`)).map(([action, calls]) => ({ size, action, calls })),
  );
  const totalRows = scenarios.flatMap(({ size, s }) => {
    const calls = num(s, `${k}CallsPerMachine`);
    return calls === undefined ? [] : [{ size, calls }];
  });
  const hasSeries = timeRows.length > 0;
  const subtitle = [
    `${run.provider ?? 'aws'}, ${run.quick ? '--quick' : 'full'} plan, sizes ${scenarios.map((x) => x.size).join(', ')}` +
      (run.totalSeconds === undefined ? '' : `; whole run ${(run.totalSeconds / 60).toFixed(1)} min`),
    ...(hasSeries ? [] : [`this run did not record ${f.counted} over time (${f.seriesKey}); only the per-size panels`]),
  ];
  const spec: TopLevelSpec = {
    $schema: SCHEMA,
    title: { text: `bench: ${f.family}`, subtitle, anchor: 'start' },
    vconcat: [
      ...(hasSeries ? [timePanel(timeRows, f.counted)] : []),
      { hconcat: [wallPanel(wallRows), callsPanel(actionRows, totalRows, cloud.cloudLabel)] },
    ],
    resolve: { scale: { color: 'independent' }, legend: { color: 'independent' } },
    config: { background: 'white', font: 'sans-serif' },
  };
  return { family: f.family, spec, hasSeries };
}

/** A chart per scale scenario family the run has. */
export function benchCharts(run: BenchRun, cloud: CloudLabels): BenchChart[] {
  return CHART_FAMILIES.flatMap((f) => familyChart(run, f, cloud) ?? []);
}
