// The structured-merge operations on JSON objects, each one walk over the object (and its schema):
// the field set an applied configuration names, the comparison of two versions of an object (what
// changed and what went), the merge of an applied configuration over the live object, and the removal
// of fields nobody owns any more. Keyed lists are indexed by element once per list, so every operation
// is linear in the size of the objects.
import type { JSONSchemaProps } from '../schema/index.js';
import { deepEqual, isPlainObject } from '../json.js';
import { FieldSet, type Element } from './field-set.js';
import { fieldSchema, itemsByElement, shapeOf, type Shape } from './shape.js';

type Json = Record<string, unknown>;

/** A keyed list's items by element, or undefined when the list is to be handled as atomic. */
function keyed(shape: Shape, value: unknown): Map<Element, unknown> | undefined {
  if ((shape.kind !== 'list-map' && shape.kind !== 'set') || !Array.isArray(value)) return undefined;
  return itemsByElement(shape, value);
}

function itemSchema(shape: Shape): JSONSchemaProps | undefined {
  return shape.kind === 'list-map' ? shape.item : undefined;
}

// ---- the field set of an applied configuration ----

/** The fields an applied configuration sets: its leaves, atomic values, and every keyed list item. */
export function fieldSetOf(obj: Json, schema: JSONSchemaProps | undefined): FieldSet {
  const set = new FieldSet();
  addMapFields(set, obj, schema);
  return set;
}

function addMapFields(node: FieldSet, obj: Json, schema: JSONSchemaProps | undefined): void {
  for (const [k, v] of Object.entries(obj)) addField(node, `f:${k}`, v, fieldSchema(schema, k));
}

function addField(node: FieldSet, e: Element, value: unknown, schema: JSONSchemaProps | undefined): void {
  const shape = shapeOf(value, schema);
  if (shape.kind === 'map' && isPlainObject(value) && Object.keys(value).length > 0) {
    addMapFields(node.child(e), value, shape.schema);
    return;
  }
  const items = keyed(shape, value);
  if (items && items.size > 0) {
    const child = node.child(e);
    for (const [ie, item] of items) {
      child.members.add(ie);
      if (shape.kind === 'list-map' && isPlainObject(item)) addMapFields(child.child(ie), item, itemSchema(shape));
    }
    return;
  }
  node.members.add(e);
}

// ---- comparison ----

export interface Comparison {
  /** Fields added or given a new value (a new map or list item counts as a member itself). */
  changed: FieldSet;
  /** Fields that are gone, with everything that was under them. */
  removed: FieldSet;
}

/** A node of a result set made only when something is marked under it (most of a comparison marks nothing). */
class LazyNode {
  private node: FieldSet | undefined;
  constructor(
    private readonly parent: Target,
    private readonly e: Element,
  ) {}

  get(): FieldSet {
    this.node ??= at(this.parent).child(this.e);
    return this.node;
  }
}
type Target = FieldSet | LazyNode;

function at(t: Target): FieldSet {
  return t instanceof FieldSet ? t : t.get();
}

export function compare(before: Json, after: Json, schema: JSONSchemaProps | undefined): Comparison {
  const c: Comparison = { changed: new FieldSet(), removed: new FieldSet() };
  compareMaps(c.changed, c.removed, before, after, schema);
  return c;
}

function compareMaps(changed: Target, removed: Target, a: Json, b: Json, schema: JSONSchemaProps | undefined): void {
  for (const k in a)
    if (Object.hasOwn(a, k) && a[k] !== undefined && (!Object.hasOwn(b, k) || b[k] === undefined))
      markAll(at(removed), `f:${k}`, a[k], fieldSchema(schema, k));
  for (const k in b) {
    if (!Object.hasOwn(b, k)) continue;
    const v = b[k];
    if (v === undefined) continue;
    const s = fieldSchema(schema, k);
    if (!Object.hasOwn(a, k) || a[k] === undefined) markAll(at(changed), `f:${k}`, v, s);
    else compareValues(changed, removed, `f:${k}`, a[k], v, s);
  }
}

function compareValues(
  changed: Target,
  removed: Target,
  e: Element,
  a: unknown,
  b: unknown,
  schema: JSONSchemaProps | undefined,
): void {
  // Writes share the untouched parts of the stored object (a status write keeps the stored spec).
  if (a === b) return;
  const sa = shapeOf(a, schema);
  const sb = shapeOf(b, schema);
  if (sa.kind === 'map' && sb.kind === 'map' && isPlainObject(a) && isPlainObject(b)) {
    compareMaps(new LazyNode(changed, e), new LazyNode(removed, e), a, b, sa.schema);
    return;
  }
  const ia = keyed(sa, a);
  const ib = keyed(sb, b);
  if (ia && ib && sa.kind === sb.kind) {
    const cc = new LazyNode(changed, e);
    const rc = new LazyNode(removed, e);
    for (const [ie, item] of ia) if (!ib.has(ie)) markAll(rc.get(), ie, item, itemSchema(sa));
    for (const [ie, item] of ib) {
      if (!ia.has(ie)) markAll(cc.get(), ie, item, itemSchema(sb));
      else if (isPlainObject(item) && isPlainObject(ia.get(ie)))
        compareMaps(new LazyNode(cc, ie), new LazyNode(rc, ie), ia.get(ie) as Json, item, itemSchema(sb));
    }
    return;
  }
  if (sa.kind !== sb.kind || ((sa.kind === 'map' || ia) && !(sb.kind === 'map' || ib))) {
    // The value changed its shape: what was under it is gone and the new value is all new.
    markAll(at(removed), e, a, schema);
    markAll(at(changed), e, b, schema);
    return;
  }
  if (!deepEqual(a, b)) at(changed).members.add(e);
}

/** Marks `e` and everything under it (a whole value added or removed). */
function markAll(node: FieldSet, e: Element, value: unknown, schema: JSONSchemaProps | undefined): void {
  node.members.add(e);
  const shape = shapeOf(value, schema);
  if (shape.kind === 'map' && isPlainObject(value)) {
    if (Object.keys(value).length === 0) return;
    const child = node.child(e);
    for (const [k, v] of Object.entries(value)) markAll(child, `f:${k}`, v, fieldSchema(shape.schema, k));
    return;
  }
  const items = keyed(shape, value);
  if (items && items.size > 0) {
    const child = node.child(e);
    for (const [ie, item] of items) markAll(child, ie, item, itemSchema(shape));
  }
}

// ---- merge ----

/** The live object with the applied configuration merged over it (a new object; neither input changes). */
export function merge(live: Json, config: Json, schema: JSONSchemaProps | undefined): Json {
  return mergeMaps(live, config, schema);
}

function mergeMaps(live: Json, config: Json, schema: JSONSchemaProps | undefined): Json {
  const out: Json = { ...live };
  for (const [k, v] of Object.entries(config)) {
    if (v === null) {
      // An explicit null in an applied configuration removes the field.
      delete out[k];
      continue;
    }
    out[k] = Object.hasOwn(live, k) ? mergeValues(live[k], v, fieldSchema(schema, k)) : v;
  }
  return out;
}

function mergeValues(live: unknown, config: unknown, schema: JSONSchemaProps | undefined): unknown {
  const sl = shapeOf(live, schema);
  const sc = shapeOf(config, schema);
  if (sl.kind === 'map' && sc.kind === 'map' && isPlainObject(live) && isPlainObject(config))
    return mergeMaps(live, config, sc.schema);
  const il = keyed(sl, live);
  const ic = keyed(sc, config);
  if (il && ic && sl.kind === sc.kind) {
    // Live items keep their place (merged with the configuration's item of the same key); new ones follow.
    const out: unknown[] = [];
    for (const [e, item] of il) {
      const applied = ic.get(e);
      out.push(
        applied === undefined
          ? item
          : isPlainObject(item) && isPlainObject(applied)
            ? mergeMaps(item, applied, itemSchema(sc))
            : applied,
      );
    }
    for (const [e, item] of ic) if (!il.has(e)) out.push(item);
    return out;
  }
  return config;
}

// ---- removal ----

/**
 * Removes from `obj` (in place) the fields in `remove`, except those `owned` still holds: a map field or
 * list item is kept while anything under it is owned, and only its unowned fields go.
 */
export function removeFields(obj: Json, remove: FieldSet, owned: FieldSet, schema: JSONSchemaProps | undefined): void {
  removeFromMap(obj, remove, owned, schema);
}

function removeFromMap(
  obj: Json,
  remove: FieldSet,
  owned: FieldSet | undefined,
  schema: JSONSchemaProps | undefined,
): void {
  for (const e of new Set([...remove.members, ...remove.children.keys()])) {
    if (!e.startsWith('f:')) continue;
    const k = e.slice(2);
    if (!Object.hasOwn(obj, k)) continue;
    const sub = remove.children.get(e);
    const ownedSub = owned?.children.get(e);
    if (sub) removeWithin(obj[k], sub, ownedSub, fieldSchema(schema, k));
    if (remove.members.has(e) && !owned?.members.has(e) && (ownedSub === undefined || ownedSub.isEmpty()))
      delete obj[k];
  }
}

function removeWithin(
  value: unknown,
  remove: FieldSet,
  owned: FieldSet | undefined,
  schema: JSONSchemaProps | undefined,
): void {
  const shape = shapeOf(value, schema);
  if (shape.kind === 'map' && isPlainObject(value)) {
    removeFromMap(value, remove, owned, shape.schema);
    return;
  }
  const items = keyed(shape, value);
  if (!items || !Array.isArray(value)) return;
  const drop = new Set<Element>();
  for (const [e, item] of items) {
    const sub = remove.children.get(e);
    const ownedSub = owned?.children.get(e);
    if (sub && isPlainObject(item)) removeFromMap(item, sub, ownedSub, itemSchema(shape));
    if (remove.members.has(e) && !owned?.members.has(e) && (ownedSub === undefined || ownedSub.isEmpty())) drop.add(e);
  }
  if (drop.size === 0) return;
  const kept = [...items].filter(([e]) => !drop.has(e)).map(([, item]) => item);
  value.splice(0, value.length, ...kept);
}
