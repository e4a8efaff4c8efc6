// Structural defaulting, as kube-apiserver applies it after pruning: a declared property that is missing (or
// null while not nullable) gets a copy of its default; the result is then walked, so defaults inside defaults
// and inside array items and additionalProperties values apply too. Mutates x; applySchema passes a copy.
import type { JSONSchemaProps } from './types.js';
import { isObject, propertySchema } from './types.js';

function copy<T>(v: T): T {
  return structuredClone(v);
}

function isNonNullableNull(v: unknown, s: JSONSchemaProps | undefined): boolean {
  return v === null && s !== undefined && s.nullable !== true;
}

export function applyDefaults(x: unknown, s: JSONSchemaProps | undefined): void {
  if (s === undefined) return;
  if (Array.isArray(x)) {
    const items = s.items;
    if (items === undefined) return;
    for (let i = 0; i < x.length; i++) {
      if (isNonNullableNull(x[i], items) && items.default !== undefined) x[i] = copy(items.default);
      applyDefaults(x[i], items);
    }
    return;
  }
  if (!isObject(x)) return;
  for (const [key, prop] of Object.entries(s.properties ?? {})) {
    if (prop.default === undefined) continue;
    if (!Object.hasOwn(x, key) || isNonNullableNull(x[key], prop)) x[key] = copy(prop.default);
  }
  const extra = typeof s.additionalProperties === 'object' ? s.additionalProperties : undefined;
  for (const key of Object.keys(x)) {
    const prop = propertySchema(s, key);
    if (prop !== undefined) {
      applyDefaults(x[key], prop);
    } else if (extra !== undefined) {
      if (isNonNullableNull(x[key], extra) && extra.default !== undefined) x[key] = copy(extra.default);
      applyDefaults(x[key], extra);
    }
  }
}
