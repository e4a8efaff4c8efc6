// How the AWS actuator finds a Machine's instances: by the id on record (a batched DescribeInstances), and by the
// Machine's identity, its Name and cluster tags (coalesced with other Machines' look-ups into one filtered
// DescribeInstances). Instances of an earlier Machine of the same name are told apart by the UID tag or the
// ClientToken; instances that predate UID tags are still this Machine's ("legacy").
import type { Instance } from '@aws-sdk/client-ec2';
import {
  InvalidMachineConfigurationError,
  failureStep,
  viewCanBeCurrent,
  type ActuatorContext,
  type Machine,
  type MachineMemory,
} from '../../lib/index.js';
import {
  MACHINE_UID_TAG,
  belongsTo,
  clientTokenFor,
  isBooting,
  isGone,
  isTerminated,
  sortOldestFirst,
} from './instances.js';
import type { MachineScope } from './machine-scope.js';

export type Ownership = 'ours' | 'legacy' | 'other';

export function ownership(machine: Machine, i: Instance): Ownership {
  if (!belongsTo(machine, i)) return 'other';
  const positive =
    i.Tags?.some((t) => t.Key === MACHINE_UID_TAG) || (!!i.ClientToken && i.ClientToken === clientTokenFor(machine));
  return positive ? 'ours' : 'legacy';
}

/** This Machine's own instance has ended: it is never launched again (the Machine is Failed). */
export const instanceEndedError = (i: Instance): Error =>
  new InvalidMachineConfigurationError(`Instance ${i.InstanceId ?? ''} is in a terminated state`);

export class InstanceFinder {
  constructor(
    /** The id on record, else the one this process launched and has not seen recorded yet. */
    private readonly recordedId: (scope: MachineScope) => string | undefined,
    /** Remembers, per Machine, that its duplicates were swept (forgotten with the Machine). */
    private readonly memory: MachineMemory,
  ) {}

  /** The Machine's instance as exists() counts it: see CloudActuator.lookUp. */
  async lookUp(scope: MachineScope, signal: AbortSignal): Promise<Instance | 'ended' | undefined> {
    const byId = await this.byRecordedId(scope, signal);
    if (byId && !isTerminated(byId)) return byId;
    // Our own instance exists until terminated (delete waits for that); an untagged one that is already
    // going away may be a predecessor's of the same name, so it does not count.
    const live = (await this.byTags(scope, signal)).find((x) =>
      x.owner === 'ours' ? !isTerminated(x.instance) : !isGone(x.instance),
    );
    if (live) return live.instance;
    // EC2 keeps a terminated instance visible for an hour: one seen terminated is gone, not late.
    return byId ? 'ended' : undefined;
  }

  /** For create: the live instance an earlier attempt launched, to adopt. This Machine's own instance having ended fails it. */
  async adoptable(scope: MachineScope, signal: AbortSignal): Promise<Instance | undefined> {
    const existing = await failureStep('error getting existing instances', () => this.byTags(scope, signal));
    const first = existing.find((x) => !isGone(x.instance));
    if (first) return first.instance;
    const dead = existing.find((x) => x.owner === 'ours');
    if (dead) throw instanceEndedError(dead.instance);
    return undefined;
  }

  /** For delete, with fresh reads: every instance of the Machine, by the id on record and by its tags. */
  async all(scope: MachineScope, signal: AbortSignal): Promise<Instance[]> {
    const all = new Map<string, Instance>();
    const byId = await failureStep('error getting existing instances', () => this.byRecordedId(scope, signal));
    if (byId?.InstanceId) all.set(byId.InstanceId, byId);
    for (const { instance } of await failureStep('error getting existing instances', () => this.byTags(scope, signal)))
      if (instance.InstanceId) all.set(instance.InstanceId, instance);
    return [...all.values()];
  }

  /** The instance this Machine keeps: what exists() saw once its duplicates were swept (once per process). */
  kept(scope: MachineScope, seen: Instance | undefined, ctx: ActuatorContext): Promise<Instance | undefined> {
    return failureStep('error getting existing instances', () => this.sweptOnce(scope, seen, ctx));
  }

  private async sweptOnce(
    scope: MachineScope,
    seen: Instance | undefined,
    ctx: ActuatorContext,
  ): Promise<Instance | undefined> {
    const uid = scope.machine.metadata.uid ?? '';
    const known = this.memory.has(uid, 'swept') ? (seen ?? (await this.byRecordedId(scope, ctx.signal))) : undefined;
    if (known) return known;
    const kept = await this.keepOldest(scope, ctx);
    this.memory.add(uid, 'swept');
    return kept;
  }

  /** The instance by the id on record, if EC2 shows it. */
  async byRecordedId(scope: MachineScope, signal: AbortSignal): Promise<Instance | undefined> {
    const id = this.recordedId(scope);
    if (!id) return undefined;
    return scope.clients.instances.get(id, signal, viewCanBeCurrent(scope.machine, isBooting));
  }

  /** Instances tagged with this Machine's name and cluster that are this Machine's (or predate UID tags), oldest first. */
  async byTags(scope: MachineScope, signal: AbortSignal): Promise<Array<{ instance: Instance; owner: Ownership }>> {
    const machine = scope.machine;
    const found = await scope.clients.instances.findByName(scope.clusterId, machine.metadata.name ?? '', signal);
    return sortOldestFirst(found)
      .map((instance) => ({ instance, owner: ownership(machine, instance) }))
      .filter((x) => x.owner !== 'other');
  }

  /**
   * The instance the Machine keeps, found by its tags: the oldest live one; any other live one is a duplicate
   * (a launch replayed under another token) and is terminated, with a Warning event.
   */
  async keepOldest(scope: MachineScope, ctx: ActuatorContext): Promise<Instance | undefined> {
    const found = await this.byTags(scope, ctx.signal);
    const live = found.filter((x) => !isGone(x.instance)).map((x) => x.instance);
    const [keep, ...extra] = live;
    if (keep && extra.length > 0) {
      const ids = extra.map((i) => i.InstanceId ?? '');
      ctx.log.info('terminating duplicate instances', { keep: keep.InstanceId, duplicates: ids });
      await scope.clients.ec2.terminateInstances(ids, { signal: ctx.signal });
      ctx.events.event(
        scope.machine,
        'Warning',
        'DuplicateInstances',
        'Update',
        `found ${live.length} instances for this machine: kept the oldest, ${keep.InstanceId ?? ''}, and terminated ${ids.join(', ')}`,
      );
    }
    return keep ?? found[found.length - 1]?.instance ?? (await this.byRecordedId(scope, ctx.signal));
  }
}
