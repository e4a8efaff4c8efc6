// Validation of a (pruned, defaulted) value against a CRD schema, reporting every problem as kube-apiserver
// would. As in kube-openapi, the checks that run for a value depend on what the value is (a string gets the
// string checks even under x-kubernetes-int-or-string), and a value of the wrong type gets only the type error.
import { RE2JS } from 're2js';
import type { FieldCause, JSONSchemaProps } from './types.js';
import { isObject, propertySchema } from './types.js';
import { childPath, indexPath, invalid, notSupported, required, tooLong, tooMany, typeInvalid } from './causes.js';
import { checkIntegerFormat, checkStringFormat } from './formats.js';
import { canonicalJson, checkListType } from './list-type.js';

const patternCache = new Map<string, RE2JS | null>();

/**
 * A CRD's `pattern` comes from outside, so it is compiled by RE2 (re2js): the syntax kube-apiserver's Go regexp
 * accepts, and matching in time linear in the value, so no pattern can stall the server by backtracking.
 */
function compilePattern(pattern: string): RE2JS | null {
  const cached = patternCache.get(pattern);
  if (cached !== undefined) return cached;
  let re: RE2JS | null;
  try {
    re = RE2JS.compile(pattern);
  } catch {
    // kube refuses such a CRD at creation; here an uncompilable pattern simply does not constrain.
    re = null;
  }
  patternCache.set(pattern, re);
  return re;
}

function typeMatches(value: unknown, type: string): boolean {
  switch (type) {
    case 'object':
      return isObject(value);
    case 'array':
      return Array.isArray(value);
    case 'string':
      return typeof value === 'string';
    case 'boolean':
      return typeof value === 'boolean';
    case 'integer':
      return typeof value === 'number' && Number.isInteger(value);
    case 'number':
      return typeof value === 'number' && Number.isFinite(value);
    default:
      return true;
  }
}

function checkType(path: string, value: unknown, s: JSONSchemaProps): FieldCause | undefined {
  if (s['x-kubernetes-int-or-string'] === true) {
    const ok = typeof value === 'string' || (typeof value === 'number' && Number.isInteger(value));
    // kube turns int-or-string into the type list [integer, string] and prints it joined by a comma.
    return ok ? undefined : typeInvalid(path, value, 'integer,string');
  }
  if (s.type === undefined || s.type === '') return undefined;
  return typeMatches(value, s.type) ? undefined : typeInvalid(path, value, s.type);
}

function checkString(path: string, value: string, s: JSONSchemaProps, out: FieldCause[]): void {
  const length = [...value].length;
  if (s.maxLength !== undefined && length > s.maxLength) out.push(tooLong(path, s.maxLength));
  if (s.minLength !== undefined && length < s.minLength) {
    out.push(invalid(path, value, `should be at least ${s.minLength} chars long`));
  }
  if (s.pattern !== undefined) {
    const re = compilePattern(s.pattern);
    if (re !== null && !re.test(value)) out.push(invalid(path, value, `should match '${s.pattern}'`));
  }
  const formatCause = checkStringFormat(path, value, s.format);
  if (formatCause !== undefined) out.push(formatCause);
}

function checkNumber(path: string, value: number, s: JSONSchemaProps, out: FieldCause[]): void {
  if (s.maximum !== undefined) {
    if (s.exclusiveMaximum === true ? value >= s.maximum : value > s.maximum) {
      out.push(
        invalid(
          path,
          value,
          s.exclusiveMaximum === true
            ? `should be less than ${s.maximum}`
            : `should be less than or equal to ${s.maximum}`,
        ),
      );
    }
  }
  if (s.minimum !== undefined) {
    if (s.exclusiveMinimum === true ? value <= s.minimum : value < s.minimum) {
      out.push(
        invalid(
          path,
          value,
          s.exclusiveMinimum === true
            ? `should be greater than ${s.minimum}`
            : `should be greater than or equal to ${s.minimum}`,
        ),
      );
    }
  }
  if (s.multipleOf !== undefined && s.multipleOf > 0) {
    const q = value / s.multipleOf;
    if (Math.abs(q - Math.round(q)) > 1e-9) out.push(invalid(path, value, `should be a multiple of ${s.multipleOf}`));
  }
  if (Number.isInteger(value)) {
    const formatCause = checkIntegerFormat(path, value, s.format);
    if (formatCause !== undefined) out.push(formatCause);
  }
}

function checkArray(path: string, value: unknown[], s: JSONSchemaProps, out: FieldCause[]): void {
  if (s.maxItems !== undefined && value.length > s.maxItems) out.push(tooMany(path, value.length, s.maxItems));
  if (s.minItems !== undefined && value.length < s.minItems) {
    out.push(invalid(path, value.length, `should have at least ${s.minItems} items`));
  }
  if (s.uniqueItems === true && new Set(value.map(canonicalJson)).size !== value.length) {
    out.push(invalid(path, '', "shouldn't contain duplicates"));
  }
  if (s.items !== undefined) {
    const items = s.items;
    value.forEach((item, i) => validateValue(item, items, indexPath(path, i), out));
  }
  out.push(...checkListType(path, value, s));
}

function checkObject(path: string, value: Record<string, unknown>, s: JSONSchemaProps, out: FieldCause[]): void {
  if (s['x-kubernetes-embedded-resource'] === true) {
    for (const key of ['apiVersion', 'kind']) {
      if (!Object.hasOwn(value, key)) out.push(required(childPath(path, key), 'must not be empty'));
    }
  }
  for (const key of s.required ?? []) {
    if (!Object.hasOwn(value, key)) out.push(required(childPath(path, key)));
  }
  const count = Object.keys(value).length;
  if (s.maxProperties !== undefined && count > s.maxProperties) out.push(tooMany(path, count, s.maxProperties));
  if (s.minProperties !== undefined && count < s.minProperties) {
    out.push(invalid(path, count, `should have at least ${s.minProperties} properties`));
  }
  for (const [key, v] of Object.entries(value)) {
    const prop = propertySchema(s, key);
    if (prop !== undefined) {
      validateValue(v, prop, childPath(path, key), out);
    } else if (s.additionalProperties === false) {
      out.push(invalid(childPath(path, key), v, 'is a forbidden property'));
    } else if (typeof s.additionalProperties === 'object') {
      validateValue(v, s.additionalProperties, childPath(path, key), out);
    }
  }
}

function isValid(value: unknown, s: JSONSchemaProps, path: string): boolean {
  const out: FieldCause[] = [];
  validateValue(value, s, path, out);
  return out.length === 0;
}

function checkComposition(path: string, value: unknown, s: JSONSchemaProps, out: FieldCause[]): void {
  for (const sub of s.allOf ?? []) validateValue(value, sub, path, out);
  if (s.anyOf !== undefined && s.anyOf.length > 0 && !s.anyOf.some((sub) => isValid(value, sub, path))) {
    out.push(invalid(path, value, 'must validate at least one schema (anyOf)'));
  }
  if (s.oneOf !== undefined && s.oneOf.length > 0 && s.oneOf.filter((sub) => isValid(value, sub, path)).length !== 1) {
    out.push(invalid(path, value, 'must validate one and only one schema (oneOf)'));
  }
  if (s.not !== undefined && isValid(value, s.not, path)) {
    out.push(invalid(path, value, 'must not validate the schema (not)'));
  }
}

/** Appends to `out` every way `value` at `path` violates `s`. */
export function validateValue(value: unknown, s: JSONSchemaProps, path: string, out: FieldCause[]): void {
  if (value === null || value === undefined) {
    if (s.nullable === true) return;
    const typed = s['x-kubernetes-int-or-string'] === true || (s.type !== undefined && s.type !== '');
    if (typed) out.push(checkType(path, null, s) ?? typeInvalid(path, null, String(s.type)));
    return;
  }
  const typeCause = checkType(path, value, s);
  if (typeCause !== undefined) {
    out.push(typeCause);
    return;
  }
  if (s.enum !== undefined && s.enum.length > 0) {
    const key = canonicalJson(value);
    if (!s.enum.some((e) => canonicalJson(e) === key)) out.push(notSupported(path, value, s.enum));
  }
  if (typeof value === 'string') checkString(path, value, s, out);
  else if (typeof value === 'number') checkNumber(path, value, s, out);
  else if (Array.isArray(value)) checkArray(path, value, s, out);
  else if (isObject(value)) checkObject(path, value, s, out);
  checkComposition(path, value, s, out);
}
