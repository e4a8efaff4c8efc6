// Rules on a Machine that is being deleted: its lifecycle hooks can only be removed, never added or changed
// (a hook added during deletion would block a drain or termination already under way), and an update that
// only removes the finalizers is always let through so that a deletion can finish.
import { forbiddenValue, type FieldIssue } from '../cloud/spec-reader.js';
import type { LifecycleHook, Machine } from '../apis/machine-types.js';
import { formatHooks } from '../machine/lifecycle-hooks.js';
import { createMergePatch } from '../machine/merge-patch.js';

/** Hooks in `current` that `previous` does not have with the same name and owner. */
export function changedLifecycleHooks(
  previous: readonly LifecycleHook[] | undefined,
  current: readonly LifecycleHook[] | undefined,
): LifecycleHook[] {
  return (current ?? []).filter((h) => !(previous ?? []).some((p) => p.name === h.name && p.owner === h.owner));
}

export function validateLifecycleHooks(machine: Machine, old: Machine | undefined): FieldIssue[] {
  if (!machine.metadata.deletionTimestamp || !old) return [];
  const issues: FieldIssue[] = [];
  const preDrain = changedLifecycleHooks(old.spec?.lifecycleHooks?.preDrain, machine.spec?.lifecycleHooks?.preDrain);
  if (preDrain.length > 0) {
    issues.push(
      forbiddenValue(
        'spec.lifecycleHooks.preDrain',
        `pre-drain hooks are immutable when machine is marked for deletion: the following hooks are new or changed: ${formatHooks(preDrain)}`,
      ),
    );
  }
  const preTerminate = changedLifecycleHooks(
    old.spec?.lifecycleHooks?.preTerminate,
    machine.spec?.lifecycleHooks?.preTerminate,
  );
  if (preTerminate.length > 0) {
    issues.push(
      forbiddenValue(
        'spec.lifecycleHooks.preTerminate',
        `pre-terminate hooks are immutable when machine is marked for deletion: the following hooks are new or changed: ${formatHooks(preTerminate)}`,
      ),
    );
  }
  return issues;
}

/** Whether `machine` differs from `old` only by having no finalizers left (managedFields aside). */
export function isFinalizerOnlyRemoval(machine: Machine, old: Machine | undefined): boolean {
  if (!old) return false;
  const managedFields = (old.metadata as Record<string, unknown>).managedFields;
  const current = { ...machine, metadata: { ...machine.metadata, managedFields } };
  const patch = createMergePatch(old, current);
  return JSON.stringify(patch) === '{"metadata":{"finalizers":null}}';
}
