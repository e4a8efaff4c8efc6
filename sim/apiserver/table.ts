// Server-side printing: the meta.k8s.io/v1 Table kube-apiserver returns when a client (kubectl get) asks for
// `application/json;as=Table;v=v1;g=meta.k8s.io`. Column values follow kube's CRD table convertor: the implicit
// Name column first, a typed cell per printer column, `date` cells rendered as an age, missing values as null.
import type { KubeObject, ListMeta } from '../../lib/apis/meta.js';
import { evalJsonPath, JsonPathError } from './jsonpath.js';
import { ageSince } from './human-duration.js';
import type { PrinterColumn } from './printer-column.js';
import { CREATION_TIMESTAMP_DESCRIPTION, NAME_DESCRIPTION } from './printer-column.js';

export { evalJsonPath, JsonPathError } from './jsonpath.js';
export { humanDuration } from './human-duration.js';
export { defaultColumnsFor } from './builtin-printer-columns.js';
export type { PrinterColumn } from './printer-column.js';
export { CREATION_TIMESTAMP_DESCRIPTION, NAME_DESCRIPTION } from './printer-column.js';

export type IncludeObject = 'None' | 'Metadata' | 'Object';

export interface TableOptions {
  /** Milliseconds since the epoch; ages are measured from here. */
  now: number;
  /** What each row carries besides its cells; kube's (and kubectl's) default is Metadata. */
  includeObject?: IncludeObject;
  listMeta?: ListMeta;
}

export const NAME_COLUMN: PrinterColumn = {
  name: 'Name',
  type: 'string',
  format: 'name',
  jsonPath: '.metadata.name',
  description: NAME_DESCRIPTION,
  cell: (obj) => obj.metadata.name ?? '',
};

/** What kube-apiserver shows for a CRD version that declares no additionalPrinterColumns. */
export const DEFAULT_AGE_COLUMN: PrinterColumn = {
  name: 'Age',
  type: 'date',
  jsonPath: '.metadata.creationTimestamp',
  description: CREATION_TIMESTAMP_DESCRIPTION,
};

function sortedJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(sortedJson).join(',')}]`;
  if (typeof v === 'object' && v !== null) {
    const rec = v as Record<string, unknown>;
    return `{${Object.keys(rec)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${sortedJson(rec[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(v) ?? 'null';
}

/** How kubectl's JSONPath printer renders a value: text as is, scalars in Go's %v, structures as JSON. */
function asText(v: unknown): string {
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  return sortedJson(v);
}

/** kube's cellForJSONValue: a value of the wrong JSON type for its column is shown as empty (null). */
export function cellFor(type: string, value: unknown, now: number): unknown {
  if (value === null || value === undefined) return null;
  switch (type) {
    case 'integer':
      return typeof value === 'number' ? Math.trunc(value) : null;
    case 'number':
      return typeof value === 'number' ? value : null;
    case 'boolean':
      return typeof value === 'boolean' ? value : null;
    case 'date':
      return typeof value === 'string' ? ageSince(value, now) : null;
    case 'string':
      return asText(value);
    default:
      return null;
  }
}

function columnCell(col: PrinterColumn, obj: KubeObject, now: number): unknown {
  if (col.cell !== undefined) return col.cell(obj, now);
  let results: unknown[];
  try {
    results = evalJsonPath(obj, col.jsonPath);
  } catch (err) {
    if (err instanceof JsonPathError) return null;
    throw err;
  }
  return results.length === 0 ? null : cellFor(col.type, results[0], now);
}

function rowObject(obj: KubeObject, include: IncludeObject): unknown {
  if (include === 'None') return undefined;
  if (include === 'Object') return obj;
  return { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: obj.metadata };
}

/**
 * Builds the meta.k8s.io/v1 Table for `objects`. `columns` are a CRD version's printer columns (or
 * defaultColumnsFor(kind)); no columns means kube's default Age column. The Name column comes first unless
 * the given columns already place one (a column of format "name").
 */
export function toTable(objects: KubeObject[], columns: PrinterColumn[], opts: TableOptions): Record<string, unknown> {
  const given = columns.length === 0 ? [DEFAULT_AGE_COLUMN] : columns;
  const cols = given.some((c) => c.format === 'name') ? given : [NAME_COLUMN, ...given];
  const include = opts.includeObject ?? 'Metadata';
  return {
    kind: 'Table',
    apiVersion: 'meta.k8s.io/v1',
    metadata: { ...(opts.listMeta ?? {}) },
    columnDefinitions: cols.map((c) => ({
      name: c.name,
      type: c.type,
      format: c.format ?? '',
      description: c.description ?? '',
      priority: c.priority ?? 0,
    })),
    rows: objects.map((obj) => {
      const object = rowObject(obj, include);
      const cells = cols.map((c) => columnCell(c, obj, opts.now));
      return object === undefined ? { cells } : { cells, object };
    }),
  };
}
