// List and watch filtering: label selectors (the shared parser in lib/apis) and the field selectors
// kube-apiserver supports per kind (metadata.name and metadata.namespace everywhere, plus each
// kind's own, e.g. spec.nodeName and status.phase for pods).
import type { KubeObject } from '../../lib/apis/meta.js';
import { LabelSelectorError, parseSelector } from '../../lib/apis/label-selector.js';
import * as E from './errors.js';
import type { ResourceType } from './resource-type.js';

export type ObjectFilter = (obj: KubeObject) => boolean;

interface FieldRequirement {
  field: string;
  equal: boolean;
  value: string;
}

function parseFieldSelector(s: string): FieldRequirement[] {
  const out: FieldRequirement[] = [];
  for (const raw of s.split(',')) {
    const term = raw.trim();
    if (term === '') continue;
    const m = /^([^!=]+)(!=|==|=)(.*)$/.exec(term);
    if (!m) throw E.badRequest(`invalid field selector: invalid selector: '${s}'; can't understand '${term}'`);
    out.push({ field: (m[1] ?? '').trim(), equal: m[2] !== '!=', value: (m[3] ?? '').trim() });
  }
  return out;
}

/** Builds one predicate for a list or watch request; throws a 400 Status for selectors kube would reject. */
export function buildFilter(
  type: ResourceType,
  labelSelector: string | null,
  fieldSelector: string | null,
): ObjectFilter | undefined {
  const preds: ObjectFilter[] = [];
  if (labelSelector) {
    try {
      const sel = parseSelector(labelSelector);
      if (!sel.empty) preds.push((o) => sel.matches(o.metadata.labels));
    } catch (err) {
      if (err instanceof LabelSelectorError) throw E.badRequest(`unable to parse requirement: ${err.message}`);
      throw err;
    }
  }
  if (fieldSelector) {
    for (const req of parseFieldSelector(fieldSelector)) {
      const get = getterFor(type, req.field);
      if (!get) throw E.badRequest(`field label not supported: ${req.field}`);
      preds.push(req.equal ? (o) => (get(o) ?? '') === req.value : (o) => (get(o) ?? '') !== req.value);
    }
  }
  if (preds.length === 0) return undefined;
  if (preds.length === 1) return preds[0];
  return (o) => preds.every((p) => p(o));
}

function getterFor(type: ResourceType, field: string): ((o: KubeObject) => string | undefined) | undefined {
  if (field === 'metadata.name') return (o) => o.metadata.name;
  if (field === 'metadata.namespace') return (o) => o.metadata.namespace;
  return type.fieldSelectors[field];
}
