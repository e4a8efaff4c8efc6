// Small pure helpers over object metadata that every controller needs. The finalizer helpers MUTATE the object
// they are given (pass the draft copy you intend to write) and say whether anything changed, so a caller can
// skip a no-op write.
import type { KubeObject, OwnerReference } from './meta.js';

/**
 * The one key format of the work queue, the informer cache and every map of objects: "namespace/name", or just
 * "name" for cluster-scoped objects. A request, an ObjectKey and an object's metadata all have this shape.
 */
export function namespacedKey(ref: { namespace?: string; name?: string }): string {
  const { namespace, name = '' } = ref;
  return namespace ? `${namespace}/${name}` : name;
}

/** An object's namespacedKey. */
export function objectKey(obj: Pick<KubeObject, 'metadata'>): string {
  return namespacedKey(obj.metadata);
}

/** Splits an objectKey back into namespace and name (namespace '' for cluster-scoped keys). */
export function splitObjectKey(key: string): { namespace: string; name: string } {
  const i = key.indexOf('/');
  return i < 0 ? { namespace: '', name: key } : { namespace: key.slice(0, i), name: key.slice(i + 1) };
}

/** The owner reference marked controller: true, if any (metav1.GetControllerOf). */
export function getControllerOf(obj: Pick<KubeObject, 'metadata'>): OwnerReference | undefined {
  return obj.metadata.ownerReferences?.find((r) => r.controller === true);
}

/** Whether deletion has been requested (deletionTimestamp set). */
export function isDeleting(obj: Pick<KubeObject, 'metadata'>): boolean {
  return !!obj.metadata.deletionTimestamp;
}

export function hasFinalizer(obj: Pick<KubeObject, 'metadata'>, finalizer: string): boolean {
  return obj.metadata.finalizers?.includes(finalizer) ?? false;
}

/** Appends the finalizer to `obj` (mutated) unless present. Returns true when it was added. */
export function addFinalizer(obj: Pick<KubeObject, 'metadata'>, finalizer: string): boolean {
  if (hasFinalizer(obj, finalizer)) return false;
  obj.metadata.finalizers = [...(obj.metadata.finalizers ?? []), finalizer];
  return true;
}

/**
 * Removes every occurrence of the finalizer from `obj` (mutated). Returns true when one was removed.
 * An emptied list becomes absent, as the API server stores it.
 */
export function removeFinalizer(obj: Pick<KubeObject, 'metadata'>, finalizer: string): boolean {
  const list = obj.metadata.finalizers;
  if (!list?.includes(finalizer)) return false;
  const kept = list.filter((f) => f !== finalizer);
  if (kept.length > 0) obj.metadata.finalizers = kept;
  else delete obj.metadata.finalizers;
  return true;
}

/** A deep copy of plain JSON-like data (structuredClone). */
export function deepCopy<T>(obj: T): T {
  return structuredClone(obj);
}
