// Dynamically allocated dedicated hosts (placement.host.dedicatedHost.allocationStrategy: Dynamic).
// Unlike the reference, the host id is recorded in providerStatus as soon as AllocateHosts answers (and
// AllocateHosts is idempotent on a token derived from the Machine UID), and delete waits for the instance
// to terminate so it can always release the host. The reference recorded the host only after load-balancer
// registration, and released it only if a delete happened to see the instance terminated; either gap leaked it.
import { createHash } from 'node:crypto';
import {
  InvalidMachineConfigurationError,
  RequeueAfterError,
  messageOf,
  type Logger,
  type Machine,
} from '../../lib/index.js';
import type { Ec2Api } from './ec2-api.js';
import { describeEc2Error } from './errors.js';
import { buildTags, CLUSTER_TAG_PREFIX } from './instances.js';
import type { MachineScope } from './machine-scope.js';
import { PROVIDER_SPEC_PATH } from './provider-spec.js';

export const isDynamicHost = (scope: MachineScope): boolean =>
  scope.spec.placement.host?.dedicatedHost?.allocationStrategy === 'Dynamic';

export function hostClientTokenFor(machine: Machine): string {
  return createHash('sha256')
    .update(`machine.openshift.io/dedicated-host/${machine.metadata.uid ?? ''}`)
    .digest('hex');
}

/** The id of a host the user allocated and named in the spec (allocationStrategy UserProvided or omitted). */
export function userProvidedHostId(scope: MachineScope): string | undefined {
  const dedicated = scope.spec.placement.host?.dedicatedHost;
  if (!dedicated || dedicated.allocationStrategy === 'Dynamic') return undefined;
  return dedicated.id || undefined;
}

/**
 * Marks a user-provided host as used by the cluster (`kubernetes.io/cluster/<id>=shared`, as the reference
 * does at every launch): "shared" and not "owned", because the host outlives the cluster and is never ours
 * to release. Tagging is advisory, so a failure is only logged and the launch goes on.
 */
export async function tagUserProvidedHost(
  scope: MachineScope,
  ec2: Ec2Api,
  signal: AbortSignal,
  log: Logger,
): Promise<void> {
  const hostId = userProvidedHostId(scope);
  if (!hostId) return;
  try {
    await ec2.createTags(hostId, [{ Key: `${CLUSTER_TAG_PREFIX}${scope.clusterId}`, Value: 'shared' }], { signal });
  } catch (err) {
    log.warn('could not tag the user-provided dedicated host as shared by the cluster', {
      hostId,
      error: describeEc2Error(err),
    });
  }
}

/** The recorded host, or a newly allocated one (recorded on the Machine before returning). */
export async function ensureDynamicHost(
  scope: MachineScope,
  ec2: Ec2Api,
  subnet: { subnetId?: string; subnetZone?: string },
  signal: AbortSignal,
): Promise<string> {
  const recorded = scope.status.dedicatedHost?.id;
  if (recorded) return recorded;
  let zone = scope.spec.placement.availabilityZone || subnet.subnetZone;
  if (!zone && subnet.subnetId)
    zone = (await ec2.describeSubnets({ subnetIds: [subnet.subnetId] }, { signal }))[0]?.AvailabilityZone;
  if (!zone) {
    const field = `${PROVIDER_SPEC_PATH}.placement.availabilityZone`;
    throw new InvalidMachineConfigurationError(
      `${field}: Required value: dynamic dedicated host allocation needs an availability zone (placement.availabilityZone or a subnet)`,
      { field },
    );
  }
  const hostConfig = {
    ...scope.spec,
    tags: scope.spec.placement.host?.dedicatedHost?.dynamicHostAllocation?.tags ?? [],
  };
  const id = await ec2.allocateHost(
    {
      instanceType: scope.spec.instanceType,
      availabilityZone: zone,
      tags: buildTags(scope.machine, hostConfig, scope.clusterId),
      clientToken: hostClientTokenFor(scope.machine),
    },
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
export async function releaseDynamicHost(
  scope: MachineScope,
  ec2: Ec2Api,
  instancesGone: boolean,
  requeueAfterMs: number,
  signal: AbortSignal,
): Promise<void> {
  const id = scope.status.dedicatedHost?.id;
  if (!id) return;
  if (!instancesGone) throw new RequeueAfterError(requeueAfterMs);
  const failed = (await ec2.releaseHosts([id], { signal })).filter((f) => !f.code.endsWith('InvalidHostID.NotFound'));
  const first = failed[0];
  if (first) throw new Error(`failed to release dedicated host ${id}: ${first.code}: ${first.message}`);
  scope.status.dedicatedHost = {};
  scope.saveStatus();
}

/** A launch EC2 can never accept leaves the Machine Failed: its dynamic host is given back rather than leaked. */
export async function releaseHostOfRefusedLaunch(
  scope: MachineScope,
  ec2: Ec2Api,
  hostId: string | undefined,
  requeueAfterMs: number,
  ctx: { signal: AbortSignal; log: Logger },
): Promise<void> {
  if (!hostId) return;
  await releaseDynamicHost(scope, ec2, true, requeueAfterMs, ctx.signal).catch((e: unknown) =>
    ctx.log.error('could not release the dedicated host of a failed launch', { hostId, error: messageOf(e) }),
  );
}
