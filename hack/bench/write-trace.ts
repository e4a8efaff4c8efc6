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

export interface WriteTrace {
  /** Writes by what they changed, per Machine, most frequent first. */
  stop(machines: number): Promise<Record<string, number>>;
}

export function traceMachineWrites(client: KubeClient, set: string): WriteTrace {
  const last = new Map<string, Machine>();
  const patterns = new Map<string, number>();
  const abort = new AbortController();
  const watching = client
    .watch(Machines, { namespace: BENCH_NAMESPACE, labelSelector: `${MachineSetLabel}=${set}` }, (e) => {
      if (e.type !== 'ADDED' && e.type !== 'MODIFIED') return;
      const m = e.object as Machine;
      const name = m.metadata.name ?? '';
      const previous = last.get(name);
      last.set(name, m);
      if (!previous) return;
      const fields = changedFields(previous, m);
      const key = fields.length > 0 ? fields.join(',') : '(no change)';
      patterns.set(key, (patterns.get(key) ?? 0) + 1);
    }, abort.signal)
    .catch(() => undefined);
  return {
    async stop(machines) {
      abort.abort();
      await watching;
      const n = Math.max(1, machines);
      return Object.fromEntries([...patterns].sort((a, b) => b[1] - a[1]).map(([k, v]) => [k, Math.round((v / n) * 100) / 100]));
    },
  };
}
