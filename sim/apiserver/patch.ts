// The three PATCH content types kube-apiserver accepts. All functions are pure: the target and the patch are
// never modified, and the result shares no structure with either.
import { cloneJson, isJsonObject, setKey } from './json-value.js';
import type { JsonRecord } from './json-value.js';

export { PatchError } from './patch-error.js';
export type { PatchErrorCode } from './patch-error.js';
export { applyJsonPatch } from './json-patch.js';
export { applyStrategicMergePatch } from './strategic-merge-patch.js';

/** JSON Merge Patch (RFC 7386, application/merge-patch+json): objects merge, null deletes, anything else replaces. */
export function applyMergePatch(target: unknown, patch: unknown): unknown {
  if (!isJsonObject(patch)) return cloneJson(patch);
  const result: JsonRecord = isJsonObject(target) ? cloneJson(target) : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete result[key];
    else setKey(result, key, applyMergePatch(Object.hasOwn(result, key) ? result[key] : undefined, value));
  }
  return result;
}
