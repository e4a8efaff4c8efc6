// The IBM actuator's record step: what update() writes onto a Machine from its instance (providerID with the API
// key's account, addresses, the region/zone/profile labels, the instance state), and the spec's tags, attached
// to the instance with Global Tagging once per Machine and tag set.
import {
  MachineInstanceStateAnnotation,
  machineChangeFingerprint,
  setFailureReason,
  updateMachineError,
  type ActuatorContext,
  type Machine,
  type MachineChangeMark,
} from '../../lib/index.js';
import { describeVpcError } from './errors.js';
import { addressesOf, machineLabelsFor, providerIdOf, tagNamesOf } from './instances.js';
import type { MachineScope } from './machine-scope.js';
import type { VpcInstance } from './vpc-types.js';

/** Runs `ensure` unless it already succeeded for this Machine under `what`. */
export type EnsureOnce = (what: string, ensure: () => Promise<void>) => Promise<void>;

/** Writes what the instance says onto the Machine; `recordStatus` writes the provider status (the state the annotation shows). */
export async function recordInstance(
  scope: MachineScope,
  instance: VpcInstance,
  signal: AbortSignal,
  recordStatus: () => void,
): Promise<void> {
  const m = scope.machine;
  const accountId = await scope.clients.accountId(signal);
  m.spec = { ...m.spec, providerID: providerIdOf(accountId, scope.clusterId, instance.id) };
  m.status = { ...m.status, addresses: addressesOf(scope.instanceName, instance) };
  m.metadata.labels = { ...m.metadata.labels, ...machineLabelsFor(scope.spec) };
  recordStatus();
  m.metadata.annotations = {
    ...m.metadata.annotations,
    [MachineInstanceStateAnnotation]: scope.status.instanceState ?? instance.status,
  };
}

/**
 * What update() compares for the Updated event. The VPC allocates the address only as the instance leaves
 * `pending`, after its providerID was recorded: recording that first address is still part of creating the
 * instance, which "Created" announced.
 */
export function changeMarkOnceAddressed(machine: Machine): MachineChangeMark {
  const mark = machineChangeFingerprint(machine);
  return {
    ...mark,
    provisioned: mark.provisioned && !!machine.status?.addresses?.some((a) => a.type === 'InternalIP'),
  };
}

/** Attaches the spec's tags to an instance that is not going away; a failure is an update error naming the instance. */
export async function attachSpecTags(
  scope: MachineScope,
  instance: VpcInstance,
  ctx: ActuatorContext,
  ensureOnce: EnsureOnce,
): Promise<void> {
  const tags = tagNamesOf(scope.spec);
  if (tags.length === 0 || instance.status === 'deleting') return;
  try {
    await ensureOnce(`tags|${instance.id}|${JSON.stringify(tags)}`, async () => {
      const failed = (await scope.clients.vpc.attachTags([instance.crn], tags, { signal: ctx.signal })).filter(
        (r) => r.is_error,
      );
      if (failed.length > 0) throw new Error(failed.map((r) => r.message ?? 'attach failed').join('; '));
    });
  } catch (tagError) {
    const err = updateMachineError(`failed to tag instance ${instance.id}: ${describeVpcError(tagError)}`, tagError);
    setFailureReason(err, 'failed to tag instance');
    throw err;
  }
}
