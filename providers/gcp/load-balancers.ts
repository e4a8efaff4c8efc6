// Load-balancer membership, joined on update and left on delete: legacy target pools for any Machine, and for
// control-plane Machines the zonal instance group "{clusterID}-master-{zone}" behind the
// "{clusterID}-api-internal" backend service.
// Unlike the reference, a missing instance group does not block deletion, and listInstances reads every page.
import { MachineRoleLabel, setFailureReason, type Machine } from '../../lib/index.js';
import type { ComputeApi, Instance, InstanceGroup } from './compute-api.js';
import { classifyGceError, describeFailure, describeGceError } from './errors.js';
import { instanceGroupSelfLink, instanceSelfLink, instanceStatus } from './instances.js';
import type { MachineScope } from './machine-scope.js';

/** A control-plane Machine: its running instance joins the control plane's instance group. */
export const isControlPlaneMachine = (machine: Machine): boolean =>
  machine.metadata.labels?.[MachineRoleLabel] === 'master';
export const isControlPlane = (scope: MachineScope): boolean => isControlPlaneMachine(scope.machine);
export const masterGroupName = (scope: MachineScope): string => `${scope.clusterId}-master-${scope.spec.zone}`;

const wrap = (what: string, err: unknown): Error => new Error(`${what}: ${describeGceError(err)}`, { cause: err });

async function attempt<T>(what: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    throw wrap(what, err);
  }
}

/** Adds the instance to each target pool of the spec that does not list it yet. */
export async function registerWithTargetPools(
  compute: ComputeApi,
  scope: MachineScope,
  signal: AbortSignal,
): Promise<void> {
  const { project, spec, instanceName } = scope;
  const link = instanceSelfLink(project, spec.zone, instanceName);
  for (const pool of spec.targetPools ?? []) {
    const tp = await attempt(`unable to get targetpool ${pool}`, () =>
      compute.getTargetPool(project, spec.region, pool, { signal }),
    );
    if ((tp.instances ?? []).includes(link)) continue;
    await attempt(`failed to add instance ${instanceName} to target pool ${pool}`, () =>
      compute.addTargetPoolInstance(project, spec.region, pool, link, { signal }),
    );
  }
}

/** Removes the instance from each target pool of the spec that lists it; a pool that is gone is skipped. */
export async function deregisterFromTargetPools(
  compute: ComputeApi,
  scope: MachineScope,
  signal: AbortSignal,
): Promise<void> {
  const { project, spec, instanceName } = scope;
  const link = instanceSelfLink(project, spec.zone, instanceName);
  for (const pool of spec.targetPools ?? []) {
    let instances: string[];
    try {
      instances = (await compute.getTargetPool(project, spec.region, pool, { signal })).instances ?? [];
    } catch (err) {
      if (classifyGceError(err) === 'notFound') continue;
      throw wrap(`unable to get targetpool ${pool}`, err);
    }
    if (!instances.includes(link)) continue;
    await attempt(`failed to remove instance ${instanceName} from target pool ${pool}`, () =>
      compute.removeTargetPoolInstance(project, spec.region, pool, link, { signal }),
    );
  }
}

/** The network and subnetwork of a new master instance group: the installer's pair if a NIC uses it, else NIC 0's. */
function groupNetwork(scope: MachineScope): { network: string; subnetwork: string } {
  const { clusterId, spec, project } = scope;
  const role = scope.machine.metadata.labels?.[MachineRoleLabel] ?? 'master';
  const net = `${clusterId}-network`;
  const sub = `${clusterId}-${role}-subnet`;
  const nic =
    spec.networkInterfaces.find((n) => n.network === net && n.subnetwork === sub) ?? spec.networkInterfaces[0];
  return {
    network: `projects/${project}/global/networks/${nic?.network ?? net}`,
    subnetwork: `projects/${project}/regions/${spec.region}/subnetworks/${nic?.subnetwork ?? sub}`,
  };
}

async function ensureInstanceGroup(compute: ComputeApi, scope: MachineScope, signal: AbortSignal): Promise<void> {
  const { project, spec } = scope;
  const name = masterGroupName(scope);
  try {
    await compute.getInstanceGroup(project, spec.zone, name, { signal });
    return;
  } catch (err) {
    if (classifyGceError(err) !== 'notFound') throw wrap(`instanceGroupGet request failed for ${name}`, err);
  }
  const group: InstanceGroup = { name, zone: spec.zone, ...groupNetwork(scope) };
  try {
    await compute.insertInstanceGroup(project, spec.zone, group, { signal });
  } catch (err) {
    // Another control-plane Machine in the zone made it first.
    if (classifyGceError(err) !== 'alreadyExists')
      throw wrap(`failed to register the new instance group named ${name}`, err);
  }
}

async function ensureBackend(compute: ComputeApi, scope: MachineScope, signal: AbortSignal): Promise<void> {
  const { project, spec, clusterId } = scope;
  const name = `${clusterId}-api-internal`;
  const group = instanceGroupSelfLink(project, spec.zone, masterGroupName(scope));
  const bs = await attempt(`failed to retrieve the backend service ${name}`, () =>
    compute.getRegionBackendService(project, spec.region, name, { signal }),
  );
  if ((bs.backends ?? []).some((b) => b.group === group)) return;
  // A PUT of the whole resource: its fingerprint makes a concurrent change fail (412) instead of being lost.
  const updated = { ...bs, backends: [...(bs.backends ?? []), { balancingMode: 'CONNECTION', group }] };
  await attempt(`failed to add instance group to backend service ${name}`, () =>
    compute.updateRegionBackendService(project, spec.region, name, updated, { signal }),
  );
}

/** Puts a running control-plane instance in its zone's master instance group (made if missing). */
export async function registerWithInstanceGroup(
  compute: ComputeApi,
  scope: MachineScope,
  signal: AbortSignal,
): Promise<void> {
  const { project, spec, instanceName } = scope;
  const name = masterGroupName(scope);
  await ensureInstanceGroup(compute, scope, signal);
  await ensureBackend(compute, scope, signal);
  const link = instanceSelfLink(project, spec.zone, instanceName);
  const members = await attempt(`failed to list instances of instance group ${name}`, () =>
    compute.listInstanceGroupInstances(project, spec.zone, name, '', { signal }),
  );
  if (members.includes(link)) return;
  await attempt(`failed to add instance to instance group ${name}`, () =>
    compute.addInstanceGroupInstances(project, spec.zone, name, [link], { signal }),
  );
}

/** Takes a control-plane instance out of its instance group; a missing group means there is nothing to do. */
export async function deregisterFromInstanceGroup(
  compute: ComputeApi,
  scope: MachineScope,
  signal: AbortSignal,
): Promise<void> {
  const { project, spec, instanceName } = scope;
  const name = masterGroupName(scope);
  const link = instanceSelfLink(project, spec.zone, instanceName);
  let members: string[];
  try {
    members = await compute.listInstanceGroupInstances(project, spec.zone, name, '', { signal });
  } catch (err) {
    if (classifyGceError(err) === 'notFound') return;
    throw wrap(`failed to fetch instances in instance group ${name}`, err);
  }
  if (!members.includes(link)) return;
  await attempt(`failed to remove instance from instance group ${name}`, () =>
    compute.removeInstanceGroupInstances(project, spec.zone, name, [link], { signal }),
  );
}

/** Runs `ensure` unless it already succeeded for this Machine under `what`. */
export type EnsureOnce = (what: string, ensure: () => Promise<void>) => Promise<void>;

/**
 * Joins the spec's target pools, and a running control-plane instance its instance group, each once per
 * instance and membership; one error lists every failure.
 */
export async function joinLoadBalancers(
  scope: MachineScope,
  instance: Instance,
  signal: AbortSignal,
  ensureOnce: EnsureOnce,
): Promise<void> {
  const errors: string[] = [];
  const { compute } = scope.clients;
  const link = scope.providerID;
  const pools = scope.spec.targetPools ?? [];
  if (pools.length > 0) {
    try {
      await ensureOnce(`pools|${link}|${JSON.stringify(pools)}`, () => registerWithTargetPools(compute, scope, signal));
    } catch (err) {
      errors.push(describeFailure(err));
    }
  }
  if (instanceStatus(instance) === 'RUNNING' && isControlPlane(scope)) {
    try {
      await ensureOnce(`group|${link}`, () => registerWithInstanceGroup(compute, scope, signal));
    } catch (err) {
      errors.push(`failed to register instance to instance group: ${describeFailure(err)}`);
    }
  }
  if (errors.length > 0) {
    const err = new Error(errors.join('; '));
    setFailureReason(err, 'failed to add instance to target pool');
    throw err;
  }
}
