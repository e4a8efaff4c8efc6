// Pure functions from a Machine and its decoded providerSpec to VPC requests, and from an instance back to
// what the Machine records (providerID, addresses, labels, tags). No I/O here.
import {
  InvalidMachineConfigurationError,
  keepBootingState,
  machineClusterId,
  placementLabels,
  type Machine,
  type NodeAddress,
  type SizeLimit,
} from '../../lib/index.js';
import { VPC_NAME } from './provider-spec-validation.js';
import { DEFAULT_BOOT_VOLUME_PROFILE, type IBMCloudMachineProviderSpec } from './provider-spec.js';
import type { InstancePrototype, VpcInstance } from './vpc-types.js';

/** What the VPC reports as the primary address until one is allocated. */
export const UNALLOCATED_IP = '0.0.0.0';

/** The VPC takes at most 64 KB of an instance's user_data. */
export const VPC_USER_DATA_LIMIT: SizeLimit = { maxBytes: 65_536, what: 'IBM Cloud VPC instance user_data' };

/** The names of the spec resolved to ids (name-resolver.ts). */
export interface ResolvedIds {
  resourceGroupId: string;
  vpcId: string;
  imageId: string;
  subnetId: string;
  securityGroupIds: string[];
  dedicatedHostId?: string;
}

/** The Machine's cluster label; required. */
export const clusterIdOf = (machine: Machine): string =>
  machineClusterId(machine, 'failed validating machine provider spec');

/** The instance name: the Machine name, which the VPC keeps unique per VPC (the idempotency key). */
export function instanceNameOf(machine: Machine): string {
  const name = machine.metadata.name ?? '';
  if (name.length > 63 || !VPC_NAME.test(name)) {
    throw new InvalidMachineConfigurationError(
      `metadata.name: Invalid value: ${JSON.stringify(name)}: the machine name is the VPC instance name, so it must be at most 63 lower-case letters, digits and "-", starting with a letter`,
      { field: 'metadata.name' },
    );
  }
  return name;
}

/** ibm://<account>///<clusterID>/<instance id>: three slashes after the account, as cloud-provider-ibm writes it. */
export const providerIdOf = (accountId: string, clusterId: string, instanceId: string): string =>
  `ibm://${accountId}///${clusterId}/${instanceId}`;

/** User tags as Global Tagging wants them: "name:value", or "name" alone. */
export const tagNamesOf = (spec: IBMCloudMachineProviderSpec): string[] =>
  (spec.tags ?? []).map((t) => (t.value ? `${t.name}:${t.value}` : t.name));

/** POST /instances body (InstancePrototypeInstanceByImage), as the reference sends it. */
export function buildInstancePrototype(
  name: string,
  spec: IBMCloudMachineProviderSpec,
  ids: ResolvedIds,
  userData: string,
): InstancePrototype {
  const prototype: InstancePrototype = {
    name,
    image: { id: ids.imageId },
    profile: { name: spec.profile },
    zone: { name: spec.zone },
    resource_group: { id: ids.resourceGroupId },
    vpc: { id: ids.vpcId },
    primary_network_interface: {
      subnet: { id: ids.subnetId },
      ...(ids.securityGroupIds.length > 0 ? { security_groups: ids.securityGroupIds.map((id) => ({ id })) } : {}),
    },
    user_data: userData,
  };
  const b = spec.bootVolume;
  if (b && (b.encryptionKey || b.profile || b.sizeGiB || b.iops || b.bandwidth)) {
    prototype.boot_volume_attachment = {
      volume: {
        profile: { name: b.profile ?? DEFAULT_BOOT_VOLUME_PROFILE },
        ...(b.sizeGiB ? { capacity: b.sizeGiB } : {}),
        ...(b.iops ? { iops: b.iops } : {}),
        ...(b.bandwidth ? { bandwidth: b.bandwidth } : {}),
        ...(b.encryptionKey ? { encryption_key: { crn: b.encryptionKey } } : {}),
      },
    };
  }
  if (ids.dedicatedHostId) prototype.placement_target = { id: ids.dedicatedHostId };
  return prototype;
}

/**
 * InternalIP (once allocated: the reference stores "0.0.0.0" while the instance is pending) and the machine
 * name as InternalDNS.
 */
export function addressesOf(machineName: string, instance: VpcInstance): NodeAddress[] {
  const ip = instance.primary_network_interface?.primary_ip?.address;
  const out: NodeAddress[] = [{ type: 'InternalDNS', address: machineName }];
  if (ip && ip !== UNALLOCATED_IP) out.push({ type: 'InternalIP', address: ip });
  return out;
}

const BOOTING: ReadonlySet<string> = new Set(['pending', 'starting']);

/**
 * The state to record on the Machine: a boot's pending → starting step keeps the state recorded (lib's
 * stateToRecord); the address the VPC allocates with it is still recorded at once.
 */
export const stateToRecord = (recorded: string | null | undefined, instance: VpcInstance): string =>
  keepBootingState(recorded, instance.status, BOOTING);

/** Whether the VPC's instance is still booting (pending, or starting with its address allocated). */
export const isBooting = (instance: VpcInstance): boolean => BOOTING.has(instance.status);

/** The region, zone and instance-type labels, from the spec as in the reference. */
export function machineLabelsFor(spec: IBMCloudMachineProviderSpec): Record<string, string> {
  return placementLabels({ region: spec.region, zone: spec.zone, instanceType: spec.profile });
}
