// The benchmark's and the chaos runs' charts: Vega-Lite specs built from a run's JSON (scale-up and scale-down
// families: Machines over time per size when recorded, wall time and cloud calls per Machine by size; chaos:
// faults by kind and time to settle), and one drawn to SVG by Vega.
import { expect } from 'chai';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { benchCharts, familyScenarios, type BenchRun } from '../../hack/bench/chart-specs.js';
import { renderSvg } from '../../hack/bench/render-svg.js';
import type { ScenarioResult } from '../../hack/bench/scenarios.js';
import { besideJson, writeBenchCharts } from '../../hack/bench/write-charts.js';
import { chaosChart, type ChaosReport } from '../../hack/chaos/chart-spec.js';

const EC2 = { metricPrefix: 'ec2', cloudLabel: 'EC2' };

const s = (name: string, metrics: Record<string, unknown>): ScenarioResult => ({ name, provider: 'aws', metrics });

function run(withSeries: boolean): BenchRun {
  const up = (n: number, wall: number, series: Array<[number, number]>) =>
    s(`scale-up-${n}`, {
      machines: n,
      wallSeconds: wall,
      ec2CallsPerMachine: 2.5,
      ec2CallsPerMachineByAction: { RunInstances: 1, DescribeInstances: 1.5 },
      ...(withSeries ? { runningOverTime: series } : {}),
    });
  return {
    quick: true,
    totalSeconds: 90,
    scenarios: [
      // Out of order on purpose, and a throttled scale-up that is not of the scale-up family.
      up(50, 14.2, [
        [0, 0],
        [10, 0],
        [12.5, 30],
        [14.2, 50],
      ]),
      up(1, 10.6, [
        [0, 0],
        [10.6, 1],
      ]),
      s('steady-state-50', { machines: 50, ec2CallsPerMachinePerResync: 0.01 }),
      s('scale-down-1', { machines: 1, wallSeconds: 1.4, ec2CallsPerMachine: 8, remainingOverTime: [[0, 1]] }),
      s('throttled-scale-up-60', { machines: 60, wallSeconds: 40, runningOverTime: [[0, 0]] }),
    ],
  };
}

/** The spec as plain data, to walk in assertions. */
type Json = Record<string, unknown> & { [k: string]: any }; // eslint-disable-line @typescript-eslint/no-explicit-any
const json = (v: unknown): Json => JSON.parse(JSON.stringify(v)) as Json;

describe('bench charts', () => {
  it('take each family by size, smallest first, leaving the throttled and steady-state scenarios out', () => {
    expect(familyScenarios(run(true), 'scale-up').map((x) => x.size)).to.deep.equal([1, 50]);
    expect(familyScenarios(run(true), 'scale-down').map((x) => x.size)).to.deep.equal([1]);
  });

  it('draw Machines Running over time per size, then wall time and cloud calls per Machine by size', () => {
    const [up, down] = benchCharts(run(true), EC2);
    expect(up?.family).to.equal('scale-up');
    expect(up?.hasSeries).to.equal(true);
    expect(down?.family).to.equal('scale-down');
    const spec = json(up?.spec);
    const [time, bars] = spec.vconcat;
    expect(time.title).to.equal('Machines Running over time');
    expect(time.mark).to.include({ type: 'line', interpolate: 'step-after' });
    expect(time.encoding.color.field).to.equal('size');
    expect(time.data.values).to.deep.equal([
      { size: 1, seconds: 0, count: 0 },
      { size: 1, seconds: 10.6, count: 1 },
      { size: 50, seconds: 0, count: 0 },
      { size: 50, seconds: 10, count: 0 },
      { size: 50, seconds: 12.5, count: 30 },
      { size: 50, seconds: 14.2, count: 50 },
    ]);
    const [wall, calls] = bars.hconcat;
    expect(wall.data.values).to.deep.equal([
      { size: 1, wallSeconds: 10.6 },
      { size: 50, wallSeconds: 14.2 },
    ]);
    expect(calls.title).to.equal('EC2 calls per Machine');
    expect(calls.layer[0].data.values).to.deep.include({ size: 50, action: 'RunInstances', calls: 1 });
    expect(calls.layer[1].data.values).to.deep.equal([
      { size: 1, calls: 2.5 },
      { size: 50, calls: 2.5 },
    ]);
    expect(spec.title.subtitle[0]).to.equal('aws, --quick plan, sizes 1, 50; whole run 1.5 min');
  });

  it("name the cloud's calls by its metric prefix and label", () => {
    const r = run(false);
    for (const x of r.scenarios) {
      x.metrics.gceCallsPerMachine = x.metrics.ec2CallsPerMachine;
      x.metrics.gceCallsPerMachineByAction = { 'instances.insert': 1 };
    }
    const calls = json(benchCharts(r, { metricPrefix: 'gce', cloudLabel: 'GCE' })[0]?.spec).vconcat[0].hconcat[1];
    expect(calls.title).to.equal('GCE calls per Machine');
    expect(calls.layer[0].data.values).to.deep.include({ size: 1, action: 'instances.insert', calls: 1 });
  });

  it('say so and draw only the per-size panels for a run that recorded no time series', () => {
    const [up] = benchCharts(run(false), EC2);
    expect(up?.hasSeries).to.equal(false);
    const spec = json(up?.spec);
    expect(spec.vconcat).to.have.length(1);
    expect(spec.vconcat[0].hconcat).to.have.length(2);
    expect(spec.title.subtitle[1]).to.include('did not record Machines Running over time');
  });

  it('draw nothing for a family the run does not have', () => {
    const r: BenchRun = { scenarios: [s('scale-up-1', { machines: 1, wallSeconds: 10 })] };
    expect(benchCharts(r, EC2).map((c) => c.family)).to.deep.equal(['scale-up']);
  });

  it('render to SVG with one line per size, beside the JSON', async function () {
    this.timeout(20_000);
    const dir = mkdtempSync(join(tmpdir(), 'bench-charts-'));
    try {
      const files = await writeBenchCharts(join(dir, 'run.json'), run(true), EC2);
      expect(files).to.deep.equal([join(dir, 'run.scale-up.svg'), join(dir, 'run.scale-down.svg')]);
      const svg = readFileSync(besideJson(join(dir, 'run.json'), 'scale-up'), 'utf8');
      expect(svg.startsWith('<svg')).to.equal(true);
      const lines = [...svg.matchAll(/aria-label="([^"]*)" role="graphics-symbol" aria-roledescription="line mark"/g)];
      expect(lines.map((m) => m[1]?.split('; ').at(-1))).to.deep.equal(['Machines: 1', 'Machines: 50']);
      expect(svg).to.include("Y-axis titled 'Machines Running'");
      expect(svg).to.include('>14.2</text>'); // the wall-time bar's label
      expect(svg).to.include('>RunInstances</text>'); // the calls legend
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('chaos chart', () => {
  const report: ChaosReport = {
    runs: 3,
    faultsInjected: { 'watch-drop': 4, 'ec2-5xx': 9, 'controller-kill': 4 },
    violations: [{ seed: 2, invariant: 'x', detail: 'y' }],
    runResults: [
      { seed: 1, faults: 5, settledSeconds: 12.5, violations: 0 },
      { seed: 2, faults: 6, settledSeconds: 151, violations: 1 },
      { seed: 3, faults: 6, settledSeconds: 30, violations: 0 },
    ],
    settleBoundSeconds: 150,
  };

  it('draws the faults by kind, most first, and each run’s time to settle against the bound', () => {
    const spec = json(chaosChart(report));
    const [faults, settle] = spec.hconcat;
    expect(faults.data.values.map((r: Json) => r.fault)).to.deep.equal(['ec2-5xx', 'controller-kill', 'watch-drop']);
    expect(settle.layer[0].data.values.map((r: Json) => [r.seed, r.settledSeconds, r.outcome])).to.deep.equal([
      [1, 12.5, 'clean'],
      [2, 151, 'violations'],
      [3, 30, 'clean'],
    ]);
    expect(settle.layer[1].mark.type).to.equal('rule');
    expect(settle.layer[1].data.values[0].bound).to.equal(150);
    expect(spec.title.subtitle[0]).to.equal('aws: 3 runs, 17 faults injected, 1 violation');
  });

  it('draws the faults alone for a report without per-run results, and says so', async function () {
    this.timeout(20_000);
    const { runResults: _, settleBoundSeconds: __, ...old } = report;
    const spec = json(chaosChart(old));
    expect(spec.hconcat).to.have.length(1);
    expect(spec.title.subtitle[1]).to.include('no per-run results');
    const svg = await renderSvg(chaosChart(old));
    expect(svg).to.include('>ec2-5xx</text>');
  });
});
