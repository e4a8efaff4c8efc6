// x-kubernetes-list-type checks: a `set` holds no value twice, a `map` holds no two items with the same key
// tuple (x-kubernetes-list-map-keys). Duplicates are reported at the later index, as kube-apiserver does.
import type { FieldCause, JSONSchemaProps } from './types.js';
import { isObject, propertySchema } from './types.js';
import { duplicate, indexPath } from './causes.js';

/** A canonical string for a JSON value: equal values (whatever their key order) give equal strings. */
export function canonicalJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonicalJson).join(',')}]`;
  if (isObject(v)) {
    const keys = Object.keys(v).sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(v[k])}`).join(',')}}`;
  }
  return JSON.stringify(v) ?? 'null';
}

export function checkListType(path: string, list: unknown[], s: JSONSchemaProps): FieldCause[] {
  const listType = s['x-kubernetes-list-type'];
  if (listType === 'set') return duplicatesBy(path, list, (item) => ({ key: canonicalJson(item), shown: item }));
  if (listType === 'map') {
    const keys = s['x-kubernetes-list-map-keys'] ?? [];
    if (keys.length === 0) return [];
    return duplicatesBy(path, list, (item) => {
      if (!isObject(item)) return undefined;
      const tuple: Record<string, unknown> = {};
      for (const k of keys) {
        // A key field absent from the item falls back to its schema default, which is how kube identifies it.
        const value = item[k] ?? propertySchema(s.items, k)?.default;
        if (value !== undefined) tuple[k] = value;
      }
      return { key: canonicalJson(tuple), shown: tuple };
    });
  }
  return [];
}

function duplicatesBy(
  path: string,
  list: unknown[],
  identify: (item: unknown) => { key: string; shown: unknown } | undefined,
): FieldCause[] {
  const seen = new Set<string>();
  const causes: FieldCause[] = [];
  list.forEach((item, i) => {
    const id = identify(item);
    if (id === undefined) return;
    if (seen.has(id.key)) causes.push(duplicate(indexPath(path, i), id.shown));
    else seen.add(id.key);
  });
  return causes;
}
