// Records → VPC API JSON, with hrefs under the emulator's own /v1 base URL.
import type {
  DedicatedHost,
  Image,
  InstanceProfile,
  SecurityGroup,
  Subnet,
  Vpc,
  VpcInstance,
} from '../../providers/ibmcloud/vpc-types.js';
import type {
  DedicatedHostRec,
  IbmWorld,
  ImageRec,
  InstanceRec,
  ProfileRec,
  SecurityGroupRec,
  SubnetRec,
  VpcRec,
} from './model.js';
import { crn } from './vpc-state.js';

export interface RenderContext {
  world: IbmWorld;
  /** e.g. "http://127.0.0.1:1234/v1". */
  base: string;
}

const iso = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

/**
 * How a VPC resource names itself, and how others reference it: id, CRN, href and name. `type` is the resource
 * type (`dedicated_host`); its CRN type is kebab-case and its collection the plural; `scope` is its zone or the
 * region.
 */
function identity(r: RenderContext, type: string, scope: string, x: { id: string; name: string }) {
  return {
    id: x.id,
    crn: crn(r.world, scope, type.replaceAll('_', '-'), x.id),
    href: `${r.base}/${type}s/${x.id}`,
    name: x.name,
  };
}

function rgRef(r: RenderContext, id: string | undefined) {
  const rg = r.world.resourceGroups.find((g) => g.id === id);
  return {
    id: id ?? '',
    href: `https://resource-controller.cloud.ibm.com/v2/resource_groups/${id ?? ''}`,
    name: rg?.name ?? '',
  };
}

function vpcRef(r: RenderContext, id: string) {
  const v = r.world.vpcs.find((x) => x.id === id);
  return { ...identity(r, 'vpc', r.world.region, { id, name: v?.name ?? '' }), resource_type: 'vpc' };
}

const zoneRef = (r: RenderContext, name: string) => ({
  name,
  href: `${r.base}/regions/${r.world.region}/zones/${name}`,
});

export function renderProfile(r: RenderContext, p: ProfileRec): InstanceProfile & Record<string, unknown> {
  const gpu = p.gpu
    ? {
        gpu_count: { type: 'fixed', value: p.gpu.count },
        gpu_manufacturer: { type: 'enum', values: [p.gpu.manufacturer] },
        gpu_model: { type: 'enum', values: [p.gpu.model] },
        gpu_memory: { type: 'fixed', value: p.gpu.memoryGiB },
      }
    : {};
  return {
    name: p.name,
    href: `${r.base}/instance/profiles/${p.name}`,
    family: p.family,
    status: 'current',
    vcpu_count: { type: 'fixed', value: p.vcpu },
    memory: { type: 'fixed', value: p.memory },
    vcpu_architecture: { type: 'fixed', value: p.architecture },
    vcpu_manufacturer: { type: 'fixed', value: p.vcpuManufacturer },
    os_architecture: { type: 'enum', default: p.architecture, values: [p.architecture] },
    bandwidth: { type: 'fixed', value: p.bandwidthGbps * 1000 },
    disks: [],
    ...gpu,
  };
}

export function renderInstance(r: RenderContext, i: InstanceRec): VpcInstance & Record<string, unknown> {
  const profile = r.world.profiles.find((p) => p.name === i.profile);
  const subnet = r.world.subnets.find((s) => s.id === i.subnetId);
  const image = r.world.images.find((m) => m.id === i.imageId);
  const nic = {
    id: i.nicId,
    href: `${r.base}/instances/${i.id}/network_interfaces/${i.nicId}`,
    name: 'eth0',
    resource_type: 'network_interface',
    primary_ip: {
      address: i.ip,
      href: `${r.base}/subnets/${i.subnetId}/reserved_ips/${i.nicId}`,
      id: i.nicId,
      name: `${i.name}-ip`,
      resource_type: 'subnet_reserved_ip',
    },
    subnet: { ...identity(r, 'subnet', i.zone, { id: i.subnetId, name: subnet?.name ?? '' }), resource_type: 'subnet' },
  };
  const host = i.dedicatedHostId ? r.world.dedicatedHosts.find((h) => h.id === i.dedicatedHostId) : undefined;
  const hostRef = host
    ? { ...identity(r, 'dedicated_host', host.zone, host), resource_type: 'dedicated_host' }
    : undefined;
  const lifecycle =
    i.status === 'deleting'
      ? 'deleting'
      : i.status === 'failed'
        ? 'failed'
        : i.status === 'pending'
          ? 'pending'
          : 'stable';
  return {
    ...identity(r, 'instance', i.zone, i),
    resource_type: 'instance',
    status: i.status,
    status_reasons: i.statusReasons,
    lifecycle_state: lifecycle,
    lifecycle_reasons: [],
    created_at: iso(i.createdAt),
    startable: true,
    profile: { name: i.profile, href: `${r.base}/instance/profiles/${i.profile}` },
    vcpu: {
      architecture: profile?.architecture ?? 'amd64',
      count: profile?.vcpu ?? 0,
      manufacturer: profile?.vcpuManufacturer ?? 'intel',
    },
    memory: profile?.memory ?? 0,
    bandwidth: (profile?.bandwidthGbps ?? 0) * 1000,
    zone: zoneRef(r, i.zone),
    vpc: vpcRef(r, i.vpcId),
    resource_group: rgRef(r, i.resourceGroupId),
    image: image ? identity(r, 'image', r.world.region, image) : undefined,
    primary_network_interface: nic,
    network_interfaces: [nic],
    boot_volume_attachment: {
      id: `${i.nicId}-boot`,
      name: `${i.name}-boot`,
      device: { id: `${i.nicId}-boot-device` },
      volume: { id: `${i.nicId}-vol`, name: `${i.name}-boot`, crn: crn(r.world, i.zone, 'volume', `${i.nicId}-vol`) },
    },
    volume_attachments: [],
    disks: [],
    availability_policy: { host_failure: 'restart' },
    metadata_service: { enabled: false, protocol: 'http', response_hop_limit: 1 },
    ...(hostRef ? { dedicated_host: hostRef, placement_target: hostRef } : {}),
  };
}

export function renderVpc(r: RenderContext, v: VpcRec): Vpc & Record<string, unknown> {
  return {
    ...vpcRef(r, v.id),
    status: 'available',
    classic_access: false,
    created_at: iso(v.createdAt),
    resource_group: rgRef(r, v.resourceGroupId),
    default_security_group: (() => {
      const sg = r.world.securityGroups.find((s) => s.vpcId === v.id);
      return sg ? { id: sg.id, name: sg.name, href: `${r.base}/security_groups/${sg.id}` } : undefined;
    })(),
  };
}

export function renderSubnet(r: RenderContext, s: SubnetRec): Subnet & Record<string, unknown> {
  return {
    ...identity(r, 'subnet', s.zone, s),
    resource_type: 'subnet',
    status: 'available',
    ipv4_cidr_block: s.cidr,
    vpc: vpcRef(r, s.vpcId),
    zone: zoneRef(r, s.zone),
    resource_group: rgRef(r, s.resourceGroupId),
  };
}

export function renderSecurityGroup(r: RenderContext, g: SecurityGroupRec): SecurityGroup & Record<string, unknown> {
  return {
    ...identity(r, 'security_group', r.world.region, g),
    vpc: vpcRef(r, g.vpcId),
    resource_group: rgRef(r, g.resourceGroupId),
    rules: [],
    targets: [],
  };
}

export function renderImage(r: RenderContext, m: ImageRec): Image & Record<string, unknown> {
  return {
    ...identity(r, 'image', r.world.region, m),
    status: m.status,
    visibility: m.visibility,
    encryption: 'none',
    minimum_provisioned_size: m.minimumProvisionedSize,
    operating_system: { name: m.osName, architecture: m.architecture },
    ...(m.resourceGroupId ? { resource_group: rgRef(r, m.resourceGroupId) } : {}),
  };
}

export function renderDedicatedHost(r: RenderContext, h: DedicatedHostRec): DedicatedHost & Record<string, unknown> {
  return {
    ...identity(r, 'dedicated_host', h.zone, h),
    zone: zoneRef(r, h.zone),
    resource_group: rgRef(r, h.resourceGroupId),
    state: 'available',
    lifecycle_state: 'stable',
    instance_placement_enabled: h.instancePlacementEnabled,
    supported_instance_profiles: h.supportedProfiles.map((name) => ({
      name,
      href: `${r.base}/instance/profiles/${name}`,
    })),
  };
}
