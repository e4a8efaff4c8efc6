// Field ownership as kube-apiserver keeps it in metadata.managedFields. An Update (create, PUT, a
// non-apply patch, a status or scale write) gives its manager every field it added or changed and
// takes those fields from everyone else. An Apply makes the applier own exactly the fields of its
// configuration: the configuration is merged over the live object with structured-merge rules, a field
// the applier applied last time and no longer applies is removed unless another manager owns it, and
// changing a field another manager owns is a conflict (409) unless the request forces it, which moves
// the field to the applier. Changes that only move timestamps are no changes: the old entries stay.
import type { JSONSchemaProps } from '../schema/index.js';
import * as E from '../errors.js';
import { cloneJson, deepEqual, isPlainObject } from '../json.js';
import { FieldSet, pathString, type Element } from './field-set.js';
import {
  decodeManagers,
  encodeEntry,
  encodeManagers,
  fieldsV1Touches,
  identityOf,
  identityOfEntry,
  printManager,
  sortEntries,
  type ManagerEntry,
  type Managers,
  type Operation,
} from './managed-fields.js';
import { capUpdateManagers } from './update-manager-cap.js';
import { compare, fieldSetOf, merge, removeFields } from './typed.js';

type Json = Record<string, unknown>;

/** Who writes and how: from the request's fieldManager (or user agent), verb and subresource. */
export interface FieldManagerRequest {
  manager: string;
  operation: Operation;
  subresource?: 'status' | 'scale';
  /** Apply only: take the conflicting fields instead of failing. */
  force?: boolean;
}

export interface FieldContext {
  /** The kind's root schema (shape.ts rootSchema). */
  schema: JSONSchemaProps;
  /** The apiVersion of the request, recorded with the entry. */
  apiVersion: string;
  /** RFC 3339, whole seconds. */
  now: string;
  /** The kind has a status subresource: the main resource's appliers never own status, status appliers own only status. */
  statusSubresource: boolean;
}

/** Paths no manager owns: identity and server-set metadata (the "metadata" node itself too, not what is under it). */
const serverOwned = FieldSet.fromPaths(
  [['f:apiVersion'], ['f:kind'], ['f:metadata']].concat(
    [
      'name',
      'namespace',
      'creationTimestamp',
      'selfLink',
      'uid',
      'clusterName',
      'generation',
      'managedFields',
      'resourceVersion',
    ].map((f) => ['f:metadata', `f:${f}`]),
  ),
);

function strip(set: FieldSet): FieldSet {
  return set.difference(serverOwned);
}

/** The object without metadata.managedFields (a shallow copy; the input is not changed). */
function withoutManagedFields(obj: Json): Json {
  if (!isPlainObject(obj.metadata) || !('managedFields' in obj.metadata)) return obj;
  const metadata = { ...obj.metadata };
  delete metadata.managedFields;
  return { ...obj, metadata };
}

/**
 * The managedFields of `after`, an Update of `before` (undefined for a create). `after` carries the
 * entries to start from (the stored ones, or what the client sent); they come back unchanged when the
 * write changes nothing.
 */
export function recordUpdate(
  req: FieldManagerRequest,
  before: Json | undefined,
  after: Json,
  ctx: FieldContext,
): unknown {
  const current = managedFieldsOf(after);
  const stored = before ? managedFieldsOf(before) : undefined;
  // Entries the client sent that differ from the stored ones are its own to set, and are checked.
  const trusted = current === stored || (before !== undefined && deepEqual(current, stored));
  const { changed, removed } = compare(withoutManagedFields(before ?? {}), withoutManagedFields(after), ctx.schema);
  const added = strip(changed);
  const gone = strip(removed);
  if (added.isEmpty() && gone.isEmpty()) {
    if (!trusted) decodeManagers(current);
    return current;
  }
  const self: ManagerEntry = {
    manager: req.manager,
    operation: 'Update',
    apiVersion: ctx.apiVersion,
    ...(req.subresource ? { subresource: req.subresource } : {}),
    fields: new FieldSet(),
  };
  const id = identityOf(self);
  if (!trusted || !Array.isArray(current)) {
    const managers = decodeManagers(current);
    for (const [key, e] of managers)
      e.fields = key === id ? e.fields.difference(gone) : e.fields.difference(added).difference(gone);
    if (!added.isEmpty()) {
      const entry = managers.get(id) ?? self;
      entry.fields = entry.fields.union(added);
      entry.apiVersion = ctx.apiVersion;
      entry.time = ctx.now;
      managers.set(id, entry);
    }
    return capUpdateManagers(encodeManagers(managers));
  }
  // The stored entries: only those holding a changed or removed field (and the writer's own) are
  // parsed and written again; a controller's status write leaves the spec owners' entries as they are.
  const out: Array<Record<string, unknown>> = [];
  let own: ManagerEntry | undefined;
  for (const raw of current as Array<Record<string, unknown>>) {
    const isOwn = identityOfEntry(raw) === id;
    if (!isOwn && !fieldsV1Touches(raw.fieldsV1, added) && !fieldsV1Touches(raw.fieldsV1, gone)) {
      out.push(raw);
      continue;
    }
    const [entry] = decodeManagers([raw]).values();
    if (!entry) continue;
    entry.fields = isOwn ? entry.fields.difference(gone) : entry.fields.difference(added).difference(gone);
    if (isOwn) own = entry;
    else if (!entry.fields.isEmpty()) out.push(encodeEntry(entry));
  }
  if (!added.isEmpty()) {
    const entry = own ?? self;
    entry.fields = entry.fields.union(added);
    entry.apiVersion = ctx.apiVersion;
    entry.time = ctx.now;
    own = entry;
  }
  if (own && !own.fields.isEmpty()) out.push(encodeEntry(own));
  return capUpdateManagers(sortEntries(out));
}

function managedFieldsOf(obj: Json): unknown {
  return isPlainObject(obj.metadata) ? obj.metadata.managedFields : undefined;
}

/** The part of an applied configuration the request may own (status subresource rules). */
function ownablePart(config: Json, req: FieldManagerRequest, ctx: FieldContext): Json {
  if (!ctx.statusSubresource) return config;
  if (req.subresource === 'status') {
    const out: Json = {};
    for (const k of ['apiVersion', 'kind', 'metadata', 'status']) if (Object.hasOwn(config, k)) out[k] = config[k];
    if (isPlainObject(out.metadata))
      out.metadata = {
        name: out.metadata.name,
        ...(out.metadata.namespace !== undefined ? { namespace: out.metadata.namespace } : {}),
      };
    return out;
  }
  const out = { ...config };
  delete out.status;
  return out;
}

/**
 * The object an Apply of `config` over `live` (undefined: the object does not exist yet) stores, with its
 * managedFields. Throws the 409 of kube-apiserver when the configuration changes fields another manager
 * owns and the request does not force.
 */
export function applyConfiguration(
  req: FieldManagerRequest,
  live: Json | undefined,
  config: Json,
  ctx: FieldContext,
): Json {
  const base = withoutManagedFields(live ?? {});
  const applied = ownablePart(config, req, ctx);
  const managers = decodeManagers(live && isPlainObject(live.metadata) ? live.metadata.managedFields : undefined);
  const before = snapshot(managers);
  const self: ManagerEntry = {
    manager: req.manager,
    operation: 'Apply',
    apiVersion: ctx.apiVersion,
    ...(req.subresource ? { subresource: req.subresource } : {}),
    time: ctx.now,
    fields: strip(fieldSetOf(applied, ctx.schema)),
  };
  const id = identityOf(self);
  const lastApplied = managers.get(id)?.fields;
  managers.set(id, self);

  let result = merge(base, applied, ctx.schema);
  if (lastApplied && !lastApplied.isEmpty()) {
    const owned = allFields(managers);
    const stale = lastApplied.difference(owned);
    if (!stale.isEmpty()) {
      result = cloneJson(result);
      removeFields(result, stale, owned, ctx.schema);
    }
  }

  const { changed, removed } = compare(base, result, ctx.schema);
  const added = strip(changed);
  const gone = strip(removed);
  const conflicts: Array<{ entry: ManagerEntry; fields: FieldSet }> = [];
  for (const [key, e] of managers) {
    if (key === id) continue;
    const overlap = e.fields.intersection(added);
    if (!overlap.isEmpty()) conflicts.push({ entry: e, fields: overlap });
  }
  if (conflicts.length > 0 && !req.force) throw conflictError(conflicts);
  for (const c of conflicts) c.entry.fields = c.entry.fields.difference(c.fields);
  if (!gone.isEmpty()) for (const e of managers.values()) e.fields = e.fields.difference(gone);

  const unchanged = live !== undefined && added.isEmpty() && gone.isEmpty() && sameOwnership(before, managers, id);
  const metadata = { ...(isPlainObject(result.metadata) ? result.metadata : {}) };
  metadata.managedFields =
    unchanged && isPlainObject(live.metadata) ? live.metadata.managedFields : encodeManagers(managers);
  return { ...result, metadata };
}

function allFields(managers: Managers): FieldSet {
  const all = new FieldSet();
  for (const e of managers.values()) all.addAll(e.fields);
  return all;
}

function snapshot(managers: Managers): Map<string, string> {
  const out = new Map<string, string>();
  for (const [k, e] of managers) out.set(k, JSON.stringify(e.fields.toFieldsV1()));
  return out;
}

/** Whether the managers own what they owned before (the applier's entry included), timestamps aside. */
function sameOwnership(before: Map<string, string>, after: Managers, applier: string): boolean {
  if (!before.has(applier)) return false;
  const now = snapshot(after);
  if (now.size !== before.size) return false;
  for (const [k, v] of now) if (before.get(k) !== v) return false;
  return true;
}

function conflictError(conflicts: Array<{ entry: ManagerEntry; fields: FieldSet }>): E.StatusError {
  const list: Array<{ manager: string; path: Element[] }> = [];
  for (const c of conflicts) for (const p of c.fields.paths()) list.push({ manager: printManager(c.entry), path: p });
  const causes = list.map((c) => ({
    reason: 'FieldManagerConflict',
    message: `conflict with ${c.manager}`,
    field: pathString(c.path),
  }));
  let message: string;
  if (list.length === 1) {
    const only = list[0] as { manager: string; path: Element[] };
    message = `Apply failed with 1 conflict: conflict with ${only.manager}: ${pathString(only.path)}`;
  } else {
    const byManager = new Map<string, string[]>();
    for (const c of list) byManager.set(c.manager, [...(byManager.get(c.manager) ?? []), pathString(c.path)]);
    const lines: string[] = [];
    for (const m of [...byManager.keys()].sort()) {
      lines.push(`conflicts with ${m}:`);
      for (const p of byManager.get(m) ?? []) lines.push(`- ${p}`);
    }
    message = `Apply failed with ${list.length} conflicts: ${lines.join('\n')}`;
  }
  return new E.StatusError(409, 'Conflict', message, { causes });
}
