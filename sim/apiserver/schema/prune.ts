// Structural pruning, as kube-apiserver does it on every write to a custom resource: fields the schema does not
// declare are dropped, except under x-kubernetes-preserve-unknown-fields, and except apiVersion, kind and
// metadata at the root of a resource (the object itself, or an x-kubernetes-embedded-resource).
// Both functions mutate the value they are given; applySchema hands them a private copy.
import type { JSONSchemaProps } from './types.js';
import { isObject, propertySchema } from './types.js';

function additionalSchema(s: JSONSchemaProps): JSONSchemaProps | undefined {
  const ap = s.additionalProperties;
  if (ap === undefined || ap === false) return undefined;
  // additionalProperties: true declares "any value"; structurally that is a schema that preserves everything.
  return ap === true ? { 'x-kubernetes-preserve-unknown-fields': true } : ap;
}

function keepsResourceMeta(key: string, value: unknown): boolean {
  if (key === 'apiVersion' || key === 'kind') return typeof value === 'string';
  if (key === 'metadata') return isObject(value);
  return false;
}

export function prune(x: unknown, s: JSONSchemaProps | undefined, isResourceRoot: boolean): void {
  if (s?.['x-kubernetes-preserve-unknown-fields'] === true) {
    pruneDeclaredOnly(x, s, isResourceRoot || s['x-kubernetes-embedded-resource'] === true);
    return;
  }
  const resourceRoot = isResourceRoot || s?.['x-kubernetes-embedded-resource'] === true;
  if (Array.isArray(x)) {
    for (const item of x) prune(item, s?.items, false);
    return;
  }
  if (!isObject(x)) return;
  for (const key of Object.keys(x)) {
    const value = x[key];
    if (resourceRoot && keepsResourceMeta(key, value)) continue;
    const prop = propertySchema(s, key);
    if (prop !== undefined) {
      prune(value, prop, false);
      continue;
    }
    const extra = s === undefined ? undefined : additionalSchema(s);
    if (extra !== undefined) {
      prune(value, extra, false);
      continue;
    }
    delete x[key];
  }
}

/** Under preserve-unknown-fields, unknown keys stay, but declared children are still pruned by their schema. */
function pruneDeclaredOnly(x: unknown, s: JSONSchemaProps, resourceRoot: boolean): void {
  if (Array.isArray(x)) {
    for (const item of x) {
      if (s.items !== undefined) prune(item, s.items, false);
    }
    return;
  }
  if (!isObject(x)) return;
  for (const key of Object.keys(x)) {
    if (resourceRoot && keepsResourceMeta(key, x[key])) continue;
    const prop = propertySchema(s, key);
    if (prop !== undefined) {
      prune(x[key], prop, false);
      continue;
    }
    const ap = s.additionalProperties;
    if (ap !== undefined && typeof ap !== 'boolean') prune(x[key], ap, false);
  }
}

function schemaForKey(s: JSONSchemaProps | undefined, key: string): JSONSchemaProps | undefined {
  if (s === undefined) return undefined;
  const prop = propertySchema(s, key);
  if (prop !== undefined) return prop;
  const ap = s.additionalProperties;
  return ap !== undefined && typeof ap !== 'boolean' ? ap : undefined;
}

/**
 * A null where the schema allows no null and offers no default is dropped, as if never sent; a null with a
 * default is left for defaulting to replace. Nulls inside arrays are kept (and fail validation).
 */
export function pruneNonNullableNullsWithoutDefaults(x: unknown, s: JSONSchemaProps | undefined): void {
  if (Array.isArray(x)) {
    for (const item of x) pruneNonNullableNullsWithoutDefaults(item, s?.items);
    return;
  }
  if (!isObject(x)) return;
  for (const key of Object.keys(x)) {
    const sub = schemaForKey(s, key);
    const value = x[key];
    if (value === null && sub !== undefined && sub.nullable !== true && sub.default === undefined) {
      delete x[key];
    } else {
      pruneNonNullableNullsWithoutDefaults(value, sub);
    }
  }
}

/** Paths of the fields present in `input` but pruned from `output` (apiVersion, kind and metadata are never pruned). */
function prunedPaths(input: unknown, output: unknown, path: string): string[] {
  const out: string[] = [];
  if (Array.isArray(input) && Array.isArray(output) && input.length === output.length) {
    input.forEach((v, i) => out.push(...prunedPaths(v, output[i], `${path}[${i}]`)));
  } else if (isObject(input) && isObject(output)) {
    for (const k of Object.keys(input)) {
      if (path === '' && (k === 'metadata' || k === 'apiVersion' || k === 'kind')) continue;
      const p = path === '' ? k : `${path}.${k}`;
      if (!(k in output)) out.push(p);
      else out.push(...prunedPaths(input[k], output[k], p));
    }
  }
  return out;
}

/**
 * A resource (never mutated) pruned by its schema, with the path of every field pruned: what kube's decoder
 * reports as unknown fields of a custom resource, per fieldValidation.
 */
export function pruneReporting(obj: unknown, schema: JSONSchemaProps): { object: unknown; pruned: string[] } {
  const object = structuredClone(obj);
  prune(object, schema, true);
  return { object, pruned: prunedPaths(obj, object, '') };
}
