// x-kubernetes-validations, evaluated as kube-apiserver evaluates them after the structural checks: every rule of
// every schema node that holds a value, with `self` the value and, on an update, `oldSelf` the old value at the
// same place (object properties and map values by key, items of a list-type map by their keys, of a set by
// value; items of an atomic list have no old value). A rule reading oldSelf (a transition rule) runs only where
// an old value exists; a value unchanged from the old one is not re-judged (kube's validation ratcheting).
// A failed rule is reported at the node (or the rule's fieldPath) with the node's type as the value, the rule's
// message (or messageExpression, or "failed rule: <rule>"), and the rule's reason as the cause type.
import type { FieldCause, JSONSchemaProps } from '../types.js';
import { isObject, propertySchema } from '../types.js';
import { childPath, forbidden, goQuote, indexPath, required, duplicate } from '../causes.js';
import { canonicalJson } from '../list-type.js';
import { deepEqual } from '../../json.js';
import { cachedRule, RuleCompileError, type CompiledRule } from './program.js';
import { costBound, PER_CALL_LIMIT, REQUEST_BUDGET } from './cost.js';
import { celValue, dataSize } from './values.js';

type Rule = NonNullable<JSONSchemaProps['x-kubernetes-validations']>[number];

/** The cost left for the rest of the request; evaluation stops once it is spent. */
interface Budget {
  left: number;
  stopped: boolean;
}

/** The schema type kube-apiserver shows as the value of a failed rule ("object", "string", "" for int-or-string). */
function schemaType(s: JSONSchemaProps): string {
  return s.type ?? '';
}

function invalidRule(path: string, s: JSONSchemaProps, detail: string): FieldCause {
  return { type: 'FieldValueInvalid', field: path, message: `Invalid value: ${goQuote(schemaType(s))}: ${detail}` };
}

/** The rule's message, else "failed rule: <rule>", as kube words a rule without a message. */
function ruleErrorString(rule: Rule): string {
  const message = rule.message?.trim() ?? '';
  return message !== '' ? message : `failed rule: ${rule.rule.trim()}`;
}

/** A rule's fieldPath (".a.b", ".a['b-c']") appended to the node's path. */
function withFieldPath(path: string, fieldPath: string | undefined): string {
  if (fieldPath === undefined || fieldPath === '') return path;
  let out = path;
  const re = /\.([A-Za-z0-9_$-]+)|\['((?:[^'\\]|\\.)*)'\]|\[(\d+)\]/y;
  let m: RegExpExecArray | null;
  while ((m = re.exec(fieldPath)) !== null) {
    if (m[1] !== undefined) out = childPath(out, m[1]);
    else if (m[2] !== undefined) out = childPath(out, m[2]);
    else out = indexPath(out, Number(m[3]));
    if (re.lastIndex === fieldPath.length) return out;
  }
  return childPath(path, fieldPath.replace(/^\./, ''));
}

function failure(path: string, s: JSONSchemaProps, rule: Rule, detail: string): FieldCause {
  const at = withFieldPath(path, rule.fieldPath);
  switch (rule.reason) {
    case 'FieldValueForbidden':
      return forbidden(at, detail);
    case 'FieldValueRequired':
      return required(at, detail);
    case 'FieldValueDuplicate':
      return duplicate(at, schemaType(s));
    default:
      return invalidRule(at, s, detail);
  }
}

/** The messageExpression's text, held to the same cost bound as a rule; the static message otherwise. */
function messageOf(
  program: CompiledRule | RuleCompileError,
  vars: { self: unknown; oldSelf?: unknown },
  rule: Rule,
  size: () => number,
): string {
  if (program instanceof RuleCompileError) return ruleErrorString(rule);
  if (costBound(program, program.comprehensionDepth > 0 ? size() : 0) > PER_CALL_LIMIT) return ruleErrorString(rule);
  try {
    const m = program.evaluate(vars);
    // kube falls back to the static message when the expression fails, is blank or spans lines.
    if (typeof m === 'string' && m.trim() !== '' && !m.includes('\n') && m.length <= 5000) return m;
  } catch {
    /* fall back below */
  }
  return ruleErrorString(rule);
}

function errorText(err: unknown): string {
  // cel-js adds a picture of the source after a blank line; kube's message is the first line, lower-cased.
  const text = (err instanceof Error ? err.message : String(err)).split('\n')[0] ?? '';
  return text.charAt(0).toLowerCase() + text.slice(1);
}

function evaluateRules(
  value: unknown,
  old: unknown,
  s: JSONSchemaProps,
  path: string,
  out: FieldCause[],
  budget: Budget,
): void {
  const rules = s['x-kubernetes-validations'];
  if (rules === undefined || rules.length === 0) return;
  const unchanged = old !== undefined && deepEqual(value, old);
  let size: number | undefined;
  const sizeOfData = () =>
    (size ??= dataSize(value, PER_CALL_LIMIT) + (old === undefined ? 0 : dataSize(old, PER_CALL_LIMIT)));
  let vars: { self: unknown; oldSelf?: unknown } | undefined;
  for (const rule of rules) {
    if (budget.stopped) return;
    const program = cachedRule(rule.rule);
    if (program instanceof RuleCompileError) {
      out.push(invalidRule(path, s, `compilation failed: ${program.message.split('\n')[0] ?? ''}`));
      continue;
    }
    if (program.transition && old === undefined) continue;
    if (unchanged) continue;
    const cost = costBound(program, program.comprehensionDepth > 0 ? sizeOfData() : 0);
    if (cost > PER_CALL_LIMIT) {
      out.push(
        invalidRule(
          path,
          s,
          `'operation cancelled: actual cost limit exceeded': no further validation rules will be run due to call cost exceeds limit for rule: ${ruleErrorString(rule)}`,
        ),
      );
      budget.stopped = true;
      return;
    }
    if (cost > budget.left) {
      out.push(
        invalidRule(
          path,
          s,
          'validation failed due to running out of cost budget, no further validation rules will be run',
        ),
      );
      budget.stopped = true;
      return;
    }
    budget.left -= cost;
    // CEL has no side effects, so every rule of the node shares one conversion of the values.
    vars ??= old === undefined ? { self: celValue(value, s) } : { self: celValue(value, s), oldSelf: celValue(old, s) };
    let result: unknown;
    try {
      result = program.evaluate(vars);
    } catch (err) {
      out.push(invalidRule(path, s, `${errorText(err)} evaluating rule: ${ruleErrorString(rule)}`));
      continue;
    }
    if (result === true) continue;
    if (result !== false) {
      out.push(invalidRule(path, s, `rule did not evaluate to a bool: ${ruleErrorString(rule)}`));
      continue;
    }
    const detail =
      rule.messageExpression !== undefined && rule.messageExpression !== ''
        ? messageOf(cachedRule(rule.messageExpression), vars, rule, sizeOfData)
        : ruleErrorString(rule);
    out.push(failure(path, s, rule, detail));
  }
}

/**
 * How list items correlate with old items: by key tuple in a list-type map, by value in a set, not at all in an
 * atomic list. The old items are indexed once, so correlating a long list stays linear.
 */
function correlator(s: JSONSchemaProps, old: unknown): (item: unknown) => unknown {
  const listType = s['x-kubernetes-list-type'];
  const keys = s['x-kubernetes-list-map-keys'] ?? [];
  const identity =
    listType === 'set'
      ? canonicalJson
      : listType === 'map' && keys.length > 0
        ? (item: unknown) => (isObject(item) ? canonicalJson(keys.map((k) => item[k] ?? null)) : undefined)
        : undefined;
  if (identity === undefined || !Array.isArray(old)) return () => undefined;
  const index = new Map<string, unknown>();
  for (const o of old) {
    const id = identity(o);
    if (id !== undefined && !index.has(id)) index.set(id, o);
  }
  return (item) => {
    const id = identity(item);
    return id === undefined ? undefined : index.get(id);
  };
}

function walk(value: unknown, old: unknown, s: JSONSchemaProps, path: string, out: FieldCause[], budget: Budget): void {
  if (value === null || value === undefined || budget.stopped || !hasRules(s)) return;
  evaluateRules(value, old, s, path, out, budget);
  if (Array.isArray(value)) {
    const items = s.items;
    if (items === undefined || !hasRules(items)) return;
    const oldItem = correlator(s, old);
    value.forEach((item, i) => walk(item, oldItem(item), items, indexPath(path, i), out, budget));
  } else if (isObject(value)) {
    const extra = typeof s.additionalProperties === 'object' ? s.additionalProperties : undefined;
    const oldObject = isObject(old) ? old : undefined;
    for (const [key, v] of Object.entries(value)) {
      const prop = propertySchema(s, key) ?? extra;
      if (prop === undefined) continue;
      const o = oldObject !== undefined && Object.hasOwn(oldObject, key) ? oldObject[key] : undefined;
      walk(v, o, prop, childPath(path, key), out, budget);
    }
  }
  for (const sub of s.allOf ?? []) evaluateRules(value, old, sub, path, out, budget);
}

/** Appends to `out` every x-kubernetes-validations rule `value` breaks (`old`: the stored object on an update). */
export function validateRules(value: unknown, old: unknown, schema: JSONSchemaProps, out: FieldCause[]): void {
  walk(value, old, schema, '', out, { left: REQUEST_BUDGET, stopped: false });
}

const withRules = new WeakMap<JSONSchemaProps, boolean>();

/** Whether the schema has any rule, so a CRD without one pays nothing (remembered per schema object). */
export function hasRules(s: JSONSchemaProps | undefined): boolean {
  if (s === undefined) return false;
  let has = withRules.get(s);
  if (has === undefined) {
    has =
      (s['x-kubernetes-validations']?.length ?? 0) > 0 ||
      Object.values(s.properties ?? {}).some(hasRules) ||
      (typeof s.additionalProperties === 'object' && hasRules(s.additionalProperties)) ||
      hasRules(s.items) ||
      (s.allOf ?? []).some(hasRules);
    withRules.set(s, has);
  }
  return has;
}
