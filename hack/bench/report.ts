// The benchmark's verdict: targets computed from scenarios of the same run, and the table printed on stdout.
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
}

const metric = (s: ScenarioResult | undefined, key: string): number | undefined => {
  const v = s?.metrics[key];
  return typeof v === 'number' ? v : undefined;
};

function target(name: string, value: number | undefined, limit: number): Target {
  return { name, value: value ?? null, limit, met: value !== undefined && value <= limit };
}

/**
 * `largest`: the biggest scale-up of the run (500 and 1,000 in the full run; smaller in --quick).
 * `cloud`: metric-key prefix and label of the cloud's calls (default EC2's); the limits are EC2's targets,
 * applied to the provider's equivalent count.
 */
export function evaluateTargets(
  scenarios: ScenarioResult[],
  o: { largest: number; cloud?: { metricPrefix: string; cloudLabel: string } },
): Target[] {
  const { metricPrefix: k, cloudLabel: label } = o.cloud ?? { metricPrefix: 'ec2', cloudLabel: 'EC2' };
  const byName = (n: string) => scenarios.find((s) => s.name === n);
  const t1 = metric(byName('scale-up-1'), 'wallSeconds');
  const mid = byName('scale-up-500') ? 500 : o.largest;
  const tMid = metric(byName(`scale-up-${mid}`), 'wallSeconds');
  const rssAt = byName('scale-up-1000') ? 1000 : o.largest;
  const rss = byName(`scale-up-${rssAt}`)?.metrics.peakRssMb as Record<string, number> | undefined;
  const steady = scenarios.find((s) => s.name.startsWith('steady-state-'));
  const thr = scenarios.find((s) => s.name.startsWith('throttled-scale-up-'));
  return [
    target(`T(${mid})/T(1)`, t1 && tMid ? Math.round((tMid / t1) * 100) / 100 : undefined, 3),
    // At scale: a single machine also pays the one-time look-ups (AMI, subnet, VPC, instance types) that the
    // caches then share; scenario metrics show every size.
    target(`${label} calls per created machine at ${mid}`, metric(byName(`scale-up-${mid}`), `${k}CallsPerMachine`), 3),
    target(`steady-state ${label} calls per machine per resync`, metric(steady, `${k}CallsPerMachinePerResync`), 0.1),
    target(
      `Kubernetes writes per machine, create to Running, at ${mid} (events included)`,
      metric(byName(`scale-up-${mid}`), 'kubeWritesPerMachine'),
      12,
    ),
    target('throttled: completion time / floor', metric(thr, 'ratioToFloor'), 1.3),
    target('throttled: share of throttled replies', metric(thr, 'throttledShare'), 0.05),
    target(
      `peak controller RSS at ${rssAt} machines (MB, largest process)`,
      rss ? Math.max(...Object.values(rss)) : undefined,
      300,
    ),
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

export function formatTable(r: BenchReport): string {
  const lines: string[] = [];
  for (const s of r.scenarios) {
    lines.push(`== ${s.name} (${s.provider})`);
    for (const [k, v] of Object.entries(s.metrics)) lines.push(`   ${k.padEnd(34)} ${fmt(v)}`);
  }
  lines.push('', 'TARGET'.padEnd(70) + 'VALUE'.padStart(10) + 'LIMIT'.padStart(8) + '  MET');
  for (const t of r.targets)
    lines.push(
      t.name.padEnd(70) +
        String(t.value ?? '-').padStart(10) +
        String(t.limit).padStart(8) +
        `  ${t.met ? 'yes' : 'NO'}`,
    );
  return `${lines.join('\n')}\n`;
}
