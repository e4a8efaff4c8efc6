// The merge schema of a built-in kind for structured merge, read from the strategic-merge-patch
// strategies the server already keeps for it: a list merged by a patchMergeKey is a list-type map
// keyed by it, a list of scalars merged as a set is a list-type set. Everything else is deduced (maps
// field by field, lists whole), as structured-merge-diff does for a field the schema leaves open.
import type { JSONSchemaProps } from '../schema/index.js';
import { patchStrategyOf, type FieldStrategy } from '../strategic-merge-patch.js';

function toSchema(s: FieldStrategy): JSONSchemaProps {
  const properties = s.fields
    ? Object.fromEntries(Object.entries(s.fields).map(([k, v]) => [k, toSchema(v)]))
    : undefined;
  if (s.mergeKey) {
    return {
      type: 'array',
      'x-kubernetes-list-type': 'map',
      'x-kubernetes-list-map-keys': [s.mergeKey],
      items: { type: 'object', ...(properties ? { properties } : {}) },
    };
  }
  if (s.mergeSet) return { type: 'array', 'x-kubernetes-list-type': 'set' };
  return { type: 'object', ...(properties ? { properties } : {}) };
}

const cache = new Map<string, JSONSchemaProps>();

export function builtinMergeSchema(kind: string): JSONSchemaProps {
  let s = cache.get(kind);
  if (!s) {
    s = toSchema(patchStrategyOf(kind));
    cache.set(kind, s);
  }
  return s;
}
