// Which machines a MachineSet removes when it scales down (spec.deletePolicy).
//
// The classes follow the reference: machines already deleting, machines marked with the delete annotation,
// failed machines and machines without a node go first. Within a class the policy decides, and differs from
// the reference on purpose:
//  - Random really is random among equals (the reference used an unstable sort, which is not random);
//  - Oldest / Newest order by creationTimestamp (the reference's priority curve had the same effect for
//    healthy machines but ranked a machine without a timestamp first under Newest); a machine without a
//    creationTimestamp has an unknown age and is never preferred over one whose age is known;
//  - machines without a node count as unhealthy under every policy, not only under Random;
//  - within a class, machines running on a capacity fallback entry (not their providerSpec's primary) go before
//    the others: when capacity comes back, a scale-down returns the set to the choice its owner asked for first.
import { DeleteMachineAnnotation, LegacyDeleteMachineAnnotation, PhaseFailed } from '../apis/constants.js';
import type { Machine, MachineSetDeletePolicy } from '../apis/machine-types.js';
import { readCommonProviderStatus } from '../cloud/provider-condition.js';
import { shuffled, type RandomSource } from './random.js';

export const DeletePriority = {
  mustDelete: 100,
  betterDelete: 50,
  preferDelete: 40,
  couldDelete: 20,
  mustNotDelete: 0,
} as const;

export const DeletePolicies: readonly MachineSetDeletePolicy[] = ['Random', 'Newest', 'Oldest'];

export class UnsupportedDeletePolicyError extends Error {
  override readonly name = 'UnsupportedDeletePolicyError';
  constructor(readonly policy: string) {
    super(`unsupported delete policy ${policy}, must be one of 'Random', 'Newest', or 'Oldest'`);
  }
}

/** "" means Random, as in the reference. Throws UnsupportedDeletePolicyError for anything else unknown. */
export function resolveDeletePolicy(policy: string | undefined): MachineSetDeletePolicy {
  if (policy === undefined || policy === '' || policy === 'Random') return 'Random';
  if (policy === 'Newest' || policy === 'Oldest') return policy;
  throw new UnsupportedDeletePolicyError(policy);
}

/** Either delete annotation with a non-empty value (an empty value does not count, as in the reference). */
export function hasDeleteAnnotation(machine: Machine): boolean {
  const a = machine.metadata.annotations;
  return !!a?.[DeleteMachineAnnotation] || !!a?.[LegacyDeleteMachineAnnotation];
}

export function hasFailed(machine: Machine): boolean {
  const s = machine.status;
  return !!s?.errorReason || !!s?.errorMessage || s?.phase === PhaseFailed;
}

/** The class of a machine: higher goes first. Same numbers as the reference's Random policy. */
export function deletePriority(machine: Machine): number {
  if (machine.metadata.deletionTimestamp) return DeletePriority.mustDelete;
  if (hasDeleteAnnotation(machine)) return DeletePriority.betterDelete;
  if (hasFailed(machine)) return DeletePriority.betterDelete;
  if (!machine.status?.nodeRef?.name) return DeletePriority.preferDelete;
  return DeletePriority.couldDelete;
}

/** Whether the Machine runs on one of its providerSpec's capacity fallbacks (its provider status says which entry). */
export function onFallbackEntry(machine: Machine): boolean {
  return (readCommonProviderStatus(machine.status?.providerStatus).status.capacityEntry?.index ?? 0) > 0;
}

function createdAt(machine: Machine): number | undefined {
  const ts = machine.metadata.creationTimestamp;
  if (!ts) return undefined;
  const ms = Date.parse(ts);
  return Number.isNaN(ms) ? undefined : ms;
}

function byAge(newestFirst: boolean) {
  return (a: Machine, b: Machine): number => {
    const ta = createdAt(a);
    const tb = createdAt(b);
    if (ta === undefined || tb === undefined) {
      if (ta !== tb) return ta === undefined ? 1 : -1;
    } else if (ta !== tb) {
      return newestFirst ? tb - ta : ta - tb;
    }
    const na = a.metadata.name ?? '';
    const nb = b.metadata.name ?? '';
    return na < nb ? -1 : na > nb ? 1 : 0;
  };
}

/**
 * The `count` machines to delete, in the order they should go. count >= machines.length returns every
 * machine; count <= 0 returns none.
 */
export function machinesToDelete(
  machines: readonly Machine[],
  count: number,
  policy: MachineSetDeletePolicy,
  random: RandomSource,
): Machine[] {
  if (count <= 0) return [];
  if (count >= machines.length) return [...machines];
  return deletionOrder(machines, policy, random).slice(0, count);
}

/** Every machine, in the order the policy would delete them: the classes first, then the policy within a class. */
export function deletionOrder(
  machines: readonly Machine[],
  policy: MachineSetDeletePolicy,
  random: RandomSource,
): Machine[] {
  // Array.prototype.sort is stable, so shuffling first leaves equal-class machines in random order.
  const ordered = policy === 'Random' ? shuffled(machines, random) : [...machines].sort(byAge(policy === 'Newest'));
  const fallback = (m: Machine): number => (onFallbackEntry(m) ? 1 : 0);
  return ordered.sort((a, b) => deletePriority(b) - deletePriority(a) || fallback(b) - fallback(a));
}
