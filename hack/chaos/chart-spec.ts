// The chaos runs' summary as a Vega-Lite spec: the faults injected by kind, and each run's time to settle after
// the faults stopped, against the settle bound. A pure function of the report `--json` writes.
import type { TopLevelSpec } from 'vega-lite';
import type { ChartPanel } from '../bench/render-svg.js';
import type { Violation } from './invariants.js';

/** One run in the report: its seed, how many faults it took, how long it took to settle, what it violated. */
export interface ChaosRunSummary {
  seed: number;
  faults: number;
  settledSeconds: number;
  violations: number;
}

/** What `npm run chaos -- --json FILE` writes (the fields the chart reads). */
export interface ChaosReport {
  runs: number;
  faultsInjected: Record<string, number>;
  violations: Violation[];
  /** Absent in reports written before per-run results were kept. */
  runResults?: ChaosRunSummary[];
  /** The longest the controllers may take to settle; a run over it is a violation. */
  settleBoundSeconds?: number;
  provider?: string;
}

/** One layer of a layered view. */
type LayerPart = Extract<ChartPanel, { layer: unknown }>['layer'][number];

function faultsPanel(faults: Record<string, number>): ChartPanel {
  // Most frequent first, in the data's order (sort: null): a sort by x in the encoding would conflict with the
  // label layer's.
  const rows = Object.entries(faults)
    .map(([fault, count]) => ({ fault, count }))
    .sort((a, b) => b.count - a.count || a.fault.localeCompare(b.fault));
  const most = Math.max(0, ...rows.map((r) => r.count));
  return {
    title: 'Faults injected, by kind',
    width: 300,
    height: { step: 16 },
    data: { values: rows },
    encoding: {
      y: { field: 'fault', type: 'nominal', title: null, sort: null, axis: { labelLimit: 0 } },
      // Room right of the longest bar for its label.
      x: {
        field: 'count',
        type: 'quantitative',
        title: 'faults (all runs)',
        scale: { domain: [0, most * 1.12] },
        axis: { tickMinStep: 1, format: 'd' },
      },
    },
    layer: [
      { mark: { type: 'bar', color: '#4c78a8' } },
      { mark: { type: 'text', align: 'left', dx: 3 }, encoding: { text: { field: 'count', type: 'quantitative' } } },
    ],
  };
}

function settlePanel(runs: ChaosRunSummary[], boundSeconds: number | undefined): ChartPanel {
  const rows = runs.map((r) => ({ ...r, outcome: r.violations > 0 ? 'violations' : 'clean' }));
  const points: LayerPart = {
    data: { values: rows },
    mark: { type: 'point', filled: true, size: 60 },
    encoding: {
      // Seeds from the first run's, not from 0; padded so a single run's point is not on the edge.
      x: {
        field: 'seed',
        type: 'quantitative',
        title: 'seed',
        scale: { zero: false, nice: false, padding: 16 },
        axis: { tickMinStep: 1, format: 'd' },
      },
      y: { field: 'settledSeconds', type: 'quantitative', title: 'seconds to settle' },
      color: {
        field: 'outcome',
        type: 'nominal',
        title: 'run',
        scale: { domain: ['clean', 'violations'], range: ['#4c78a8', '#e45756'] },
      },
      tooltip: [{ field: 'seed' }, { field: 'faults' }, { field: 'settledSeconds' }, { field: 'violations' }],
    },
  };
  const bound: LayerPart[] =
    boundSeconds === undefined
      ? []
      : [
          {
            data: { values: [{ bound: boundSeconds, label: `settle bound ${boundSeconds} s` }] },
            mark: { type: 'rule', strokeDash: [4, 4], color: '#e45756' },
            encoding: { y: { field: 'bound', type: 'quantitative' } },
          },
          {
            data: { values: [{ bound: boundSeconds, label: `settle bound ${boundSeconds} s` }] },
            mark: { type: 'text', align: 'left', baseline: 'bottom', x: 4, dy: -2, color: '#e45756' },
            encoding: { y: { field: 'bound', type: 'quantitative' }, text: { field: 'label' } },
          },
        ];
  return { title: 'Time to settle after the faults stopped', width: 360, height: 240, layer: [points, ...bound] };
}

export function chaosChart(r: ChaosReport): TopLevelSpec {
  const total = Object.values(r.faultsInjected).reduce((a, b) => a + b, 0);
  const subtitle = [
    `${r.provider ?? 'aws'}: ${r.runs} run${r.runs === 1 ? '' : 's'}, ${total} faults injected, ${r.violations.length} violation${r.violations.length === 1 ? '' : 's'}`,
    ...(r.runResults ? [] : ['this report has no per-run results (runResults): no time to settle']),
  ];
  return {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    title: { text: 'chaos', subtitle, anchor: 'start' },
    hconcat: [
      faultsPanel(r.faultsInjected),
      ...(r.runResults ? [settlePanel(r.runResults, r.settleBoundSeconds)] : []),
    ],
    config: { background: 'white', font: 'sans-serif' },
  };
}
