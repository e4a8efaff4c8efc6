// The RunInstances request for a Machine: its spec's references resolved to ids, its user data, and the dedicated
// host it launches on (a dynamically allocated one is allocated and recorded first; a user-provided one is
// tagged as shared by the cluster). Each step carries the reference's metric reason.
import type { RunInstancesCommandInput } from '@aws-sdk/client-ec2';
import { failureStep, type ActuatorContext, type KubeClient } from '../../lib/index.js';
import { ensureDynamicHost, isDynamicHost, tagUserProvidedHost } from './dedicated-hosts.js';
import { buildRunInstancesInput, type IpFamily } from './instances.js';
import { resolveLaunchInputs } from './launch-resolver.js';
import { userDataFor, type MachineScope } from './machine-scope.js';
import type { TagSpecification } from './provider-spec.js';

export interface LaunchRequestOptions {
  /** Reads the user-data Secret. */
  client: KubeClient;
  infrastructureTags?: TagSpecification[];
  ipFamily?: IpFamily;
}

export interface LaunchRequest {
  input: RunInstancesCommandInput;
  /** The dynamically allocated host the instance launches on, if any. */
  dedicatedHostId?: string;
  /** Where the instance is asked for: the spec's availability zone, else its subnet's. */
  zone: string;
}

export async function launchRequestFor(
  scope: MachineScope,
  o: LaunchRequestOptions,
  ctx: ActuatorContext,
): Promise<LaunchRequest> {
  const { machine, spec } = scope;
  const { ec2 } = scope.clients;
  // The user data first: when it is over EC2's cap the Machine fails before any look-up is spent on it.
  const userData = await failureStep('error reading user data', () => userDataFor(machine, spec, o.client, ctx.signal));
  const resolved = await failureStep('error resolving launch parameters', () =>
    resolveLaunchInputs(ec2, spec, ctx.signal),
  );
  const dedicatedHostId = isDynamicHost(scope)
    ? await failureStep('failed to allocate dedicated host', () => ensureDynamicHost(scope, ec2, resolved, ctx.signal))
    : undefined;
  await tagUserProvidedHost(scope, ec2, ctx.signal, ctx.log);
  const input = buildRunInstancesInput(machine, spec, scope.clusterId, {
    ...resolved,
    userData,
    infrastructureTags: o.infrastructureTags,
    ipFamily: o.ipFamily,
    dedicatedHostId,
    capacityEntry: scope.status.capacityEntry?.index,
  });
  return { input, dedicatedHostId, zone: spec.placement?.availabilityZone || resolved.subnetZone || '' };
}
