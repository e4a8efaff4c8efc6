// What NodeLink itself put on a Node, remembered in an annotation on that Node, so that a label,
// annotation or taint dropped from the Machine is removed from the Node too, while whatever
// the kubelet, an admin or another controller set stays untouched.
import type { Taint } from '../apis/core.js';

export const NodeLinkOwnedAnnotation = 'machine.openshift.io/nodelink-owned';

export interface OwnedMetadata {
  labels: string[];
  annotations: string[];
  taints: Array<{ key: string; effect: string }>;
}

export const emptyOwned = (): OwnedMetadata => ({ labels: [], annotations: [], taints: [] });

export function parseOwned(raw: string | undefined): OwnedMetadata {
  if (!raw) return emptyOwned();
  try {
    const v = JSON.parse(raw) as Partial<OwnedMetadata>;
    const strings = (a: unknown): string[] =>
      Array.isArray(a) ? a.filter((x): x is string => typeof x === 'string') : [];
    const taints = Array.isArray(v.taints)
      ? v.taints.filter(
          (t): t is { key: string; effect: string } => typeof t?.key === 'string' && typeof t?.effect === 'string',
        )
      : [];
    return { labels: strings(v.labels), annotations: strings(v.annotations), taints };
  } catch {
    // A corrupted record means we cannot prove ownership of anything: remove nothing.
    return emptyOwned();
  }
}

export function formatOwned(o: OwnedMetadata): string {
  const sorted: OwnedMetadata = {
    labels: [...new Set(o.labels)].sort(),
    annotations: [...new Set(o.annotations)].sort(),
    taints: dedupeTaints(o.taints).sort((a, b) => `${a.key}:${a.effect}`.localeCompare(`${b.key}:${b.effect}`)),
  };
  return JSON.stringify(sorted);
}

export const sameTaint = (a: { key: string; effect: string }, b: { key: string; effect: string }): boolean =>
  a.key === b.key && a.effect === b.effect;

function dedupeTaints(ts: Array<{ key: string; effect: string }>): Array<{ key: string; effect: string }> {
  const out: Array<{ key: string; effect: string }> = [];
  for (const t of ts) if (!out.some((o) => sameTaint(o, t))) out.push({ key: t.key, effect: t.effect });
  return out;
}

export const taintId = (t: Taint): { key: string; effect: string } => ({ key: t.key, effect: t.effect });
