// How objects go out: as JSON in the requested version (custom resources are served in every version
// with conversion "None", so only apiVersion changes), or as a meta.k8s.io/v1 Table when kubectl asks
// for server-side printing.
import type { IncomingMessage } from 'node:http';
import type { KubeObject } from '../../lib/apis/meta.js';
import { apiVersionFor, toStoredForm, versionInfo, type ResourceType } from './resource-type.js';
import { defaultColumnsFor, toTable, type IncludeObject, type PrinterColumn } from './table.js';

export interface Encoder {
  /** Events are serialised once per distinct key and shared by every watcher using it. */
  readonly key: string;
  readonly table: boolean;
  encode(obj: KubeObject): unknown;
}

/** The object as served at `version` (a shallow copy only when apiVersion differs; a view's conversion for a view). */
export function present(type: ResourceType, version: string, obj: KubeObject): KubeObject {
  if (type.view) return obj.apiVersion === type.view.viewApiVersion ? obj : type.view.fromStored(obj);
  const apiVersion = apiVersionFor(type.group, version);
  return obj.apiVersion === apiVersion ? obj : { ...obj, apiVersion };
}

export function wantsTable(req: IncomingMessage): boolean {
  const accept = req.headers.accept ?? '';
  return accept.split(',').some((part) => /(^|;)\s*as=Table(\s*;|$)/.test(part) && /g=meta\.k8s\.io/.test(part));
}

export function columnsFor(type: ResourceType, version: string): PrinterColumn[] {
  const columns = type.custom ? (versionInfo(type, version)?.printerColumns ?? []) : defaultColumnsFor(type.kind);
  const view = type.view;
  if (!view) return columns;
  // A view's rows show the stored object's cells (kube prints the one internal object for every version).
  return columns.map((c) => {
    const cell = c.cell;
    return cell ? { ...c, cell: (o: KubeObject, now: number) => cell(toStoredForm(type, o), now) } : c;
  });
}

export function jsonEncoder(type: ResourceType, version: string): Encoder {
  return { key: `json:${type.group}/${version}`, table: false, encode: (obj) => present(type, version, obj) };
}

export function tableEncoder(
  type: ResourceType,
  version: string,
  includeObject: IncludeObject,
  now: () => number,
): Encoder {
  const columns = columnsFor(type, version);
  return {
    key: `table:${type.group}/${version}:${includeObject}`,
    table: true,
    encode: (obj) => toTable([present(type, version, obj)], columns, { now: now(), includeObject }),
  };
}

export function includeObjectParam(v: string | null): IncludeObject {
  return v === 'None' || v === 'Object' ? v : 'Metadata';
}
