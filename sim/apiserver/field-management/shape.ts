// How structured merge sees one node of an object, read from the OpenAPI / CRD schema: a granular map
// (fields merge one by one), a list merged by item keys (x-kubernetes-list-type map) or by value
// (set), or an atomic value replaced whole (scalars, x-kubernetes-list-type atomic, x-kubernetes-map-type
// atomic, and every list the schema says nothing about). Where there is no schema, maps are granular
// and lists atomic, the types structured-merge-diff deduces.
import type { JSONSchemaProps } from '../schema/index.js';
import { propertySchema } from '../schema/types.js';
import { isPlainObject } from '../json.js';
import type { Element } from './field-set.js';

export type Shape =
  | { kind: 'map'; schema: JSONSchemaProps | undefined }
  | { kind: 'list-map'; keys: string[]; item: JSONSchemaProps | undefined }
  | { kind: 'set' }
  | { kind: 'atomic' };

/** ObjectMeta as kube declares it for merging; CRD schemas say only `type: object` for metadata. */
export const metadataSchema: JSONSchemaProps = {
  type: 'object',
  properties: {
    labels: { type: 'object', additionalProperties: { type: 'string' } },
    annotations: { type: 'object', additionalProperties: { type: 'string' } },
    finalizers: { type: 'array', items: { type: 'string' }, 'x-kubernetes-list-type': 'set' },
    ownerReferences: {
      type: 'array',
      'x-kubernetes-list-type': 'map',
      'x-kubernetes-list-map-keys': ['uid'],
      items: { type: 'object' },
    },
  },
};

/** The root schema of a kind: its own (a CRD version's openAPIV3Schema) with kube's ObjectMeta. */
export function rootSchema(schema: JSONSchemaProps | undefined): JSONSchemaProps {
  return {
    ...(schema ?? { type: 'object' }),
    type: 'object',
    properties: { ...(schema?.properties ?? {}), metadata: metadataSchema },
  };
}

export function shapeOf(value: unknown, schema: JSONSchemaProps | undefined): Shape {
  if (Array.isArray(value)) {
    const listType = schema?.['x-kubernetes-list-type'];
    const keys = schema?.['x-kubernetes-list-map-keys'] ?? [];
    if (listType === 'map' && keys.length > 0) return { kind: 'list-map', keys, item: schema?.items };
    if (listType === 'set') return { kind: 'set' };
    return { kind: 'atomic' };
  }
  if (isPlainObject(value)) {
    if (schema?.['x-kubernetes-map-type'] === 'atomic') return { kind: 'atomic' };
    return { kind: 'map', schema };
  }
  return { kind: 'atomic' };
}

/** The schema of field `key` of a map: a declared property, else additionalProperties, else unknown. */
export function fieldSchema(schema: JSONSchemaProps | undefined, key: string): JSONSchemaProps | undefined {
  const declared = propertySchema(schema, key);
  if (declared) return declared;
  const extra = schema?.additionalProperties;
  return typeof extra === 'object' ? extra : undefined;
}

/**
 * The element naming a list item: `k:{...}` with the key fields sorted by name (an absent key field takes
 * its schema default, as kube identifies items), `v:<json>` for a set value; undefined for an item that
 * has no key (such a list is treated as atomic by the callers).
 */
export function itemElement(shape: Shape, item: unknown): Element | undefined {
  if (shape.kind === 'set') return `v:${JSON.stringify(item)}`;
  if (shape.kind !== 'list-map' || !isPlainObject(item)) return undefined;
  const key: Record<string, unknown> = {};
  for (const k of [...shape.keys].sort()) {
    const v = Object.hasOwn(item, k) ? item[k] : propertySchema(shape.item, k)?.default;
    if (v === undefined) return undefined;
    key[k] = v;
  }
  return `k:${JSON.stringify(key)}`;
}

/** The items of a keyed list by element, or undefined when an item lacks its key or two share one. */
export function itemsByElement(shape: Shape, list: unknown[]): Map<Element, unknown> | undefined {
  const out = new Map<Element, unknown>();
  for (const item of list) {
    const e = itemElement(shape, item);
    if (e === undefined || out.has(e)) return undefined;
    out.set(e, item);
  }
  return out;
}
