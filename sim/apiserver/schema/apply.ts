// The whole write path of a custom resource body through its schema, in kube-apiserver's order: prune unknown
// fields, drop nulls the schema cannot hold, apply defaults, then validate what is left.
import type { FieldCause, JSONSchemaProps } from './types.js';
import { prune, pruneNonNullableNullsWithoutDefaults } from './prune.js';
import { applyDefaults } from './defaults.js';
import { validateValue } from './validate.js';
import { hasRules, validateRules } from './cel/validation-rules.js';

/** Structural failures that keep kube-apiserver from running the CEL rules at all (its hasBlockingErr). */
const BLOCKING = new Set<FieldCause['type']>([
  'FieldValueNotSupported',
  'FieldValueRequired',
  'FieldValueTooLong',
  'FieldValueTooMany',
  'FieldValueTypeInvalid',
]);

function cloneJson(v: unknown): unknown {
  try {
    return structuredClone(v);
  } catch {
    // Values structuredClone refuses (functions, symbols) cannot have come from JSON; JSON keeps the rest.
    return v === undefined ? undefined : JSON.parse(JSON.stringify(v) ?? 'null');
  }
}

/**
 * Prunes, defaults and validates `obj` (never mutated) against a CRD version's openAPIV3Schema, then evaluates
 * its x-kubernetes-validations rules (transition rules against `old`, the stored object, on an update).
 * `causes` is empty when the object is valid; `object` is what would be stored either way.
 */
export function applySchema(
  obj: unknown,
  schema: JSONSchemaProps,
  old?: unknown,
): { object: unknown; causes: FieldCause[] } {
  const object = cloneJson(obj);
  prune(object, schema, true);
  pruneNonNullableNullsWithoutDefaults(object, schema);
  applyDefaults(object, schema);
  const causes: FieldCause[] = [];
  validateValue(object, schema, '', causes);
  if (hasRules(schema)) {
    if (causes.some((c) => BLOCKING.has(c.type))) {
      causes.push({
        type: 'FieldValueInvalid',
        // kube-apiserver reports it with no field path, which prints as <nil>.
        field: '<nil>',
        message:
          'Invalid value: "null": some validation rules were not checked because the object was invalid; correct the existing errors to complete validation',
      });
    } else {
      validateRules(object, old, schema, causes);
    }
  }
  return { object, causes };
}
