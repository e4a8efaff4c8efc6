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
  return JSON.stringify({
    manager: e.manager,
    operation: e.operation,
    ...(e.operation === 'Update' ? { apiVersion: e.apiVersion } : {}),
    ...(e.subresource ? { subresource: e.subresource } : {}),
  });
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
    const { manager, operation, apiVersion, subresource, time, fieldsType, fieldsV1 } = entry;
    if (operation !== 'Apply' && operation !== 'Update') throw invalidManagedFields(i, `operation: Unsupported value: ${JSON.stringify(operation ?? '')}: supported values: "Apply", "Update"`);
    if (fieldsType !== undefined && fieldsType !== 'FieldsV1') throw invalidManagedFields(i, `fieldsType: Unsupported value: ${JSON.stringify(fieldsType)}: supported values: "FieldsV1"`);
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
  const entries = [...managers.values()].filter((e) => !e.fields.isEmpty());
  entries.sort((p, q) => {
    if (p.operation !== q.operation) return p.operation < q.operation ? -1 : 1;
    const pt = p.time ?? '';
    const qt = q.time ?? '';
    if (pt !== qt) return pt < qt ? -1 : 1;
    if (p.manager !== q.manager) return p.manager < q.manager ? -1 : 1;
    if (p.apiVersion !== q.apiVersion) return p.apiVersion < q.apiVersion ? -1 : 1;
    return (p.subresource ?? '') < (q.subresource ?? '') ? -1 : (p.subresource ?? '') > (q.subresource ?? '') ? 1 : 0;
  });
  return entries.map((e) => ({
    manager: e.manager,
    operation: e.operation,
    apiVersion: e.apiVersion,
    ...(e.time !== undefined ? { time: e.time } : {}),
    fieldsType: 'FieldsV1',
    fieldsV1: e.fields.toFieldsV1(),
    ...(e.subresource ? { subresource: e.subresource } : {}),
  }));
}

/** How kube names a manager in a conflict: `"kubectl" with subresource "scale" using apps/v1`. */
export function printManager(e: ManagerEntry): string {
  let s = JSON.stringify(e.manager);
  if (e.subresource) s = `${s} with subresource ${JSON.stringify(e.subresource)}`;
  return e.operation === 'Update' ? `${s} using ${e.apiVersion}` : s;
}
