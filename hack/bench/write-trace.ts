// `--trace-writes`: what each write to a scale-up's Machines changed, so that a writes-per-machine figure
// can be taken apart ("status: phase,providerStatus 1.00" = every Machine had one status write changing
// just those). A watch from the driver (not counted against the controllers) diffs each Machine's
// successive versions; a write is named by the fields it changed, grouped to their first level below
// metadata, spec and status.
import { Machines, MachineSetLabel, type KubeClient, type Machine } from '../../lib/index.js';
import { BENCH_NAMESPACE } from './environment.js';

const IGNORED = new Set(['resourceVersion', 'generation', 'managedFields']);

/** "status.phase", "metadata.annotations", ... for every field that differs between two versions. */
export function changedFields(before: Machine | undefined, after: Machine): string[] {
  const out = new Set<string>();
  for (const part of ['metadata', 'spec', 'status'] as const) {
    const a = (before?.[part] ?? {}) as Record<string, unknown>;
    const b = (after[part] ?? {}) as Record<string, unknown>;
    for (const k of new Set([...Object.keys(a), ...Object.keys(b)])) {
      if (IGNORED.has(k)) continue;
      if (JSON.stringify(a[k]) !== JSON.stringify(b[k])) out.add(`${part}.${k}`);
    }
  }
  return [...out].sort();
}

/** When each Machine reached a step, in seconds since the trace started. */
const MILESTONES: Array<[string, (m: Machine) => boolean]> = [
  ['created', () => true],
  ['finalizer', (m) => (m.metadata.finalizers ?? []).length > 0],
  ['instanceRecorded', (m) => !!(m.status?.providerStatus as { instanceId?: string } | undefined)?.instanceId],
  ['providerID', (m) => !!m.spec?.providerID],
  ['nodeRef', (m) => !!m.status?.nodeRef],
  ['running', (m) => m.status?.phase === 'Running'],
];

export interface WriteTraceResult {
  /** Writes by what they changed, per Machine, most frequent first. */
  byChange: Record<string, number>;
  /** Per milestone: seconds after the start by which 50 %, 90 % and all of the Machines had reached it. */
  timeline: Record<string, string>;
}

export interface WriteTrace {
  stop(machines: number): Promise<WriteTraceResult>;
}

function percentiles(times: number[]): string {
  const t = [...times].sort((a, b) => a - b);
  const at = (q: number) => (t.length === 0 ? NaN : (t[Math.min(t.length - 1, Math.ceil(q * t.length) - 1)] ?? NaN));
  return `p50=${at(0.5).toFixed(1)} p90=${at(0.9).toFixed(1)} max=${at(1).toFixed(1)}`;
}

export function traceMachineWrites(client: KubeClient, set: string): WriteTrace {
  const last = new Map<string, Machine>();
  const patterns = new Map<string, number>();
  const start = performance.now();
  const reached = new Map<string, Map<string, number>>(MILESTONES.map(([name]) => [name, new Map()]));
  const abort = new AbortController();
  const watching = client
    .watch(
      Machines,
      { namespace: BENCH_NAMESPACE, labelSelector: `${MachineSetLabel}=${set}` },
      (e) => {
        if (e.type !== 'ADDED' && e.type !== 'MODIFIED') return;
        const m = e.object as Machine;
        const name = m.metadata.name ?? '';
        const previous = last.get(name);
        last.set(name, m);
        for (const [step, test] of MILESTONES) {
          const seen = reached.get(step);
          if (seen && !seen.has(name) && test(m)) seen.set(name, (performance.now() - start) / 1000);
        }
        if (!previous) return;
        const fields = changedFields(previous, m);
        const key = fields.length > 0 ? fields.join(',') : '(no change)';
        patterns.set(key, (patterns.get(key) ?? 0) + 1);
      },
      abort.signal,
    )
    .catch(() => undefined);
  return {
    async stop(machines) {
      abort.abort();
      await watching;
      const n = Math.max(1, machines);
      return {
        byChange: Object.fromEntries(
          [...patterns].sort((a, b) => b[1] - a[1]).map(([k, v]) => [k, Math.round((v / n) * 100) / 100]),
        ),
        timeline: Object.fromEntries([...reached].map(([step, at]) => [step, percentiles([...at.values()])])),
      };
    },
  };
}
