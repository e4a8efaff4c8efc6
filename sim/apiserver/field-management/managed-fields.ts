// metadata.managedFields read into field sets per manager and written back in kube's form. A manager
// is identified as kube-apiserver identifies it: its name, operation and subresource, plus the
// apiVersion for Update (so an applier stays one entry whatever version it applies with).
import * as E from '../errors.js';
import { isPlainObject } from '../json.js';
import { FieldSet, FieldsV1Error } from './field-set.js';

export type Operation = 'Apply' | 'Update';

export interface ManagerEntry {
  manager: string;
  operation: Operation;
  apiVersion: string;
  subresource?: string;
  time?: string;
  fields: FieldSet;
}

/** Managers by identity, in the order read (the order written is kube's sort, not this one). */
export type Managers = Map<string, ManagerEntry>;

export function identityOf(e: Pick<ManagerEntry, 'manager' | 'operation' | 'apiVersion' | 'subresource'>): string {
  return [e.manager, e.operation, e.operation === 'Update' ? e.apiVersion : '', e.subresource ?? ''].join('\u0000');
}

function invalidManagedFields(index: number, detail: string): E.StatusError {
  return E.badRequest(`metadata.managedFields[${index}]: ${detail}`);
}

/** The managers recorded in `raw` (metadata.managedFields); a malformed entry is a 400 naming it. */
export function decodeManagers(raw: unknown): Managers {
  const out: Managers = new Map();
  if (raw === undefined || raw === null) return out;
  if (!Array.isArray(raw)) throw E.badRequest('metadata.managedFields: must be a list of ManagedFieldsEntry');
  raw.forEach((entry: unknown, i) => {
    if (!isPlainObject(entry)) throw invalidManagedFields(i, 'must be an object');
    // `managedFields: [{}]` is how a client clears the entries.
    if (Object.keys(entry).length === 0) return;
    const { manager, operation, apiVersion, subresource, time, fieldsType, fieldsV1 } = entry;
    if (operation !== 'Apply' && operation !== 'Update')
      throw invalidManagedFields(
        i,
        `operation: Unsupported value: ${JSON.stringify(operation ?? '')}: supported values: "Apply", "Update"`,
      );
    if (fieldsType !== undefined && fieldsType !== 'FieldsV1')
      throw invalidManagedFields(
        i,
        `fieldsType: Unsupported value: ${JSON.stringify(fieldsType)}: supported values: "FieldsV1"`,
      );
    let fields: FieldSet;
    try {
      fields = FieldSet.fromFieldsV1(fieldsV1 ?? {});
    } catch (err) {
      if (err instanceof FieldsV1Error) throw invalidManagedFields(i, `fieldsV1: ${err.message}`);
      throw err;
    }
    const e: ManagerEntry = {
      manager: typeof manager === 'string' ? manager : '',
      operation,
      apiVersion: typeof apiVersion === 'string' ? apiVersion : '',
      ...(typeof subresource === 'string' && subresource !== '' ? { subresource } : {}),
      ...(typeof time === 'string' ? { time } : {}),
      fields,
    };
    const id = identityOf(e);
    const prev = out.get(id);
    if (prev) prev.fields.addAll(fields);
    else out.set(id, e);
  });
  return out;
}

/** metadata.managedFields for `managers`: empty sets dropped, sorted as kube sorts them (operation, time, manager). */
export function encodeManagers(managers: Managers): Array<Record<string, unknown>> {
  return sortEntries([...managers.values()].filter((e) => !e.fields.isEmpty()).map(encodeEntry));
}

export function encodeEntry(e: ManagerEntry): Record<string, unknown> {
  return {
    manager: e.manager,
    operation: e.operation,
    apiVersion: e.apiVersion,
    ...(e.time !== undefined ? { time: e.time } : {}),
    fieldsType: 'FieldsV1',
    fieldsV1: e.fields.toFieldsV1(),
    ...(e.subresource ? { subresource: e.subresource } : {}),
  };
}

/** The identity of an encoded entry (see identityOf). */
export function identityOfEntry(raw: Record<string, unknown>): string {
  const str = (v: unknown) => (typeof v === 'string' ? v : '');
  return identityOf({
    manager: str(raw.manager),
    operation: raw.operation === 'Apply' ? 'Apply' : 'Update',
    apiVersion: str(raw.apiVersion),
    subresource: str(raw.subresource) || undefined,
  });
}

/** Encoded entries in kube's order: by operation, time, manager, apiVersion, subresource. */
export function sortEntries(entries: Array<Record<string, unknown>>): Array<Record<string, unknown>> {
  const str = (v: unknown) => (typeof v === 'string' ? v : '');
  const keys = ['operation', 'time', 'manager', 'apiVersion', 'subresource'];
  return entries.sort((p, q) => {
    for (const k of keys) {
      const a = str(p[k]);
      const b = str(q[k]);
      if (a !== b) return a < b ? -1 : 1;
    }
    return 0;
  });
}

/** Whether a FieldsV1 value holds any path of `set` (a walk over `set` only; nothing is parsed). */
export function fieldsV1Touches(raw: unknown, set: FieldSet): boolean {
  if (raw === null || typeof raw !== 'object') return false;
  const node = raw as Record<string, unknown>;
  for (const m of set.members) if (Object.hasOwn(node, m)) return true;
  for (const [e, child] of set.children) if (Object.hasOwn(node, e) && fieldsV1Touches(node[e], child)) return true;
  return false;
}

/** How kube names a manager in a conflict: `"kubectl" with subresource "scale" using apps/v1`. */
export function printManager(e: ManagerEntry): string {
  let s = JSON.stringify(e.manager);
  if (e.subresource) s = `${s} with subresource ${JSON.stringify(e.subresource)}`;
  return e.operation === 'Update' ? `${s} using ${e.apiVersion}` : s;
}
