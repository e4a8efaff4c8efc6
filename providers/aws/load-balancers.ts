// Load balancer membership: classic ELBs by instance, network LBs through their target groups (instance
// targets by id, ip targets by private IPv4 or, for IPv6 groups, the first IPv6 address). Registration is
// idempotent; the actuator remembers what it registered so it is not redone on every resync.
import type { Instance } from '@aws-sdk/client-ec2';
import type { AddressHolderJudge } from './address-holder.js';
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
export async function registerWithLoadBalancers(
  ec2: Ec2Api,
  instance: Instance,
  lbs: LoadBalancerReference[],
  signal?: AbortSignal,
): Promise<void> {
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
  if (failures.length > 0)
    throw new Error(`failed to register instance ${id} with load balancers: ${failures.join('; ')}`);
}

/**
 * Removes the instance's ip targets before it terminates (instance targets drain by themselves).
 * A target group or target that is already gone is fine.
 */
export async function deregisterFromLoadBalancers(
  ec2: Ec2Api,
  instance: Instance,
  lbs: LoadBalancerReference[],
  signal?: AbortSignal,
): Promise<void> {
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
 * behind: EC2 drops a terminated instance from instance target groups by itself, never from ip ones. A freed
 * address may already belong to a new instance: its target stays only when that instance's Machine wants the
 * load balancer (or the instance is not this cluster's to judge), and goes when nobody asked for it.
 */
export async function deregisterEndedInstanceAddresses(
  ec2: Ec2Api,
  addresses: string[],
  lbs: LoadBalancerReference[],
  holders: AddressHolderJudge,
  signal?: AbortSignal,
): Promise<void> {
  const network = lbs.filter((l) => l.type === 'network').map((l) => l.name);
  if (network.length === 0 || addresses.length === 0) return;
  let balancers;
  try {
    balancers = await ec2.describeNetworkLoadBalancers(network, { signal });
  } catch (err) {
    if (classifyEc2Error(err) === 'notFound') return;
    throw err;
  }
  const liveStates = ['pending', 'running', 'stopping', 'stopped', 'shutting-down'];
  for (const address of addresses) {
    const live = await ec2.describeInstances(
      {
        filters: [
          { Name: 'private-ip-address', Values: [address] },
          { Name: 'instance-state-name', Values: liveStates },
        ],
      },
      { signal },
    );
    for (const lb of balancers) {
      let keep = false;
      for (const holder of live) if ((await holders.judge(holder, lb.name, signal)) !== 'unwanted') keep = true;
      if (keep) continue;
      try {
        for (const tg of (await ec2.describeTargetGroups(lb.arn, { signal })).filter((g) => g.targetType === 'ip')) {
          const registered = await ec2.describeTargetHealth(tg.arn, { signal });
          if (registered.includes(address)) await ec2.deregisterTarget(tg.arn, address, { signal });
        }
      } catch (err) {
        if (classifyEc2Error(err) !== 'notFound') throw err;
      }
    }
  }
}
