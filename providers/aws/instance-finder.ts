// How the AWS actuator finds a Machine's instances: by the id on record (a batched DescribeInstances), and by the
// Machine's identity, its Name and cluster tags (coalesced with other Machines' look-ups into one filtered
// DescribeInstances). Instances of an earlier Machine of the same name are told apart by the UID tag or the
// ClientToken; instances that predate UID tags are still this Machine's ("legacy").
import type { Instance } from '@aws-sdk/client-ec2';
import { viewCanBeCurrent, type ActuatorContext, type Machine } from '../../lib/index.js';
import { MACHINE_UID_TAG, belongsTo, clientTokenFor, isBooting, isGone, sortOldestFirst } from './instances.js';
import type { MachineScope } from './machine-scope.js';

export type Ownership = 'ours' | 'legacy' | 'other';

export function ownership(machine: Machine, i: Instance): Ownership {
  if (!belongsTo(machine, i)) return 'other';
  const positive = i.Tags?.some((t) => t.Key === MACHINE_UID_TAG) || (!!i.ClientToken && i.ClientToken === clientTokenFor(machine));
  return positive ? 'ours' : 'legacy';
}

export class InstanceFinder {
  constructor(
    /** The id on record, else the one this process launched and has not seen recorded yet. */
    private readonly recordedId: (scope: MachineScope) => string | undefined,
  ) {}

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
      ctx.events.event(scope.machine, 'Warning', 'DuplicateInstances', 'Update', `found ${live.length} instances for this machine: kept the oldest, ${keep.InstanceId ?? ''}, and terminated ${ids.join(', ')}`);
    }
    return keep ?? found[found.length - 1]?.instance ?? (await this.byRecordedId(scope, ctx.signal));
  }
}
