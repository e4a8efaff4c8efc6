// The Node as NodeLink wants it for a Machine: the machine's spec.metadata labels and annotations and its
// spec.taints copied on, as the reference does, plus removal of what we added and the machine has since dropped.
import { NodeMachineAnnotation } from '../apis/constants.js';
import type { Node, Taint } from '../apis/core.js';
import type { Machine } from '../apis/machine-types.js';
import { emptyOwned, formatOwned, NodeLinkOwnedAnnotation, parseOwned, sameTaint, taintId } from './owned-metadata.js';

const reservedAnnotations = new Set([NodeMachineAnnotation, NodeLinkOwnedAnnotation]);

/** Returns a modified copy of `node`; the input is not changed. */
export function desiredNode(node: Node, machine: Machine): Node {
  const out: Node = structuredClone(node);
  const annotations = { ...(out.metadata.annotations ?? {}) };
  const labels = { ...(out.metadata.labels ?? {}) };
  let taints: Taint[] = [...(out.spec?.taints ?? [])];
  const before = parseOwned(annotations[NodeLinkOwnedAnnotation]);
  const owned = emptyOwned();

  const wantLabels = machine.spec?.metadata?.labels ?? {};
  for (const key of before.labels) if (!(key in wantLabels)) delete labels[key];
  for (const [key, value] of Object.entries(wantLabels)) {
    if (labels[key] !== value) {
      labels[key] = value;
      owned.labels.push(key);
    } else if (before.labels.includes(key)) {
      owned.labels.push(key);
    }
  }

  const wantAnnotations = Object.fromEntries(
    Object.entries(machine.spec?.metadata?.annotations ?? {}).filter(([k]) => !reservedAnnotations.has(k)),
  );
  for (const key of before.annotations)
    if (!(key in wantAnnotations) && !reservedAnnotations.has(key)) delete annotations[key];
  for (const [key, value] of Object.entries(wantAnnotations)) {
    if (annotations[key] !== value) {
      annotations[key] = value;
      owned.annotations.push(key);
    } else if (before.annotations.includes(key)) {
      owned.annotations.push(key);
    }
  }

  const wantTaints = machine.spec?.taints ?? [];
  taints = taints.filter(
    (t) => !(before.taints.some((o) => sameTaint(o, t)) && !wantTaints.some((w) => sameTaint(w, t))),
  );
  for (const want of wantTaints) {
    const idx = taints.findIndex((t) => sameTaint(t, want));
    const wasOurs = before.taints.some((o) => sameTaint(o, want));
    if (idx < 0) {
      taints.push(stripTime(want));
      owned.taints.push(taintId(want));
    } else if (wasOurs) {
      // Ours: follow the machine's value. Someone else's taint with the same key and effect is left as is.
      const existing = taints[idx];
      if (existing && (existing.value ?? '') !== (want.value ?? '')) taints[idx] = { ...existing, value: want.value };
      owned.taints.push(taintId(want));
    }
  }

  annotations[NodeMachineAnnotation] = `${machine.metadata.namespace ?? ''}/${machine.metadata.name ?? ''}`;
  if (owned.labels.length + owned.annotations.length + owned.taints.length > 0) {
    annotations[NodeLinkOwnedAnnotation] = formatOwned(owned);
  } else {
    delete annotations[NodeLinkOwnedAnnotation];
  }

  out.metadata.annotations = annotations;
  out.metadata.labels = labels;
  if (taints.length > 0 || out.spec?.taints !== undefined) out.spec = { ...out.spec, taints };
  return out;
}

function stripTime(t: Taint): Taint {
  const copy: Taint = { key: t.key, effect: t.effect };
  if (t.value !== undefined) copy.value = t.value;
  return copy;
}
