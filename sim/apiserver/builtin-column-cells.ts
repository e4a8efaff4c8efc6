// Readers that pull loosely typed fields out of a stored object for the built-in printers, and the Age column
// every built-in kind shares; the per-kind column tables beside this file build on them.
import type { KubeObject } from '../../lib/apis/meta.js';
import type { PrinterColumn } from './printer-column.js';
import { CREATION_TIMESTAMP_DESCRIPTION } from './printer-column.js';
import { ageSince } from './human-duration.js';

export type Json = Record<string, unknown>;

export function rec(v: unknown): Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Json) : {};
}

export function list(v: unknown): Json[] {
  return Array.isArray(v) ? v.map(rec) : [];
}

export function str(v: unknown): string {
  return typeof v === 'string' ? v : '';
}

export function num(v: unknown): number {
  return typeof v === 'number' ? v : 0;
}

export function orNone(s: string): string {
  return s === '' ? '<none>' : s;
}

export function field(obj: KubeObject, key: string): Json {
  return rec((obj as unknown as Json)[key]);
}

// Built-in printers render Age as preformatted text (type string), unlike CRD columns (type date).
export const ageColumn: PrinterColumn = {
  name: 'Age',
  type: 'string',
  jsonPath: '.metadata.creationTimestamp',
  description: CREATION_TIMESTAMP_DESCRIPTION,
  cell: (obj, now) => ageSince(obj.metadata.creationTimestamp, now),
};
