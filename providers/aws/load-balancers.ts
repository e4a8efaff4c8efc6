// Load balancer membership: classic ELBs by instance, network LBs through their target groups (instance
// targets by id, ip targets by private IPv4 or, for IPv6 groups, the first IPv6 address). Registration is
// idempotent; the actuator remembers what it registered so it is not redone on every resync.
import type { Instance } from '@aws-sdk/client-ec2';
import type { Ec2Api } from './ec2-api.js';
import { classifyEc2Error, describeEc2Error } from './errors.js';
import type { LoadBalancerReference } from './provider-spec.js';

function targetIdFor(instance: Instance, targetType: string): string | undefined {
  if (targetType === 'instance') return instance.InstanceId;
  if (targetType === 'ip') {
    return instance.PrivateIpAddress ?? instance.NetworkInterfaces?.[0]?.Ipv6Addresses?.[0]?.Ipv6Address;
  }
  return undefined; // lambda / alb targets are never machines.
}

async function networkTargetGroups(ec2: Ec2Api, names: string[], signal?: AbortSignal) {
  const lbs = await ec2.describeNetworkLoadBalancers(names, { signal });
  const groups = [];
  for (const lb of lbs) groups.push(...(await ec2.describeTargetGroups(lb.arn, { signal })));
  return groups;
}

/** Registers the instance with every load balancer; throws one error listing each failure. */
export async function registerWithLoadBalancers(ec2: Ec2Api, instance: Instance, lbs: LoadBalancerReference[], signal?: AbortSignal): Promise<void> {
  const failures: string[] = [];
  const id = instance.InstanceId ?? '';
  for (const lb of lbs.filter((l) => l.type === 'classic')) {
    try {
      await ec2.registerInstanceWithClassicLoadBalancer(lb.name, id, { signal });
    } catch (err) {
      failures.push(`${lb.name}: ${describeEc2Error(err)}`);
    }
  }
  const network = lbs.filter((l) => l.type === 'network').map((l) => l.name);
  if (network.length > 0) {
    try {
      for (const tg of await networkTargetGroups(ec2, network, signal)) {
        const target = targetIdFor(instance, tg.targetType);
        if (!target) continue;
        try {
          const registered = await ec2.describeTargetHealth(tg.arn, { signal });
          if (!registered.includes(target)) await ec2.registerTarget(tg.arn, target, { signal });
        } catch (err) {
          failures.push(`${tg.arn}: ${describeEc2Error(err)}`);
        }
      }
    } catch (err) {
      failures.push(`${network.join(',')}: ${describeEc2Error(err)}`);
    }
  }
  if (failures.length > 0) throw new Error(`failed to register instance ${id} with load balancers: ${failures.join('; ')}`);
}

/**
 * Removes the instance's ip targets before it terminates (instance targets drain by themselves).
 * A target group or target that is already gone is fine.
 */
export async function deregisterFromLoadBalancers(ec2: Ec2Api, instance: Instance, lbs: LoadBalancerReference[], signal?: AbortSignal): Promise<void> {
  const network = lbs.filter((l) => l.type === 'network').map((l) => l.name);
  if (network.length === 0) return;
  let groups;
  try {
    groups = await networkTargetGroups(ec2, network, signal);
  } catch (err) {
    if (classifyEc2Error(err) === 'notFound') return;
    throw err;
  }
  for (const tg of groups.filter((g) => g.targetType === 'ip')) {
    const target = targetIdFor(instance, 'ip');
    if (!target) continue;
    try {
      await ec2.deregisterTarget(tg.arn, target, { signal });
    } catch (err) {
      if (classifyEc2Error(err) !== 'notFound') throw err;
    }
  }
}

/**
 * Removes the ip targets an instance that ended without our delete (terminated out of band, reclaimed) left
 * behind: EC2 drops a terminated instance from instance target groups by itself, never from ip ones. Only
 * addresses no live instance holds now are removed, since a freed address may already serve a new Machine.
 */
export async function deregisterEndedInstanceAddresses(ec2: Ec2Api, addresses: string[], lbs: LoadBalancerReference[], signal?: AbortSignal): Promise<void> {
  const network = lbs.filter((l) => l.type === 'network').map((l) => l.name);
  if (network.length === 0 || addresses.length === 0) return;
  let groups;
  try {
    groups = (await networkTargetGroups(ec2, network, signal)).filter((g) => g.targetType === 'ip');
  } catch (err) {
    if (classifyEc2Error(err) === 'notFound') return;
    throw err;
  }
  if (groups.length === 0) return;
  const liveStates = ['pending', 'running', 'stopping', 'stopped', 'shutting-down'];
  for (const address of addresses) {
    const holders = await ec2.describeInstances({ filters: [{ Name: 'private-ip-address', Values: [address] }, { Name: 'instance-state-name', Values: liveStates }] }, { signal });
    if (holders.length > 0) continue;
    for (const tg of groups) {
      try {
        const registered = await ec2.describeTargetHealth(tg.arn, { signal });
        if (registered.includes(address)) await ec2.deregisterTarget(tg.arn, address, { signal });
      } catch (err) {
        if (classifyEc2Error(err) !== 'notFound') throw err;
      }
    }
  }
}
