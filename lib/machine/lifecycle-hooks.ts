// Lifecycle hooks block drain (preDrain) and instance termination (preTerminate) until their owners
// remove them; the Drainable/Terminable conditions tell users which hooks are in the way.
import type { LifecycleHook, Machine } from '../apis/machine-types.js';

export const hasPreDrainHooks = (m: Machine): boolean => (m.spec?.lifecycleHooks?.preDrain?.length ?? 0) > 0;
export const hasPreTerminateHooks = (m: Machine): boolean => (m.spec?.lifecycleHooks?.preTerminate?.length ?? 0) > 0;

/** The hook list as the reference prints it (Go's %+v of a slice of structs). */
export function formatHooks(hooks: LifecycleHook[] | undefined): string {
  return `[${(hooks ?? []).map((h) => `{Name:${h.name} Owner:${h.owner}}`).join(' ')}]`;
}
