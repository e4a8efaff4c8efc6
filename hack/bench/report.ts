// The benchmark's verdict: targets computed from scenarios of the same run, and the table printed on stdout.
import type { TargetLimits } from './plans.js';
import { SIMULATION_PARTS } from './process-names.js';
import type { ScenarioResult } from './scenarios.js';

export interface Target {
  name: string;
  value: number | null;
  limit: number;
  met: boolean;
}

export interface BenchReport {
  scenarios: ScenarioResult[];
  targets: Target[];
  /** The whole run, start to report. */
  totalSeconds?: number;
}

const metric = (s: ScenarioResult | undefined, key: string): number | undefined => {
  const v = s?.metrics[key];
  return typeof v === 'number' ? v : undefined;
};

function target(name: string, value: number | undefined, limit: number): Target {
  return { name, value: value ?? null, limit, met: value !== undefined && value <= limit };
}

const record = (s: ScenarioResult | undefined, key: string): Record<string, number> | undefined => {
  const v = s?.metrics[key];
  return v && typeof v === 'object' ? (v as Record<string, number>) : undefined;
};

/** Peak V8 heap used / heap limit, the highest over the processes and the scenarios given. */
function heapShare(scenarios: ScenarioResult[]): { share: number; name: string } | undefined {
  let top: { share: number; name: string } | undefined;
  for (const s of scenarios) {
    const used = record(s, 'peakHeapUsedMb') ?? {};
    const limit = record(s, 'heapLimitMb') ?? {};
    for (const [name, mb] of Object.entries(used)) {
      if (SIMULATION_PARTS.has(name)) continue;
      const l = limit[name];
      if (!l || !(l > 0)) return undefined; // a process whose limit was never read: no verdict
      const share = Math.round((mb / l) * 1000) / 1000;
      if (!top || share > top.share) top = { share, name };
    }
  }
  return top;
}

/** The highest of a per-process record over the controllers (the simulation's processes left out). */
function controllerPeak(perProcess: Record<string, number>): number {
  return Math.max(...Object.entries(perProcess).flatMap(([name, v]) => (SIMULATION_PARTS.has(name) ? [] : [v])));
}

/**
 * Reconciles per Machine a controller may cost in a scale-up: the drain controller none for Machines nobody deletes
 * (its watch drops their events), NodeLink about three (the Node's registration, its turning Ready, the link), the
 * machine controller six; each the same at every size, so these hold in every scale-up scenario.
 */
export const ScaleUpReconcileLimits: Record<string, number> = {
  'machine-controller': 6,
  'machine-drain-controller': 0,
  'nodelink-controller': 3,
};

/** The highest value of `key[controller]` over the scenarios, and the scenario that had it. */
function highest(
  scenarios: ScenarioResult[],
  key: string,
  controller: string,
): { value: number; scenario: string } | undefined {
  let top: { value: number; scenario: string } | undefined;
  for (const s of scenarios) {
    const counts = record(s, key);
    // A controller that did not reconcile at all is left out of the scenario's counts: that is 0.
    const v = counts ? (counts[controller] ?? 0) : undefined;
    if (v !== undefined && (!top || v > top.value)) top = { value: v, scenario: s.name };
  }
  return top;
}

/**
 * The time of the largest scale-up over the one of half its size, when the run had both (the full plan's
 * T(2000)/T(1000)): twice the Machines may take at most 2.2× the time, so the cost per Machine stays flat.
 */
function doublingTarget(byName: (n: string) => ScenarioResult | undefined, largest: number): Target[] {
  const half = largest / 2;
  const tL = metric(byName(`scale-up-${largest}`), 'wallSeconds');
  const tHalf = metric(byName(`scale-up-${half}`), 'wallSeconds');
  if (tL === undefined || tHalf === undefined) return [];
  return [target(`T(${largest})/T(${half})`, Math.round((tL / tHalf) * 100) / 100, 2.2)];
}

/** Reconciles per Machine at the largest scale-up may differ from those at 100 by at most this share. */
const RECONCILE_DRIFT_LIMIT = 0.1;

/**
 * How far each controller's reconciles per Machine at the largest scale-up drift from those at 100 (|r(L) − r(100)|
 * / r(100), the controller that drifts most named), when the run had both: a cost per Machine that does not grow
 * with the cluster is the same at both sizes.
 */
function reconcileDriftTarget(byName: (n: string) => ScenarioResult | undefined, largest: number): Target[] {
  const small = record(byName('scale-up-100'), 'reconcilesPerMachine');
  const large = record(byName(`scale-up-${largest}`), 'reconcilesPerMachine');
  if (!small || !large || largest <= 100) return [];
  let top: { drift: number; controller: string } | undefined;
  for (const controller of Object.keys(ScaleUpReconcileLimits)) {
    const [a, b] = [small[controller] ?? 0, large[controller] ?? 0];
    const drift = a === b ? 0 : a === 0 ? Infinity : Math.abs(b - a) / a;
    if (!top || drift > top.drift) top = { drift, controller };
  }
  return [
    target(
      `reconciles per machine at ${largest} against 100, relative difference (highest: ${top?.controller ?? '-'})`,
      top ? Math.round(top.drift * 1000) / 1000 : undefined,
      RECONCILE_DRIFT_LIMIT,
    ),
  ];
}

/**
 * `largest`: the biggest scale-up of the run (2,000 in the full run; 50 in --quick).
 * `limits`: the plan's limits for the targets that depend on it (RSS, throttled).
 * `cloud`: metric-key prefix and label of the cloud's calls (default EC2's); the limits are EC2's targets,
 * applied to the provider's equivalent count.
 */
export function evaluateTargets(
  scenarios: ScenarioResult[],
  o: {
    largest: number;
    limits: TargetLimits;
    cloud?: { metricPrefix: string; cloudLabel: string; listingPageSize?: number; binary?: { name: string } };
    /** The whole run's wall time, when known. */
    totalSeconds?: number;
  },
): Target[] {
  const { metricPrefix: k, cloudLabel: label } = o.cloud ?? { metricPrefix: 'ec2', cloudLabel: 'EC2' };
  const byName = (n: string) => scenarios.find((s) => s.name === n);
  const t1 = metric(byName('scale-up-1'), 'wallSeconds');
  const mid = byName('scale-up-500') ? 500 : o.largest;
  const tMid = metric(byName(`scale-up-${mid}`), 'wallSeconds');
  const L = o.largest;
  const rss = record(byName(`scale-up-${L}`), 'peakRssMb');
  // Every scenario at the largest size: the scale-up, the steady state (when at that size) and the scale-down.
  const atLargest = ['scale-up', 'steady-state', 'scale-down'].flatMap((kind) => byName(`${kind}-${L}`) ?? []);
  const heap = atLargest.length > 0 ? heapShare(atLargest) : undefined;
  const steady = scenarios.find((s) => s.name.startsWith('steady-state-'));
  const thr = scenarios.find((s) => s.name.startsWith('throttled-scale-up-'));
  const stock = scenarios.find((s) => s.name.startsWith('stock-out-'));
  const scaleUps = scenarios.filter((s) => /^(throttled-)?scale-up-/.test(s.name));
  const reconcileTargets = Object.entries(ScaleUpReconcileLimits).map(([controller, limit]) => {
    const top = highest(scaleUps, 'reconcilesPerMachine', controller);
    return target(
      `${controller} reconciles per machine, every scale-up (highest: ${top?.scenario ?? '-'})`,
      top?.value,
      limit,
    );
  });
  const steadyReconciles = Object.entries(record(steady, 'reconcilesPerMachinePerResync') ?? {}).sort(
    (a, b) => b[1] - a[1],
  )[0];
  return [
    ...reconcileTargets,
    target(
      `steady-state reconciles per machine per resync (highest: ${steadyReconciles?.[0] ?? '-'})`,
      steadyReconciles?.[1],
      1,
    ),
    ...reconcileDriftTarget(byName, L),
    target(`T(${mid})/T(1)`, t1 && tMid ? Math.round((tMid / t1) * 100) / 100 : undefined, 3),
    ...doublingTarget(byName, L),
    // At scale: a single machine also pays the one-time look-ups (AMI, subnet, VPC, instance types) that the
    // caches then share; scenario metrics show every size.
    target(`${label} calls per created machine at ${mid}`, metric(byName(`scale-up-${mid}`), `${k}CallsPerMachine`), 3),
    target(`steady-state ${label} calls per machine per resync`, metric(steady, `${k}CallsPerMachinePerResync`), 0.1),
    target(
      `Kubernetes writes per machine, create to Running, at ${mid} (events included)`,
      metric(byName(`scale-up-${mid}`), 'kubeWritesPerMachine'),
      12,
    ),
    target(
      'scale-down-1 wall time (s; the emulator terminates in 1 s)',
      metric(byName('scale-down-1'), 'wallSeconds'),
      3,
    ),
    target('throttled: completion time / floor', metric(thr, 'ratioToFloor'), o.limits.throttledRatio),
    target('throttled: share of throttled replies', metric(thr, 'throttledShare'), o.limits.throttledShare),
    target('stock-out: time to all Running / without the stock-out', metric(stock, 'ratioToNoStockOut'), 1.2),
    target('stock-out: launch calls per machine (refused included)', metric(stock, 'mutatingCallsPerMachine'), 2.5),
    target(
      `peak controller RSS at ${L} machines (MB, largest process)`,
      rss ? controllerPeak(rss) : undefined,
      o.limits.rssMb,
    ),
    target(`peak V8 heap used / heap limit at ${L} machines (highest: ${heap?.name ?? '-'})`, heap?.share, 0.7),
    ...steadyAdoptedTargets(
      scenarios.find((s) => /^steady-\d+$/.test(s.name)),
      k,
      label,
      o.cloud?.binary?.name,
      o.cloud?.listingPageSize,
    ),
    target(
      'whole run (minutes, 2 cores)',
      o.totalSeconds === undefined ? undefined : Math.round((o.totalSeconds / 60) * 10) / 10,
      o.limits.runMinutes,
    ),
  ];
}

/** steady-N's limits (the adopted steady state): about one paged listing per resync, nothing reconciled twice, nothing written. */
export const SteadyAdoptedLimits = {
  cloudCallsPerMachinePerResync: 0.005,
  reconcilesPerMachinePerResync: 1,
  kubeWritesPerResync: 0,
  heapShare: 0.7,
  providerRssMb: 350,
};

function steadyAdoptedTargets(
  s: ScenarioResult | undefined,
  k: string,
  label: string,
  providerBinary: string | undefined,
  listingPageSize: number | undefined,
): Target[] {
  const n = s ? metric(s, 'machines') : undefined;
  // One listing a resync is the floor: a cloud whose pages are small (VPC: 100) needs ⌈n / page⌉ calls for it.
  const pages = n !== undefined && listingPageSize ? Math.ceil(n / listingPageSize) : undefined;
  const callsLimit = Math.max(SteadyAdoptedLimits.cloudCallsPerMachinePerResync, pages && n ? pages / n : 0);
  const at = `steady-${n ?? 'N'}`;
  const reconciles = Object.entries(record(s, 'reconcilesPerMachinePerResync') ?? {}).sort((a, b) => b[1] - a[1])[0];
  const heap = s ? heapShare([s]) : undefined;
  const rss = record(s, 'peakRssMb');
  const providerRss = rss && (providerBinary ? rss[providerBinary] : controllerPeak(rss));
  const L = SteadyAdoptedLimits;
  return [
    target(
      `${at}: ${label} calls per machine per resync${pages ? ` (one listing: ${pages} page${pages === 1 ? '' : 's'})` : ''}`,
      metric(s, `${k}CallsPerMachinePerResync`),
      callsLimit,
    ),
    target(
      `${at}: reconciles per machine per resync (highest: ${reconciles?.[0] ?? '-'})`,
      // No controller reconciled at all during the resyncs: 0, when the scenario ran.
      s ? (reconciles?.[1] ?? 0) : undefined,
      L.reconcilesPerMachinePerResync,
    ),
    target(`${at}: Kubernetes writes per resync`, metric(s, 'kubeWritesPerResync'), L.kubeWritesPerResync),
    target(`${at}: peak V8 heap used / heap limit (highest: ${heap?.name ?? '-'})`, heap?.share, L.heapShare),
    target(`${at}: provider peak RSS (MB)`, providerRss, L.providerRssMb),
  ];
}

function fmt(v: unknown): string {
  if (typeof v === 'number') return String(v);
  if (v && typeof v === 'object')
    return Object.entries(v)
      .map(([k, x]) => `${k}=${fmt(x)}`)
      .join(' ');
  return String(v);
}

/** A count over time ("runningOverTime"): too long for the table, drawn by the charts instead. */
const isSeries = (key: string, v: unknown): v is unknown[] => key.endsWith('OverTime') && Array.isArray(v);

export function formatTable(r: BenchReport): string {
  const lines: string[] = [];
  for (const s of r.scenarios) {
    lines.push(`== ${s.name} (${s.provider})`);
    for (const [k, v] of Object.entries(s.metrics))
      lines.push(`   ${k.padEnd(34)} ${isSeries(k, v) ? `${v.length} samples (in the JSON)` : fmt(v)}`);
  }
  const width = Math.max(70, ...r.targets.map((t) => t.name.length + 2));
  lines.push('', 'TARGET'.padEnd(width) + 'VALUE'.padStart(10) + 'LIMIT'.padStart(8) + '  MET');
  for (const t of r.targets)
    lines.push(
      t.name.padEnd(width) +
        String(t.value ?? '-').padStart(10) +
        String(t.limit).padStart(8) +
        `  ${t.met ? 'yes' : 'NO'}`,
    );
  return `${lines.join('\n')}\n`;
}
