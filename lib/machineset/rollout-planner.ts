// What a MachineSet does in one pass to reach spec.replicas Machines made from its current template: how many
// Machines to create and which to delete. Pure: the caller says which Machines are up to date, available, failed
// or being deleted, and in what order it would delete them (its delete policy); nothing here reads a clock or an API.
//
// The rules, in the order they apply:
//  - Without a rollout to do (strategy OnDelete, or every Machine up to date) it is the reference's replica sync:
//    create what is missing, delete the surplus in the delete-policy order.
//  - Paused: still the replica sync, except that a scale-down takes outdated Machines first (after those marked
//    to go first); nothing is replaced.
//  - RollingUpdate, while any outdated Machine exists (being deleted included):
//    1. the set holds at most replicas + maxSurge Machines, counting those being deleted, since their instances are
//       still there; a scale-down below that deletes the Machines marked to go first (the autoscaler's choice),
//       then outdated ones, whatever their availability, as any scale-down does;
//    2. up-to-date Machines beyond spec.replicas go (the set was scaled down past them);
//    3. an outdated Machine that is not available goes at once (its deletion costs no availability); an
//       available one goes only while the available Machines stay at least replicas - maxUnavailable without it;
//    4. new Machines are created from the current template up to spec.replicas up-to-date ones, within the cap.
//    A failed up-to-date Machine stalls the rollout: the template cannot make a working Machine, so no outdated
//    Machine is deleted for it and no surge Machine is created; the count of Machines is still kept.
import type { RolloutBounds, RolloutStrategy } from './rollout-settings.js';

export interface RolloutMachine {
  name: string;
  /** Made from the current template (and the current restart value). */
  upToDate: boolean;
  /** Running with a Ready Node for minReadySeconds. */
  available: boolean;
  /** Phase Failed or an errorReason: it will not come up by itself. */
  failed: boolean;
  /** deletionTimestamp set: draining or terminating. */
  deleting: boolean;
  /**
   * Marked to go first on a scale-down (the delete-machine annotation, as the autoscaler sets it, or failed): a
   * scale-down takes these before outdated Machines, so the autoscaler removes the Node it chose.
   */
  deleteFirst?: boolean;
}

export interface RolloutPlanInput {
  replicas: number;
  strategy: RolloutStrategy;
  paused: boolean;
  bounds: RolloutBounds;
  /** Every Machine the set controls, those not being deleted in the order the delete policy would take them. */
  machines: readonly RolloutMachine[];
}

export type RolloutState = 'UpToDate' | 'RollingUpdate' | 'RolloutStalled' | 'RolloutPaused' | 'OnDelete';

export interface RolloutCounts {
  /** Up-to-date Machines not being deleted. */
  upToDate: number;
  /** Outdated Machines, those being deleted included. */
  outdated: number;
  /** Of the outdated, those being deleted. */
  outdatedDeleting: number;
  /** Available Machines not being deleted. */
  available: number;
  /** Every Machine, those being deleted included. */
  total: number;
}

export interface RolloutPlan {
  state: RolloutState;
  create: number;
  /** Names to delete, in order; `replace` says which of them are outdated Machines replaced by the rollout. */
  delete: string[];
  replace: string[];
  counts: RolloutCounts;
  /** RollingUpdate only: the floor of available Machines and the ceiling of all Machines. */
  minAvailable?: number;
  maxTotal?: number;
}

function countsOf(machines: readonly RolloutMachine[]): RolloutCounts {
  let upToDate = 0;
  let outdated = 0;
  let outdatedDeleting = 0;
  let available = 0;
  for (const m of machines) {
    if (!m.upToDate) outdated++;
    if (m.deleting) {
      if (!m.upToDate) outdatedDeleting++;
      continue;
    }
    if (m.upToDate) upToDate++;
    if (m.available) available++;
  }
  return { upToDate, outdated, outdatedDeleting, available, total: machines.length };
}

function stateOf(input: RolloutPlanInput, counts: RolloutCounts, stalled: boolean): RolloutState {
  if (counts.outdated === 0) return 'UpToDate';
  if (input.strategy === 'OnDelete') return 'OnDelete';
  if (input.paused) return 'RolloutPaused';
  return stalled ? 'RolloutStalled' : 'RollingUpdate';
}

/** For a scale-down: those marked to go first, then outdated ones, then the rest, each group in the given order. */
const scaleDownOrder = (machines: readonly RolloutMachine[]) => [
  ...machines.filter((m) => m.deleteFirst),
  ...machines.filter((m) => !m.deleteFirst && !m.upToDate),
  ...machines.filter((m) => !m.deleteFirst && m.upToDate),
];

function replicaSync(
  input: RolloutPlanInput,
  active: readonly RolloutMachine[],
  state: RolloutState,
  counts: RolloutCounts,
): RolloutPlan {
  const surplus = active.length - input.replicas;
  const order = input.paused && input.strategy === 'RollingUpdate' ? scaleDownOrder(active) : active;
  const victims = surplus > 0 ? order.slice(0, surplus).map((m) => m.name) : [];
  return { state, create: Math.max(0, -surplus), delete: victims, replace: [], counts };
}

export function planRollout(input: RolloutPlanInput): RolloutPlan {
  const active = input.machines.filter((m) => !m.deleting);
  const counts = countsOf(input.machines);
  const stalled = active.some((m) => m.upToDate && m.failed);
  const state = stateOf(input, counts, stalled);
  if (state === 'UpToDate' || state === 'OnDelete' || state === 'RolloutPaused')
    return replicaSync(input, active, state, counts);

  const { replicas } = input;
  const maxTotal = replicas + input.bounds.maxSurge;
  const minAvailable = Math.max(0, replicas - input.bounds.maxUnavailable);
  const gone = new Set<string>();
  const replace: string[] = [];
  let available = counts.available;
  const remove = (m: RolloutMachine) => {
    gone.add(m.name);
    if (m.available) available--;
  };

  // 1. A scale-down below what the rollout may hold.
  const overCap = active.length - maxTotal;
  for (const m of scaleDownOrder(active).slice(0, Math.max(0, overCap))) remove(m);

  // 2. Up-to-date Machines beyond spec.replicas.
  const current = active.filter((m) => m.upToDate && !gone.has(m.name));
  for (const m of current.slice(0, Math.max(0, current.length - replicas))) remove(m);

  // 3. Replace outdated Machines, the unavailable ones first, while availability allows.
  if (!stalled) {
    const outdated = active.filter((m) => !m.upToDate && !gone.has(m.name));
    for (const m of [...outdated.filter((o) => !o.available), ...outdated.filter((o) => o.available)]) {
      if (m.available && available - 1 < minAvailable) break;
      remove(m);
      replace.push(m.name);
    }
  }

  // 4. Create from the current template, within the cap (deletions started now still hold their instances).
  const upToDateLeft = active.filter((m) => m.upToDate && !gone.has(m.name)).length;
  const activeLeft = active.length - gone.size;
  const room = maxTotal - counts.total;
  const wanted = stalled ? replicas - activeLeft : replicas - upToDateLeft;
  const create = Math.max(0, Math.min(wanted, room));

  const order = active.filter((m) => gone.has(m.name)).map((m) => m.name);
  return { state, create, delete: order, replace, counts, minAvailable, maxTotal };
}
