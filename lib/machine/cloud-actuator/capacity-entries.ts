// Capacity fallback inside one Machine, the same on every cloud: a Machine whose providerSpec has `fallbacks`
// launches on the first of its entries (the primary, then each fallback) the cloud has capacity for.
// - One launch at a time, and the next entry only after a definite refusal: a refusal for capacity or quota
//   made nothing. The entry is on record in the provider status before its launch is sent, and every later
//   create replays the recorded entry first (idempotent at every cloud: a launch token, or the instance's name),
//   moving on only when the cloud refuses it. So a launch whose outcome is unknown (a lost reply, a timeout, a
//   5xx), or one the cloud accepted and fails later (a GCE zone operation), never leaves a Machine with two.
// - Entries the process remembers as refused (CapacityMemory) are tried last rather than skipped: a Machine
//   never fails on a remembered refusal, only on what the cloud said to its own launches; and a scale-up during
//   a stock-out goes straight to the entry that has capacity.
// - A choice the process has no answer for yet is probed by one Machine's launch while the others wait for its
//   answer (CapacityMemory.probe): the workers of a scale-up start together, and would otherwise each send a
//   choice the cloud is about to refuse. The wait is before the entry goes on record, and a Machine's recorded
//   entry is replayed without waiting, so a pending launch is never left for another entry.
// - The chosen entry is recorded in the provider status (capacityEntry), with an event naming what was refused;
//   when every entry is refused, the error lists each refusal and the capacity window decides (the controller's
//   CapacityRefusals), as for a Machine without fallbacks.
import { capacityChoiceName, type CapacityChoice, type CapacityMemory } from '../../cloud/capacity-memory.js';
import type { CapacityEntryRecord } from '../../cloud/provider-condition.js';
import type { ActuatorContext } from '../actuator.js';
import { InsufficientCapacityError } from '../../apis/errors.js';
import type { CloudMachineScope } from './settings.js';

/** One entry of a Machine: the scope its launch uses (the merged spec) and what capacity it asks for. */
export interface CapacityEntry<S> {
  scope: S;
  choice: CapacityChoice;
  /** What capacity memory is kept per besides the choice (the region). */
  region: string;
}

/** The event reason of a Machine launched on another entry than its first choice. */
export const CapacityFallbackReason = 'CapacityFallback';

/** One entry's refusal: which entry, what it asked for, and the cloud's typed answer. */
export interface CapacityRefusal {
  index: number;
  choice: CapacityChoice;
  error: InsufficientCapacityError;
}

const entryName = (index: number): string => (index === 0 ? 'primary' : `fallbacks[${index - 1}]`);

/** Every entry of a Machine was refused: the message lists each refusal, in the entries' order. */
export class CapacityEntriesRefusedError extends InsufficientCapacityError {
  override name = 'CapacityEntriesRefusedError';
  constructor(readonly refusals: readonly CapacityRefusal[]) {
    const first = refusals[0]!;
    super(first.error.cloudCode, first.error.zone, first.error.instanceType, first.error.detail, {
      cause: first.error,
    });
    const listed = [...refusals]
      .sort((a, b) => a.index - b.index)
      .map((r) => `${entryName(r.index)} ${capacityChoiceName(r.choice)}: ${r.error.message}`);
    this.message = `no capacity for any of the ${refusals.length} entries: ${listed.join('; ')}`;
  }
}

/** The entry the provider status records, if it is one of `count` entries. */
export function recordedEntry(
  status: { capacityEntry?: CapacityEntryRecord },
  count: number,
): CapacityEntryRecord | undefined {
  const r = status.capacityEntry;
  return r && Number.isInteger(r.index) && r.index >= 0 && r.index < count ? r : undefined;
}

/** The order a create tries the entries in: the recorded one first, then list order with remembered refusals last. */
export function launchOrder<S>(
  entries: readonly CapacityEntry<S>[],
  recorded: number | undefined,
  remembered: (e: CapacityEntry<S>) => boolean,
): number[] {
  const rest = entries.map((_, i) => i).filter((i) => i !== recorded);
  return [...(recorded === undefined ? [] : [recorded]), ...freshFirst(rest, entries, remembered)];
}

/** `ids` with the entries not remembered as refused first, then the remembered ones, each in their order. */
function freshFirst<S>(
  ids: readonly number[],
  entries: readonly CapacityEntry<S>[],
  remembered: (e: CapacityEntry<S>) => boolean,
): number[] {
  return [...ids.filter((i) => !remembered(entries[i]!)), ...ids.filter((i) => remembered(entries[i]!))];
}

/**
 * The entry at `at` of `order` turned out refused while this Machine waited for another's probe of it: when an
 * entry after it is not remembered as refused, the rest of the order is sorted again as launchOrder sorts it and
 * true is returned.
 */
function laterIfRefused<S>(
  order: number[],
  at: number,
  entries: readonly CapacityEntry<S>[],
  remembered: (e: CapacityEntry<S>) => boolean,
): boolean {
  const rest = order.slice(at);
  if (!remembered(entries[rest[0]!]!) || rest.slice(1).every((i) => remembered(entries[i]!))) return false;
  order.splice(at, rest.length, ...freshFirst(rest, entries, remembered));
  return true;
}

export class CapacityFallback {
  /**
   * Per Machine UID, the refusals of its entries not followed by a launch that stuck. A cloud may accept a launch
   * and refuse it later (a GCE zone operation): such a refusal is learnt in a later create, which moves on to the
   * next entry; only when every entry has been refused is that an InsufficientCapacity the window counts.
   */
  private readonly refused = new Map<string, Map<number, CapacityRefusal>>();

  constructor(private readonly memory: CapacityMemory) {}

  /** Launches the Machine on the first entry with capacity; throws CapacityEntriesRefusedError when none has. */
  async create<S extends CloudMachineScope>(
    entries: readonly CapacityEntry<S>[],
    ctx: ActuatorContext,
    launch: (scope: S) => Promise<void>,
  ): Promise<void> {
    const { status, machine } = entries[0]!.scope;
    const uid = machine.metadata.uid ?? machine.metadata.name ?? '';
    const refusals = this.refused.get(uid) ?? new Map<number, CapacityRefusal>();
    this.refused.set(uid, refusals);
    const recorded = recordedEntry(status, entries.length)?.index;
    const remembered = (e: CapacityEntry<S>): boolean => !!this.memory.refusalOf(e.region, e.choice);
    const order = launchOrder(entries, recorded, remembered);
    for (let at = 0; at < order.length; at++) {
      const index = order[at]!;
      const { scope, choice, region } = entries[index]!;
      // Refused since the last pass, when the cloud accepted a launch and refused it later: the next entry first.
      if (refusals.has(index) && index !== recorded && refusals.size < entries.length) continue;
      // Another Machine's first launch of this choice is out: its answer says whether to send this one too. A
      // recorded entry goes out at once (its earlier launch may have made an instance).
      const probe =
        index === recorded
          ? this.memory.probe(region, choice)
          : await this.memory.turnToLaunch(region, choice, ctx.signal);
      if (!probe && index !== recorded && laterIfRefused(order, at, entries, remembered)) {
        at--;
        continue;
      }
      let refusal: InsufficientCapacityError | undefined;
      try {
        // On record before the launch is sent: if its outcome is lost, the next attempt replays this entry.
        status.capacityEntry = { index, ...choice };
        scope.saveStatus();
        await launch(scope);
        this.memory.accepted(region, choice);
      } catch (err) {
        if (!(err instanceof InsufficientCapacityError)) throw err;
        this.memory.refused(region, choice, err.message);
        refusal = err;
      } finally {
        probe?.();
      }
      if (refusal) {
        ctx.metrics?.recordCapacityRefusal(choice);
        refusals.set(index, { index, choice, error: refusal });
        if (refusals.size === entries.length) break;
        continue;
      }
      if (index > 0) ctx.metrics?.recordCapacityFallback(choice);
      if (index > 0 || refusals.size > 0) this.announce(machine, ctx, index, choice, [...refusals.values()]);
      return;
    }
    // Every entry refused: the capacity window counts it; the next pass probes every entry again.
    this.refused.delete(uid);
    throw new CapacityEntriesRefusedError([...refusals.values()]);
  }

  /** The Machine has an instance, or is gone: no refusals of its to carry. */
  forget(uid: string): void {
    this.refused.delete(uid);
  }

  private announce(
    machine: CloudMachineScope['machine'],
    ctx: ActuatorContext,
    index: number,
    choice: CapacityChoice,
    refusals: readonly CapacityRefusal[],
  ): void {
    const refused = refusals.map((r) => `${entryName(r.index)} ${capacityChoiceName(r.choice)} (${r.error.cloudCode})`);
    const skipped = index > 0 && refusals.length === 0 ? 'earlier entries skipped: refused recently; ' : '';
    const message = `${skipped}${refused.length > 0 ? `refused: ${refused.join(', ')}; ` : ''}launched on ${entryName(index)} ${capacityChoiceName(choice)}`;
    ctx.log.info('capacity fallback', { entry: index, ...choice });
    ctx.events.event(machine, 'Normal', CapacityFallbackReason, 'Create', message);
  }
}
