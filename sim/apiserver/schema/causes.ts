// Builders for FieldCause in the exact wording kube-apiserver uses (k8s.io/apimachinery field.Error.ErrorBody
// over the kube-openapi validation messages), so clients matching on messages see what a real cluster says.
import type { FieldCause } from './types.js';
import { isObject } from './types.js';

/** Field path helpers: kube prints `spec.taints[0].key`; the root has an empty path. */
export function childPath(parent: string, key: string): string {
  return parent === '' ? key : `${parent}.${key}`;
}

export function indexPath(parent: string, i: number): string {
  return `${parent}[${i}]`;
}

/** Go's strconv.Quote for the characters that matter in practice. */
export function goQuote(s: string): string {
  return JSON.stringify(s);
}

/** How Go's %#v / %v prints a decoded JSON value inside an error message. */
export function goValue(v: unknown): string {
  if (v === null || v === undefined) return 'null';
  if (typeof v === 'string') return goQuote(v);
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  if (Array.isArray(v)) return `[]interface {}{${v.map(goValue).join(', ')}}`;
  if (isObject(v)) {
    const entries = Object.keys(v)
      .sort()
      .map((k) => `${goQuote(k)}:${goValue(v[k])}`);
    return `map[string]interface {}{${entries.join(', ')}}`;
  }
  return goQuote(typeof v === 'bigint' ? v.toString() : typeof v);
}

/** The name kube-openapi uses for a value's JSON type in "must be of type" messages. */
export function jsonTypeName(v: unknown): string {
  if (v === null || v === undefined) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number';
  if (typeof v === 'object') return 'object';
  return typeof v;
}

function inBody(path: string): string {
  return path === '' ? 'body' : `${path} in body`;
}

export function required(path: string, detail = ''): FieldCause {
  return {
    type: 'FieldValueRequired',
    field: path,
    message: detail === '' ? 'Required value' : `Required value: ${detail}`,
  };
}

/** field.Invalid with a kube-openapi detail written relative to the field, e.g. "should be greater than or equal to 0". */
export function invalid(path: string, value: unknown, detail: string): FieldCause {
  return {
    type: 'FieldValueInvalid',
    field: path,
    message: `Invalid value: ${goValue(value)}: ${inBody(path)} ${detail}`,
  };
}

export function typeInvalid(path: string, value: unknown, expected: string): FieldCause {
  const actual = jsonTypeName(value);
  return {
    type: 'FieldValueTypeInvalid',
    field: path,
    message: `Invalid value: ${goQuote(actual)}: ${inBody(path)} must be of type ${expected}: ${goQuote(actual)}`,
  };
}

/** A string that is not of a declared string format (date-time, uuid, ...): kube reports the value itself. */
export function formatInvalid(path: string, value: string, format: string): FieldCause {
  return {
    type: 'FieldValueTypeInvalid',
    field: path,
    message: `Invalid value: ${goQuote(value)}: ${inBody(path)} must be of type ${format}: ${goQuote(value)}`,
  };
}

export function notSupported(path: string, value: unknown, allowed: unknown[]): FieldCause {
  const values = allowed.map((a) => goQuote(typeof a === 'string' ? a : JSON.stringify(a)));
  const detail = values.length > 0 ? `: supported values: ${values.join(', ')}` : '';
  return { type: 'FieldValueNotSupported', field: path, message: `Unsupported value: ${goValue(value)}${detail}` };
}

export function tooLong(path: string, max: number): FieldCause {
  return { type: 'FieldValueTooLong', field: path, message: `Too long: may not be longer than ${max}` };
}

export function tooMany(path: string, actual: number, max: number): FieldCause {
  return { type: 'FieldValueTooMany', field: path, message: `Too many: ${actual}: must have at most ${max} items` };
}

export function duplicate(path: string, value: unknown): FieldCause {
  return { type: 'FieldValueDuplicate', field: path, message: `Duplicate value: ${goValue(value)}` };
}

export function forbidden(path: string, detail: string): FieldCause {
  return { type: 'FieldValueForbidden', field: path, message: `Forbidden: ${detail}` };
}
