// The emulator's instances as the KubeletSimulator sees them: one would-be Node per instance, named like the
// instance, with the providerID and addresses the GCE cloud provider gives it.
import type { NodeAddress } from '../../lib/index.js';
import type { EmulatedInstance, EmulatedInstanceState, InstanceView } from '../kit/index.js';
import type { GceState } from './gce-state.js';
import { lastSegment, str } from './links.js';
import type { GceInstance, InstanceStatus, MachineTypeSpec } from './model.js';

const STATES: Record<InstanceStatus, EmulatedInstanceState> = {
  PROVISIONING: 'pending',
  STAGING: 'pending',
  RUNNING: 'running',
  REPAIRING: 'running',
  STOPPING: 'stopping',
  SUSPENDING: 'stopping',
  SUSPENDED: 'stopped',
  // GCE's TERMINATED is a stopped VM that can be started again.
  TERMINATED: 'stopped',
};

export function internalDnsName(name: string, zone: string, project: string): string {
  return `${name}.${zone}.c.${project}.internal`;
}

export function toEmulatedInstance(inst: GceInstance, region: string, type?: MachineTypeSpec): EmulatedInstance {
  const r = inst.resource;
  const nics =
    (r.networkInterfaces as { networkIP?: string; accessConfigs?: { natIP?: string }[] }[] | undefined) ?? [];
  const addresses: NodeAddress[] = [];
  const nic0 = nics[0];
  if (nic0?.networkIP) addresses.push({ type: 'InternalIP', address: nic0.networkIP });
  for (const ac of nic0?.accessConfigs ?? []) if (ac.natIP) addresses.push({ type: 'ExternalIP', address: ac.natIP });
  const dns = internalDnsName(inst.name, inst.zone, inst.project);
  addresses.push({ type: 'InternalDNS', address: dns }, { type: 'Hostname', address: inst.name });
  const status = r.status as InstanceStatus;
  const machineType = lastSegment(str(r.machineType));
  const arm = str(r.cpuPlatform).startsWith('Ampere');
  return {
    providerID: `gce://${inst.project}/${inst.zone}/${inst.name}`,
    nodeName: inst.name,
    state: inst.deleting ? 'terminating' : STATES[status],
    addresses,
    labels: {
      'node.kubernetes.io/instance-type': machineType,
      'topology.kubernetes.io/region': region,
      'topology.kubernetes.io/zone': inst.zone,
      'kubernetes.io/arch': arm ? 'arm64' : 'amd64',
      'kubernetes.io/os': 'linux',
    },
    ...(type ? { capacity: { cpu: type.guestCpus, memoryMiB: type.memoryMb, gpus: gpusOf(type, r) } } : {}),
  };
}

/** GPUs built into the machine type (A2, A3, G2) plus those attached to the instance (N1). */
function gpusOf(type: MachineTypeSpec, r: Record<string, unknown>): number {
  const attached = (r.guestAccelerators as { acceleratorCount?: number }[] | undefined) ?? [];
  return [
    ...(type.accelerators ?? []).map((a) => a.guestAcceleratorCount),
    ...attached.map((a) => Number(a.acceleratorCount ?? 0)),
  ].reduce((n, c) => n + c, 0);
}

export function instanceViewOf(state: GceState): InstanceView {
  return {
    listInstances: () => {
      const types = new Map(state.world.machineTypes.map((t) => [t.name, t]));
      return state.world.instances.map((i) =>
        toEmulatedInstance(i, state.regionOf(i.zone), types.get(lastSegment(str(i.resource.machineType)))),
      );
    },
    onChange: (listener) => state.onChange(listener),
  };
}
