// Reading and validating a RunInstances request, with EC2's error codes and wording: image, type, counts,
// network interface, placement, tags, block devices, market options, capacity and free addresses.
import { allocatePrivateIp, cidrContains } from '../addressing.js';
import { Ec2ApiError, invalidParameterCombination, invalidParameterValue, missingParameter } from '../api-error.js';
import type { Ec2State } from '../ec2-state.js';
import type { BlockDevice, Image, InstanceTypeSpec, SecurityGroup, Subnet, Tag } from '../model.js';
import type { QueryParams } from '../query-params.js';
import { checkIdFormat, oneOf, readTags } from '../validation.js';

const TAGGABLE_ON_LAUNCH = ['instance', 'volume', 'network-interface', 'spot-instances-request', 'elastic-gpu'] as const;
const VOLUME_TYPES = ['standard', 'gp2', 'gp3', 'io1', 'io2', 'st1', 'sc1'] as const;
export const USER_DATA_MAX_BYTES = 16384;
const MAX_COUNT_LIMIT = 100;
/** The emulated spot price is this fraction of the on-demand price. */
export const SPOT_PRICE_FACTOR = 0.3;

export function spotPrice(t: InstanceTypeSpec): number {
  return Math.round(t.onDemandPrice * SPOT_PRICE_FACTOR * 10000) / 10000;
}

export function usedPrivateIps(state: Ec2State, subnet: Subnet): Set<string> {
  return new Set(state.world.instances.filter((i) => i.subnetId === subnet.subnetId && i.state !== 'terminated').map((i) => i.privateIpAddress));
}

export function resolveImage(state: Ec2State, imageId: string | undefined): Image {
  if (imageId === undefined || imageId === '') throw missingParameter('ImageId');
  checkIdFormat(imageId, 'ami', 'InvalidAMIID.Malformed');
  const image = state.world.images.find((i) => i.imageId === imageId);
  if (!image) throw new Ec2ApiError(400, 'InvalidAMIID.NotFound', `The image id '[${imageId}]' does not exist`);
  if (image.state !== 'available') throw new Ec2ApiError(400, 'InvalidAMIID.Unavailable', `AMI '${imageId}' is not available (state: ${image.state})`);
  return image;
}

export function resolveInstanceType(state: Ec2State, name: string): InstanceTypeSpec {
  const t = state.world.instanceTypes.find((x) => x.instanceType === name);
  if (!t) throw invalidParameterValue(`Invalid value '${name}' for InstanceType.`);
  return t;
}

export function readCounts(params: QueryParams): { minCount: number; maxCount: number } {
  const minCount = params.int('MinCount');
  const maxCount = params.int('MaxCount');
  if (minCount === undefined) throw missingParameter('MinCount');
  if (maxCount === undefined) throw missingParameter('MaxCount');
  if (minCount < 1) throw invalidParameterValue(`Value (${minCount}) for parameter minCount is invalid. Expected a positive integer.`);
  if (maxCount < minCount) throw invalidParameterValue(`Value (${maxCount}) for parameter maxCount is invalid. It must be at least minCount (${minCount}).`);
  if (maxCount > MAX_COUNT_LIMIT) throw invalidParameterValue(`Value (${maxCount}) for parameter maxCount is invalid. The emulator launches at most ${MAX_COUNT_LIMIT} per request.`);
  return { minCount, maxCount };
}

export interface ResolvedNetwork {
  subnet: Subnet;
  securityGroups: SecurityGroup[];
  publicIp: boolean;
  carrierIp: boolean;
  interfaceType: string;
  ipv6Count: number;
  requestedPrivateIp?: string;
}

export function resolveNetwork(state: Ec2State, params: QueryParams): ResolvedNetwork {
  const world = state.world;
  const nics = params.structList('NetworkInterface');
  if (nics.length > 1) {
    throw new Ec2ApiError(400, 'Unsupported', 'The emulator supports exactly one network interface (DeviceIndex 0) per RunInstances request.');
  }
  const nic = nics[0];
  if (nic && params.get('SubnetId') !== undefined) {
    throw invalidParameterCombination('Network interfaces and an instance-level subnet ID may not be specified on the same request');
  }
  if (nic && (params.list('SecurityGroupId').length > 0 || params.list('SecurityGroup').length > 0)) {
    throw invalidParameterCombination('Network interfaces and an instance-level security groups may not be specified on the same request');
  }
  if (nic) {
    if (nic.get('NetworkInterfaceId') !== undefined) {
      throw new Ec2ApiError(400, 'Unsupported', 'Attaching an existing network interface is not supported by the emulator.');
    }
    const idx = nic.int('DeviceIndex');
    if (idx !== undefined && idx !== 0) throw invalidParameterValue(`Value (${idx}) for parameter deviceIndex is invalid. The primary network interface must use device index 0.`);
  }
  const src = nic ?? params;
  const subnetId = src.get('SubnetId');
  let subnet: Subnet | undefined;
  if (subnetId === undefined) {
    const defaultVpc = world.vpcs.find((v) => v.isDefault);
    if (!defaultVpc) throw new Ec2ApiError(400, 'VPCIdNotSpecified', 'No default VPC for this user. GroupName is only supported for EC2-Classic and default VPC.');
    const az = params.get('Placement.AvailabilityZone');
    subnet = world.subnets.find((s) => s.vpcId === defaultVpc.vpcId && (az === undefined || s.availabilityZone === az));
    if (!subnet) throw invalidParameterValue(`No default subnet for availability zone: '${az ?? ''}'.`);
  } else {
    checkIdFormat(subnetId, 'subnet', 'InvalidSubnetID.Malformed');
    subnet = world.subnets.find((s) => s.subnetId === subnetId);
    if (!subnet) throw new Ec2ApiError(400, 'InvalidSubnetID.NotFound', `The subnet ID '${subnetId}' does not exist`);
  }
  const sub = subnet;

  const groupIds = src.list('SecurityGroupId');
  const groupNames = nic ? [] : params.list('SecurityGroup');
  if (groupNames.length > 0 && !world.vpcs.find((v) => v.vpcId === sub.vpcId)?.isDefault) {
    throw invalidParameterCombination('The parameter groupName cannot be used with the parameter subnet');
  }
  let securityGroups: SecurityGroup[];
  if (groupIds.length === 0 && groupNames.length === 0) {
    const dflt = world.securityGroups.find((g) => g.vpcId === sub.vpcId && g.groupName === 'default');
    securityGroups = dflt ? [dflt] : [];
  } else {
    securityGroups = [
      ...groupIds.map((id) => {
        const g = world.securityGroups.find((x) => x.groupId === id && x.vpcId === sub.vpcId);
        if (!g) throw new Ec2ApiError(400, 'InvalidGroup.NotFound', `The security group '${id}' does not exist in VPC '${sub.vpcId}'`);
        return g;
      }),
      ...groupNames.map((name) => {
        const g = world.securityGroups.find((x) => x.groupName === name && x.vpcId === sub.vpcId);
        if (!g) throw new Ec2ApiError(400, 'InvalidGroup.NotFound', `The security group '${name}' does not exist in default VPC '${sub.vpcId}'`);
        return g;
      }),
    ];
  }

  const zone = world.availabilityZones.find((z) => z.zoneName === sub.availabilityZone);
  const assocPublic = nic?.bool('AssociatePublicIpAddress');
  const assocCarrier = nic?.bool('AssociateCarrierIpAddress') ?? false;
  if (assocCarrier && zone?.zoneType !== 'wavelength-zone') {
    throw invalidParameterValue(`AssociateCarrierIpAddress can only be used with a subnet in a Wavelength Zone; subnet '${sub.subnetId}' is in ${sub.availabilityZone}`);
  }
  if (assocCarrier && assocPublic) throw invalidParameterCombination('AssociatePublicIpAddress and AssociateCarrierIpAddress cannot both be specified');
  const interfaceType = oneOf(nic?.get('InterfaceType'), ['interface', 'efa', 'efa-only', 'trunk'] as const, 'networkInterface.interfaceType') ?? 'interface';

  let ipv6Count = src.int('Ipv6AddressCount') ?? (sub.assignIpv6AddressOnCreation ? 1 : 0);
  if (nic?.bool('PrimaryIpv6') === true && ipv6Count === 0) ipv6Count = 1;
  if (ipv6Count > 0 && !sub.ipv6CidrBlock) {
    throw invalidParameterValue(`The subnet '${sub.subnetId}' does not have an IPv6 CIDR block; Ipv6AddressCount cannot be used.`);
  }
  if (ipv6Count > 10) throw invalidParameterValue(`Value (${ipv6Count}) for parameter ipv6AddressCount is invalid.`);

  const requestedPrivateIp = src.get('PrivateIpAddress');
  if (requestedPrivateIp !== undefined && !cidrContains(sub.cidrBlock, requestedPrivateIp)) {
    throw new Ec2ApiError(400, 'InvalidParameterValue', `Address ${requestedPrivateIp} does not fall within the subnet's address range`);
  }
  return {
    subnet: sub,
    securityGroups,
    publicIp: assocPublic ?? (zone?.zoneType === 'wavelength-zone' ? false : sub.mapPublicIpOnLaunch),
    carrierIp: assocCarrier,
    interfaceType,
    ipv6Count,
    requestedPrivateIp,
  };
}

export interface ResolvedPlacement {
  availabilityZone: string;
  tenancy: 'default' | 'dedicated' | 'host';
  hostId?: string;
  affinity?: string;
  groupName?: string;
  partitionNumber?: number;
}

export function resolvePlacement(state: Ec2State, params: QueryParams, subnet: Subnet, type: InstanceTypeSpec): ResolvedPlacement {
  const p = params.struct('Placement');
  const az = p.get('AvailabilityZone');
  if (az !== undefined) {
    if (!state.world.availabilityZones.some((z) => z.zoneName === az)) throw invalidParameterValue(`Invalid availability zone: [${az}]`);
    if (az !== subnet.availabilityZone) {
      throw invalidParameterValue(
        `Value (${az}) for parameter availabilityZone is invalid. Subnet '${subnet.subnetId}' is in the availability zone ${subnet.availabilityZone}`,
      );
    }
  }
  const hostId = p.get('HostId');
  let tenancy = oneOf(p.get('Tenancy'), ['default', 'dedicated', 'host'] as const, 'placement.tenancy') ?? (hostId ? 'host' : 'default');
  const affinity = oneOf(p.get('Affinity'), ['default', 'host'] as const, 'placement.affinity');
  if (hostId !== undefined) {
    checkIdFormat(hostId, 'h', 'InvalidHostID.Malformed');
    const host = state.world.hosts.find((h) => h.hostId === hostId && h.state === 'available');
    if (!host) throw new Ec2ApiError(400, 'InvalidHostID.NotFound', `The host ID '${hostId}' does not exist`);
    if (host.availabilityZone !== subnet.availabilityZone) {
      throw invalidParameterValue(`Host '${hostId}' is in ${host.availabilityZone} but subnet '${subnet.subnetId}' is in ${subnet.availabilityZone}`);
    }
    if (host.instanceType !== type.instanceType) {
      throw invalidParameterValue(`Instance type ${type.instanceType} is not supported by host '${hostId}' (${host.instanceType})`);
    }
    if (tenancy !== 'host') throw invalidParameterCombination(`Placement.HostId requires tenancy 'host', got '${tenancy}'`);
    tenancy = 'host';
  } else if (affinity === 'host') {
    throw invalidParameterCombination('Affinity host requires a HostId');
  }
  return {
    availabilityZone: subnet.availabilityZone,
    tenancy,
    hostId,
    affinity,
    groupName: p.get('GroupName'),
    partitionNumber: p.int('PartitionNumber'),
  };
}

export function readTagSpecifications(params: QueryParams): Map<string, Tag[]> {
  const out = new Map<string, Tag[]>();
  for (const spec of params.structList('TagSpecification')) {
    const type = spec.get('ResourceType');
    if (type === undefined) throw missingParameter('TagSpecification.N.ResourceType');
    if (!(TAGGABLE_ON_LAUNCH as readonly string[]).includes(type)) {
      throw invalidParameterValue(`'${type}' is not a valid taggable resource type for this operation.`);
    }
    if (out.has(type)) throw invalidParameterValue(`The same resource type may not be specified more than once in tag specifications (${type}).`);
    const tags = readTags(spec, 'Tag', false);
    if (tags.length > 50) throw new Ec2ApiError(400, 'TagLimitExceeded', `The maximum number of Tags for a resource has been reached (${type}).`);
    out.set(type, tags);
  }
  return out;
}

export function readBlockDevices(params: QueryParams, image: Image): Omit<BlockDevice, 'volumeId'>[] {
  const out: Omit<BlockDevice, 'volumeId'>[] = [];
  let hasRoot = false;
  for (const m of params.structList('BlockDeviceMapping')) {
    const deviceName = m.get('DeviceName');
    if (!deviceName) throw missingParameter('BlockDeviceMapping.N.DeviceName');
    if (out.some((b) => b.deviceName === deviceName)) {
      throw new Ec2ApiError(400, 'InvalidBlockDeviceMapping', `The device '${deviceName}' is used in more than one block-device mapping`);
    }
    if (m.get('NoDevice') !== undefined || m.get('VirtualName') !== undefined) continue;
    const isRoot = deviceName === image.rootDeviceName;
    hasRoot ||= isRoot;
    const volumeType = oneOf(m.get('Ebs.VolumeType'), VOLUME_TYPES, 'blockDeviceMapping.ebs.volumeType') ?? 'gp3';
    const size = m.int('Ebs.VolumeSize') ?? (isRoot ? image.rootVolumeSizeGiB : undefined);
    if (size === undefined) throw new Ec2ApiError(400, 'InvalidBlockDeviceMapping', `The device '${deviceName}' needs Ebs.VolumeSize (there is no snapshot to size it from)`);
    if (size < 1 || size > 16384) throw invalidParameterValue(`Value (${size}) for parameter volumeSize is invalid. Expected 1-16384 GiB.`);
    if (isRoot && size < image.rootVolumeSizeGiB) {
      throw new Ec2ApiError(
        400,
        'InvalidBlockDeviceMapping',
        `Volume of size ${size}GB is smaller than snapshot '${image.snapshotId}', expect size >= ${image.rootVolumeSizeGiB}GB`,
      );
    }
    const iops = m.int('Ebs.Iops');
    if (iops !== undefined && !['io1', 'io2', 'gp3'].includes(volumeType)) {
      throw invalidParameterCombination(`The parameter iops is not supported for ${volumeType} volumes.`);
    }
    if ((volumeType === 'io1' || volumeType === 'io2') && iops === undefined) {
      throw missingParameter('iops (required for io1 and io2 volumes)');
    }
    const throughput = m.int('Ebs.Throughput');
    if (throughput !== undefined && volumeType !== 'gp3') {
      throw invalidParameterCombination(`The parameter throughput is not supported for ${volumeType} volumes.`);
    }
    const kmsKeyId = m.get('Ebs.KmsKeyId');
    const encrypted = m.bool('Ebs.Encrypted') ?? false;
    if (kmsKeyId !== undefined && !encrypted) {
      throw new Ec2ApiError(400, 'InvalidParameterDependency', 'The parameter KmsKeyId requires the parameter Encrypted to be set.');
    }
    out.push({ deviceName, volumeSizeGiB: size, volumeType, encrypted, deleteOnTermination: m.bool('Ebs.DeleteOnTermination') ?? true, iops, throughput, kmsKeyId });
  }
  if (!hasRoot) {
    out.unshift({ deviceName: image.rootDeviceName, volumeSizeGiB: image.rootVolumeSizeGiB, volumeType: 'gp3', encrypted: false, deleteOnTermination: true });
  }
  return out;
}

export function readMarketOptions(
  params: QueryParams,
  type: InstanceTypeSpec,
): { lifecycle?: 'spot'; interruptionBehavior?: 'terminate' | 'stop' | 'hibernate'; capacityBlock: boolean } {
  const m = params.struct('InstanceMarketOptions');
  const marketType = oneOf(m.get('MarketType'), ['spot', 'capacity-block'] as const, 'instanceMarketOptions.marketType');
  if (marketType === undefined) {
    if (m.has('SpotOptions')) throw missingParameter('InstanceMarketOptions.MarketType');
    return { capacityBlock: false };
  }
  if (marketType === 'capacity-block') return { capacityBlock: true };
  const spotType = oneOf(m.get('SpotOptions.SpotInstanceType'), ['one-time', 'persistent'] as const, 'spotOptions.spotInstanceType') ?? 'one-time';
  const behavior = oneOf(m.get('SpotOptions.InstanceInterruptionBehavior'), ['terminate', 'stop', 'hibernate'] as const, 'spotOptions.instanceInterruptionBehavior') ?? 'terminate';
  if (spotType === 'one-time' && behavior !== 'terminate') {
    throw invalidParameterCombination(`InstanceInterruptionBehavior '${behavior}' requires SpotInstanceType 'persistent'.`);
  }
  const maxPrice = m.num('SpotOptions.MaxPrice');
  const price = spotPrice(type);
  if (maxPrice !== undefined && maxPrice < price) {
    throw new Ec2ApiError(
      400,
      'SpotMaxPriceTooLow',
      `Your Spot request price of ${maxPrice} is lower than the minimum required Spot request fulfillment price of ${price}.`,
    );
  }
  return { lifecycle: 'spot', interruptionBehavior: behavior, capacityBlock: false };
}

export function checkCapacity(state: Ec2State, type: InstanceTypeSpec, zone: string, lifecycle: 'spot' | undefined, minCount: number): void {
  if (state.capacity.isExhausted(type.instanceType, zone)) {
    throw new Ec2ApiError(
      500,
      'InsufficientInstanceCapacity',
      `We currently do not have sufficient ${type.instanceType} capacity in the Availability Zone you requested (${zone}). Our system will be working on provisioning additional capacity. You can currently get ${type.instanceType} capacity by not specifying an Availability Zone in your request or choosing a different Availability Zone.`,
    );
  }
  if (state.vcpuLimit !== undefined && lifecycle !== 'spot') {
    const used = state.world.instances
      .filter((i) => !i.lifecycle && (i.state === 'pending' || i.state === 'running'))
      .reduce((sum, i) => sum + (state.world.instanceTypes.find((t) => t.instanceType === i.instanceType)?.vCpus ?? 0), 0);
    if (used + type.vCpus * minCount > state.vcpuLimit) {
      throw new Ec2ApiError(
        400,
        'VcpuLimitExceeded',
        `You have requested more vCPU capacity than your current vCPU limit of ${state.vcpuLimit} allows for the instance bucket that the specified instance type belongs to. Please visit http://aws.amazon.com/contact-us/ec2-request to request an adjustment to this limit.`,
      );
    }
  }
}

export function countFreeIps(state: Ec2State, subnet: Subnet, requested: string | undefined, minCount: number): number {
  const used = usedPrivateIps(state, subnet);
  if (requested !== undefined && used.has(requested)) {
    throw new Ec2ApiError(400, 'InvalidIPAddress.InUse', `Address ${requested} is in use.`);
  }
  let free = 0;
  const probe = new Set(used);
  for (;;) {
    const ip = allocatePrivateIp(subnet, probe);
    if (!ip || free >= MAX_COUNT_LIMIT) break;
    probe.add(ip);
    free++;
  }
  if (free < minCount) {
    throw new Ec2ApiError(400, 'InsufficientFreeAddressesInSubnet', `There are not enough free addresses in subnet '${subnet.subnetId}' to satisfy the requested number of instances.`);
  }
  return free;
}
