// The JSON Patch (RFC 6902) that turns one JSON value into another, as a mutating webhook must answer: only
// what changed is named, so a defaulted field is one "add" and nothing the user wrote is rewritten. Arrays
// of equal length are compared element by element; otherwise the array is replaced whole, which is always
// correct and avoids guessing at moves.
import type { JsonPatchOperation } from '../client/kube-client.js';

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** RFC 6901: "~" is written "~0" and "/" is written "~1". */
export const escapePointerToken = (token: string): string => token.replace(/~/g, '~0').replace(/\//g, '~1');

function sameScalar(a: unknown, b: unknown): boolean {
  return a === b || (typeof a === 'number' && typeof b === 'number' && Number.isNaN(a) && Number.isNaN(b));
}

function diffInto(before: unknown, after: unknown, path: string, ops: JsonPatchOperation[]): void {
  if (isObject(before) && isObject(after)) {
    for (const key of Object.keys(before)) {
      if (!Object.hasOwn(after, key)) ops.push({ op: 'remove', path: `${path}/${escapePointerToken(key)}` });
    }
    for (const key of Object.keys(after)) {
      const p = `${path}/${escapePointerToken(key)}`;
      if (!Object.hasOwn(before, key)) ops.push({ op: 'add', path: p, value: after[key] });
      else diffInto(before[key], after[key], p, ops);
    }
    return;
  }
  if (Array.isArray(before) && Array.isArray(after) && before.length === after.length) {
    for (let i = 0; i < after.length; i++) diffInto(before[i], after[i], `${path}/${i}`, ops);
    return;
  }
  if (
    isObject(before) ||
    isObject(after) ||
    Array.isArray(before) ||
    Array.isArray(after) ||
    !sameScalar(before, after)
  ) {
    if (!deepEqualJson(before, after)) ops.push({ op: 'replace', path, value: after });
  }
}

function deepEqualJson(a: unknown, b: unknown): boolean {
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((v, i) => deepEqualJson(v, b[i]));
  if (isObject(a) && isObject(b)) {
    const ka = Object.keys(a);
    return ka.length === Object.keys(b).length && ka.every((k) => Object.hasOwn(b, k) && deepEqualJson(a[k], b[k]));
  }
  return sameScalar(a, b);
}

/** The operations turning `before` into `after`; both are JSON values (objects at the root for admission). */
export function diffToJsonPatch(before: unknown, after: unknown): JsonPatchOperation[] {
  const ops: JsonPatchOperation[] = [];
  diffInto(before, after, '', ops);
  return ops;
}
