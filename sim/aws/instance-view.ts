// The emulator's instances as the KubeletSimulator sees them: one would-be Node per instance.
import type { NodeAddress } from '../../lib/index.js';
import type { EmulatedInstance, EmulatedInstanceState, InstanceView } from '../kit/index.js';
import type { Ec2State } from './ec2-state.js';
import type { Ec2Instance, InstanceTypeSpec } from './model.js';

const STATES: Record<Ec2Instance['state'], EmulatedInstanceState> = {
  pending: 'pending',
  running: 'running',
  stopping: 'stopping',
  stopped: 'stopped',
  'shutting-down': 'terminating',
  terminated: 'terminated',
};

export function toEmulatedInstance(inst: Ec2Instance, region: string, type?: InstanceTypeSpec): EmulatedInstance {
  const addresses: NodeAddress[] = [{ type: 'InternalIP', address: inst.privateIpAddress }];
  for (const ip of inst.ipv6Addresses) addresses.push({ type: 'InternalIP', address: ip });
  if (inst.publicIpAddress) addresses.push({ type: 'ExternalIP', address: inst.publicIpAddress });
  addresses.push(
    { type: 'InternalDNS', address: inst.privateDnsName },
    { type: 'Hostname', address: inst.privateDnsName },
  );
  if (inst.publicDnsName) addresses.push({ type: 'ExternalDNS', address: inst.publicDnsName });
  return {
    providerID: `aws:///${inst.availabilityZone}/${inst.instanceId}`,
    nodeName: inst.privateDnsName,
    state: STATES[inst.state],
    addresses,
    labels: {
      'node.kubernetes.io/instance-type': inst.instanceType,
      'topology.kubernetes.io/region': region,
      'topology.kubernetes.io/zone': inst.availabilityZone,
      'kubernetes.io/arch': inst.architecture === 'arm64' ? 'arm64' : 'amd64',
      'kubernetes.io/os': 'linux',
    },
    ...(type
      ? {
          capacity: {
            cpu: type.vCpus,
            memoryMiB: type.memoryMiB,
            gpus: (type.gpus ?? []).reduce((n, g) => n + g.count, 0),
          },
        }
      : {}),
  };
}

export function instanceViewOf(state: Ec2State): InstanceView {
  return {
    listInstances: () => {
      const types = new Map(state.world.instanceTypes.map((t) => [t.instanceType, t]));
      return state.world.instances.map((i) => toEmulatedInstance(i, state.region, types.get(i.instanceType)));
    },
    onChange: (listener) => state.onChange(listener),
  };
}
