export type { JSONSchemaProps, FieldCause, FieldCauseType } from './types.js';
export { applySchema } from './apply.js';
export { prune, pruneNonNullableNullsWithoutDefaults, pruneReporting } from './prune.js';
export { applyDefaults } from './defaults.js';
export { validateValue } from './validate.js';
