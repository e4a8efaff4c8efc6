// Dynamically allocated dedicated hosts (placement.host.dedicatedHost.allocationStrategy: Dynamic).
// Unlike the reference, the host id is recorded in providerStatus as soon as AllocateHosts answers (and
// AllocateHosts is idempotent on a token derived from the Machine UID), and delete waits for the instance
// to terminate so it can always release the host (spec/aws.md §7.2 #1, #9).
import { createHash } from 'node:crypto';
import { InvalidMachineConfigurationError, RequeueAfterError, type Machine } from '../../lib/index.js';
import type { Ec2Api } from './ec2-api.js';
import { buildTags } from './instances.js';
import type { MachineScope } from './machine-scope.js';
import { PROVIDER_SPEC_PATH } from './provider-spec.js';

export const isDynamicHost = (scope: MachineScope): boolean => scope.config.placement.host?.dedicatedHost?.allocationStrategy === 'Dynamic';

export function hostClientTokenFor(machine: Machine): string {
  return createHash('sha256').update(`machine.openshift.io/dedicated-host/${machine.metadata.uid ?? ''}`).digest('hex');
}

/** The recorded host, or a newly allocated one (recorded on the Machine before returning). */
export async function ensureDynamicHost(scope: MachineScope, ec2: Ec2Api, subnet: { subnetId?: string; subnetZone?: string }, signal: AbortSignal): Promise<string> {
  const recorded = scope.status.dedicatedHost?.id;
  if (recorded) return recorded;
  let zone = scope.config.placement.availabilityZone || subnet.subnetZone;
  if (!zone && subnet.subnetId) zone = (await ec2.describeSubnets({ subnetIds: [subnet.subnetId] }, { signal }))[0]?.AvailabilityZone;
  if (!zone) {
    const field = `${PROVIDER_SPEC_PATH}.placement.availabilityZone`;
    throw new InvalidMachineConfigurationError(`${field}: Required value: dynamic dedicated host allocation needs an availability zone (placement.availabilityZone or a subnet)`, { field });
  }
  const hostConfig = { ...scope.config, tags: scope.config.placement.host?.dedicatedHost?.dynamicHostAllocation?.tags ?? [] };
  const id = await ec2.allocateHost(
    { instanceType: scope.config.instanceType, availabilityZone: zone, tags: buildTags(scope.machine, hostConfig, scope.clusterId), clientToken: hostClientTokenFor(scope.machine) },
    { signal },
  );
  scope.status.dedicatedHost = { id };
  scope.saveStatus();
  return id;
}

/**
 * Releases the recorded host once no instance of this Machine still runs on it. `instancesGone` false
 * means termination is still in progress: come back later rather than forget the host.
 */
export async function releaseDynamicHost(scope: MachineScope, ec2: Ec2Api, instancesGone: boolean, requeueAfterMs: number, signal: AbortSignal): Promise<void> {
  const id = scope.status.dedicatedHost?.id;
  if (!id) return;
  if (!instancesGone) throw new RequeueAfterError(requeueAfterMs);
  const failed = (await ec2.releaseHosts([id], { signal })).filter((f) => !f.code.endsWith('InvalidHostID.NotFound'));
  const first = failed[0];
  if (first) throw new Error(`failed to release dedicated host ${id}: ${first.code}: ${first.message}`);
  scope.status.dedicatedHost = {};
  scope.saveStatus();
}
