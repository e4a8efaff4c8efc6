// Field ownership (metadata.managedFields) and server-side apply for the local control plane.
import { apiVersionFor, hasStatusSubresource, versionInfo, type ResourceType } from '../resource-type.js';
import type { FieldContext } from './field-manager.js';
import { builtinMergeSchema } from './builtin-schema.js';
import { rootSchema } from './shape.js';

export { applyConfiguration, recordUpdate, type FieldContext, type FieldManagerRequest } from './field-manager.js';
export { managerFromRequest } from './manager-name.js';

/** What the field manager needs to know about a kind at a version, now. */
export function fieldContextFor(type: ResourceType, version: string, now: string): FieldContext {
  return {
    schema: rootSchema(type.custom ? versionInfo(type, version)?.schema : builtinMergeSchema(type.kind)),
    apiVersion: apiVersionFor(type.group, version),
    now,
    statusSubresource: hasStatusSubresource(type),
  };
}
