// The emulator's instances as the KubeletSimulator sees them: one would-be Node per instance, named after the
// instance, with the providerID the IBM actuator writes: ibm://<account>///<clusterID>/<instance id>.
import type { NodeAddress } from '../../lib/index.js';
import type { EmulatedInstance, EmulatedInstanceState, InstanceView } from '../kit/index.js';
import type { InstanceStatus } from '../../providers/ibmcloud/vpc-types.js';
import type { IbmWorld, InstanceRec } from './model.js';
import { UNALLOCATED_IP, type VpcState } from './vpc-state.js';

const STATES: Record<InstanceStatus, EmulatedInstanceState> = {
  pending: 'pending',
  starting: 'pending',
  running: 'running',
  restarting: 'running',
  stopping: 'stopping',
  stopped: 'stopped',
  failed: 'stopped',
  deleting: 'terminating',
};

export function ibmProviderId(world: IbmWorld, instanceId: string): string {
  return `ibm://${world.accountId}///${world.clusterId}/${instanceId}`;
}

export function toEmulatedInstance(world: IbmWorld, inst: InstanceRec): EmulatedInstance {
  const addresses: NodeAddress[] = [];
  // Until the VPC allocates the address it reports 0.0.0.0, which must never reach a Node.
  if (inst.ip !== UNALLOCATED_IP) addresses.push({ type: 'InternalIP', address: inst.ip });
  addresses.push({ type: 'InternalDNS', address: inst.name }, { type: 'Hostname', address: inst.name });
  const profile = world.profiles.find((p) => p.name === inst.profile);
  const arch = profile?.architecture ?? 'amd64';
  return {
    providerID: ibmProviderId(world, inst.id),
    nodeName: inst.name,
    state: STATES[inst.status],
    addresses,
    labels: {
      'node.kubernetes.io/instance-type': inst.profile,
      'topology.kubernetes.io/region': world.region,
      'topology.kubernetes.io/zone': inst.zone,
      'kubernetes.io/arch': arch,
      'kubernetes.io/os': 'linux',
    },
    // IBM profiles give memory in GiB.
    ...(profile
      ? { capacity: { cpu: profile.vcpu, memoryMiB: profile.memory * 1024, gpus: profile.gpu?.count ?? 0 } }
      : {}),
  };
}

export function instanceViewOf(st: VpcState): InstanceView {
  return {
    listInstances: () => st.world.instances.map((i) => toEmulatedInstance(st.world, i)),
    onChange: (listener) => st.onChange(listener),
  };
}
