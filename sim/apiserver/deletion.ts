// What a DELETE does to an object, as kube-apiserver decides it: the propagation policy becomes a finalizer
// (foregroundDeletion or orphan, which the garbage collector acts on), an object that finalizers still hold
// is only marked (deletionTimestamp, generation + 1, a namespace's phase Terminating), and an object nothing
// holds goes. ObjectApi checks the preconditions against the stored object and does the storing.
import type { KubeObject } from '../../lib/apis/meta.js';
import { cloneJson } from './json.js';
import type { Obj, WriteOpts } from './write-options.js';
import type { ResourceType } from './resource-type.js';

export const ForegroundFinalizer = 'foregroundDeletion';
export const OrphanFinalizer = 'orphan';
export type PropagationPolicy = 'Background' | 'Foreground' | 'Orphan';

export interface DeleteOpts extends WriteOpts {
  propagationPolicy?: PropagationPolicy;
  preconditions?: { uid?: string; resourceVersion?: string };
}

export interface DeleteResult {
  object: Obj;
  /** False when the object was only marked (finalizers pending). */
  removed: boolean;
}

/** A delete's outcome and what it does to the stored copy: `keep` writes nothing (dryRun, or nothing changed). */
export interface DeletePlan extends DeleteResult {
  store: 'keep' | 'put' | 'remove';
}

/** Finalizers still holding an object being deleted; a namespace's spec.finalizers count too. */
export function hasPendingFinalizers(type: ResourceType, obj: KubeObject & Record<string, unknown>): boolean {
  if ((obj.metadata.finalizers ?? []).length > 0) return true;
  const isNamespace = type.group === '' && type.plural === 'namespaces';
  return isNamespace && ((obj.spec as { finalizers?: string[] } | undefined)?.finalizers ?? []).length > 0;
}

/** The delete of `existing` (already past its preconditions) at `now`, an RFC 3339 time. */
export function planDelete(type: ResourceType, existing: Obj, opts: DeleteOpts, now: string): DeletePlan {
  const finalizers = [...(existing.metadata.finalizers ?? [])];
  const policy = opts.propagationPolicy;
  if (policy === 'Foreground' && !finalizers.includes(ForegroundFinalizer)) finalizers.push(ForegroundFinalizer);
  if (policy === 'Orphan' && !finalizers.includes(OrphanFinalizer)) finalizers.push(OrphanFinalizer);
  const isNamespace = type.group === '' && type.plural === 'namespaces';
  if (existing.metadata.deletionTimestamp) {
    // Already terminating: only a change of propagation policy is recorded.
    if (finalizers.length === (existing.metadata.finalizers ?? []).length || opts.dryRun)
      return { object: existing, removed: false, store: 'keep' };
    const next = cloneJson(existing);
    next.metadata.finalizers = finalizers;
    return { object: next, removed: false, store: 'put' };
  }
  const next = cloneJson(existing);
  next.metadata.finalizers = finalizers;
  if (hasPendingFinalizers(type, next)) {
    next.metadata.deletionTimestamp = now;
    next.metadata.deletionGracePeriodSeconds = 0;
    if (next.metadata.generation !== undefined) next.metadata.generation += 1;
    if (isNamespace) next.status = { ...(next.status as object | undefined), phase: 'Terminating' };
    return { object: next, removed: false, store: opts.dryRun ? 'keep' : 'put' };
  }
  if (finalizers.length === 0) delete next.metadata.finalizers;
  return { object: next, removed: true, store: opts.dryRun ? 'keep' : 'remove' };
}
