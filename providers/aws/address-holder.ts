// Whether a live instance that now holds an address an ended instance of ours left registered with a network
// load balancer wants that registration. EC2 hands a freed private address to the next instance in the
// subnet, so the leftover target may already serve another Machine of the same load balancer, or send this
// load balancer's traffic to an instance whose Machine never asked for it. Only the holder's own Machine can
// say: the holder wants the target when it is this cluster's instance of an existing Machine (the uid on the
// instance matching) whose providerSpec lists the load balancer. A holder that is not this cluster's is not
// ours to judge, and its target stays.
import type { Instance } from '@aws-sdk/client-ec2';
import { isNotFound, Machines, type KubeClient, type Machine } from '../../lib/index.js';
import { CLUSTER_TAG_PREFIX, MACHINE_UID_TAG, NAME_TAG } from './instances.js';
import { readProviderConfig } from './provider-spec.js';

export type AddressHolderVerdict =
  /** The holder's Machine lists the load balancer: the target is its own. */
  | 'wanted'
  /** The holder is this cluster's, and no Machine of it asks for the load balancer: the target is a leftover. */
  | 'unwanted'
  /** Not this cluster's instance, or a Machine whose spec cannot be read: leave the target alone. */
  | 'unknown';

export interface AddressHolderJudge {
  judge(holder: Instance, loadBalancerName: string, signal?: AbortSignal): Promise<AddressHolderVerdict>;
}

const tagOf = (i: Instance, key: string) => i.Tags?.find((t) => t.Key === key)?.Value;

/** Judges holders by their Machines in `namespace`, read live from the API server. */
export function machineAddressHolderJudge(
  client: KubeClient,
  namespace: string,
  clusterId: string,
): AddressHolderJudge {
  return {
    async judge(holder, loadBalancerName, signal) {
      if (!clusterId || tagOf(holder, `${CLUSTER_TAG_PREFIX}${clusterId}`) !== 'owned') return 'unknown';
      const name = tagOf(holder, NAME_TAG);
      const uid = tagOf(holder, MACHINE_UID_TAG);
      if (!name || !uid) return 'unknown';
      let machine: Machine;
      try {
        machine = await client.get(Machines, { namespace, name }, { signal });
      } catch (err) {
        if (isNotFound(err)) return 'unwanted';
        throw err;
      }
      if (machine.metadata?.uid !== uid) return 'unwanted';
      const spec = readProviderConfig(machine.spec?.providerSpec?.value);
      if (spec.errors.length > 0) return 'unknown';
      return (spec.config.loadBalancers ?? []).some((lb) => lb.type === 'network' && lb.name === loadBalancerName)
        ? 'wanted'
        : 'unwanted';
    },
  };
}
