// A JSON value as a CEL rule sees it: integers of the schema (type integer, or an int-or-string holding a
// number) become CEL ints (BigInt), other numbers CEL doubles; objects become CEL maps and arrays CEL lists.
import type { JSONSchemaProps } from '../types.js';
import { isObject, propertySchema } from '../types.js';

export function celValue(value: unknown, s: JSONSchemaProps | undefined): unknown {
  if (typeof value === 'number') {
    const integer = s?.type === 'integer' || s?.['x-kubernetes-int-or-string'] === true;
    return integer && Number.isSafeInteger(value) ? BigInt(value) : value;
  }
  if (Array.isArray(value)) return value.map((v) => celValue(v, s?.items));
  if (isObject(value)) {
    const extra = typeof s?.additionalProperties === 'object' ? s.additionalProperties : undefined;
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = celValue(v, propertySchema(s, k) ?? extra);
    return out;
  }
  return value;
}

/**
 * How much data a rule can walk: one per value, plus the characters of every string (string functions are
 * linear in them). Stops counting at `cap`, so sizing hostile input costs no more than the cap.
 */
export function dataSize(value: unknown, cap: number): number {
  let size = 0;
  const stack: unknown[] = [value];
  while (stack.length > 0 && size < cap) {
    const v = stack.pop();
    size += 1;
    if (typeof v === 'string') size += v.length;
    else if (Array.isArray(v)) stack.push(...v);
    else if (isObject(v)) {
      for (const [k, x] of Object.entries(v)) {
        size += k.length;
        stack.push(x);
      }
    }
  }
  return Math.min(size, cap);
}
