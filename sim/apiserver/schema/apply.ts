// The whole write path of a custom resource body through its schema, in kube-apiserver's order: prune unknown
// fields, drop nulls the schema cannot hold, apply defaults, then validate what is left.
import type { FieldCause, JSONSchemaProps } from './types.js';
import { prune, pruneNonNullableNullsWithoutDefaults } from './prune.js';
import { applyDefaults } from './defaults.js';
import { validateValue } from './validate.js';

function cloneJson(v: unknown): unknown {
  try {
    return structuredClone(v);
  } catch {
    // Values structuredClone refuses (functions, symbols) cannot have come from JSON; JSON keeps the rest.
    return v === undefined ? undefined : JSON.parse(JSON.stringify(v) ?? 'null');
  }
}

/**
 * Prunes, defaults and validates `obj` (never mutated) against a CRD version's openAPIV3Schema.
 * `causes` is empty when the object is valid; `object` is what would be stored either way.
 */
export function applySchema(obj: unknown, schema: JSONSchemaProps): { object: unknown; causes: FieldCause[] } {
  const object = cloneJson(obj);
  prune(object, schema, true);
  pruneNonNullableNullsWithoutDefaults(object, schema);
  applyDefaults(object, schema);
  const causes: FieldCause[] = [];
  validateValue(object, schema, '', causes);
  return { object, causes };
}
