// Reading and validating a RunInstances request, with EC2's error codes and wording: image, type, counts,
// placement, tags, market options, capacity and free addresses (the network and the block devices are read
// beside this file).
import { freePrivateIpCount } from '../addressing.js';
import { Ec2ApiError, invalidParameterCombination, invalidParameterValue, missingParameter } from '../api-error.js';
import type { Ec2State } from '../ec2-state.js';
import type { Image, InstanceTypeSpec, Subnet, Tag } from '../model.js';
import type { QueryParams } from '../query-params.js';
import { checkIdFormat, oneOf, readTags } from '../validation.js';

const TAGGABLE_ON_LAUNCH = [
  'instance',
  'volume',
  'network-interface',
  'spot-instances-request',
  'elastic-gpu',
] as const;
export const USER_DATA_MAX_BYTES = 16384;
const MAX_COUNT_LIMIT = 100;
/** The emulated spot price is this fraction of the on-demand price. */
export const SPOT_PRICE_FACTOR = 0.3;

export function spotPrice(t: InstanceTypeSpec): number {
  return Math.round(t.onDemandPrice * SPOT_PRICE_FACTOR * 10000) / 10000;
}

export function usedPrivateIps(state: Ec2State, subnet: Subnet): Set<string> {
  return new Set(
    state.world.instances
      .filter((i) => i.subnetId === subnet.subnetId && i.state !== 'terminated')
      .map((i) => i.privateIpAddress),
  );
}

export function resolveImage(state: Ec2State, imageId: string | undefined): Image {
  if (imageId === undefined || imageId === '') throw missingParameter('ImageId');
  checkIdFormat(imageId, 'ami', 'InvalidAMIID.Malformed');
  const image = state.world.images.find((i) => i.imageId === imageId);
  if (!image) throw new Ec2ApiError(400, 'InvalidAMIID.NotFound', `The image id '[${imageId}]' does not exist`);
  if (image.state !== 'available')
    throw new Ec2ApiError(400, 'InvalidAMIID.Unavailable', `AMI '${imageId}' is not available (state: ${image.state})`);
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
  if (minCount < 1)
    throw invalidParameterValue(`Value (${minCount}) for parameter minCount is invalid. Expected a positive integer.`);
  if (maxCount < minCount)
    throw invalidParameterValue(
      `Value (${maxCount}) for parameter maxCount is invalid. It must be at least minCount (${minCount}).`,
    );
  if (maxCount > MAX_COUNT_LIMIT)
    throw invalidParameterValue(
      `Value (${maxCount}) for parameter maxCount is invalid. The emulator launches at most ${MAX_COUNT_LIMIT} per request.`,
    );
  return { minCount, maxCount };
}

export interface ResolvedPlacement {
  availabilityZone: string;
  tenancy: 'default' | 'dedicated' | 'host';
  hostId?: string;
  affinity?: string;
  groupName?: string;
  partitionNumber?: number;
}

export function resolvePlacement(
  state: Ec2State,
  params: QueryParams,
  subnet: Subnet,
  type: InstanceTypeSpec,
): ResolvedPlacement {
  const p = params.struct('Placement');
  const az = p.get('AvailabilityZone');
  if (az !== undefined) {
    if (!state.world.availabilityZones.some((z) => z.zoneName === az))
      throw invalidParameterValue(`Invalid availability zone: [${az}]`);
    if (az !== subnet.availabilityZone) {
      throw invalidParameterValue(
        `Value (${az}) for parameter availabilityZone is invalid. Subnet '${subnet.subnetId}' is in the availability zone ${subnet.availabilityZone}`,
      );
    }
  }
  const hostId = p.get('HostId');
  let tenancy =
    oneOf(p.get('Tenancy'), ['default', 'dedicated', 'host'] as const, 'placement.tenancy') ??
    (hostId ? 'host' : 'default');
  const affinity = oneOf(p.get('Affinity'), ['default', 'host'] as const, 'placement.affinity');
  if (hostId !== undefined) {
    checkIdFormat(hostId, 'h', 'InvalidHostID.Malformed');
    const host = state.world.hosts.find((h) => h.hostId === hostId && h.state === 'available');
    if (!host) throw new Ec2ApiError(400, 'InvalidHostID.NotFound', `The host ID '${hostId}' does not exist`);
    if (host.availabilityZone !== subnet.availabilityZone) {
      throw invalidParameterValue(
        `Host '${hostId}' is in ${host.availabilityZone} but subnet '${subnet.subnetId}' is in ${subnet.availabilityZone}`,
      );
    }
    if (host.instanceType !== type.instanceType) {
      throw invalidParameterValue(
        `Instance type ${type.instanceType} is not supported by host '${hostId}' (${host.instanceType})`,
      );
    }
    if (tenancy !== 'host')
      throw invalidParameterCombination(`Placement.HostId requires tenancy 'host', got '${tenancy}'`);
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
    if (out.has(type))
      throw invalidParameterValue(
        `The same resource type may not be specified more than once in tag specifications (${type}).`,
      );
    const tags = readTags(spec, 'Tag', false);
    if (tags.length > 50)
      throw new Ec2ApiError(
        400,
        'TagLimitExceeded',
        `The maximum number of Tags for a resource has been reached (${type}).`,
      );
    out.set(type, tags);
  }
  return out;
}

export function readMarketOptions(
  params: QueryParams,
  type: InstanceTypeSpec,
): { lifecycle?: 'spot'; interruptionBehavior?: 'terminate' | 'stop' | 'hibernate'; capacityBlock: boolean } {
  const m = params.struct('InstanceMarketOptions');
  const marketType = oneOf(
    m.get('MarketType'),
    ['spot', 'capacity-block'] as const,
    'instanceMarketOptions.marketType',
  );
  if (marketType === undefined) {
    if (m.has('SpotOptions')) throw missingParameter('InstanceMarketOptions.MarketType');
    return { capacityBlock: false };
  }
  if (marketType === 'capacity-block') return { capacityBlock: true };
  const spotType =
    oneOf(m.get('SpotOptions.SpotInstanceType'), ['one-time', 'persistent'] as const, 'spotOptions.spotInstanceType') ??
    'one-time';
  const behavior =
    oneOf(
      m.get('SpotOptions.InstanceInterruptionBehavior'),
      ['terminate', 'stop', 'hibernate'] as const,
      'spotOptions.instanceInterruptionBehavior',
    ) ?? 'terminate';
  if (spotType === 'one-time' && behavior !== 'terminate') {
    throw invalidParameterCombination(
      `InstanceInterruptionBehavior '${behavior}' requires SpotInstanceType 'persistent'.`,
    );
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

export function checkCapacity(
  state: Ec2State,
  type: InstanceTypeSpec,
  zone: string,
  lifecycle: 'spot' | undefined,
  minCount: number,
): void {
  if (state.capacity.isExhausted(type.instanceType, zone, lifecycle === 'spot' ? 'spot' : 'on-demand')) {
    throw new Ec2ApiError(
      500,
      'InsufficientInstanceCapacity',
      `We currently do not have sufficient ${type.instanceType} capacity in the Availability Zone you requested (${zone}). Our system will be working on provisioning additional capacity. You can currently get ${type.instanceType} capacity by not specifying an Availability Zone in your request or choosing a different Availability Zone.`,
    );
  }
  if (state.vcpuLimit !== undefined && lifecycle !== 'spot') {
    const used = state.world.instances
      .filter((i) => !i.lifecycle && (i.state === 'pending' || i.state === 'running'))
      .reduce(
        (sum, i) => sum + (state.world.instanceTypes.find((t) => t.instanceType === i.instanceType)?.vCpus ?? 0),
        0,
      );
    if (used + type.vCpus * minCount > state.vcpuLimit) {
      throw new Ec2ApiError(
        400,
        'VcpuLimitExceeded',
        `You have requested more vCPU capacity than your current vCPU limit of ${state.vcpuLimit} allows for the instance bucket that the specified instance type belongs to. Please visit http://aws.amazon.com/contact-us/ec2-request to request an adjustment to this limit.`,
      );
    }
  }
}

/** How many instances the subnet has addresses for (at most MaxCount's limit), `used` taken. */
export function countFreeIps(
  subnet: Subnet,
  used: ReadonlySet<string>,
  requested: string | undefined,
  minCount: number,
): number {
  if (requested !== undefined && used.has(requested)) {
    throw new Ec2ApiError(400, 'InvalidIPAddress.InUse', `Address ${requested} is in use.`);
  }
  // Counted, not allocated one by one: a launch into a subnet of thousands paid a scan of it per address.
  const free = Math.min(MAX_COUNT_LIMIT, freePrivateIpCount(subnet, used));
  if (free < minCount) {
    throw new Ec2ApiError(
      400,
      'InsufficientFreeAddressesInSubnet',
      `There are not enough free addresses in subnet '${subnet.subnetId}' to satisfy the requested number of instances.`,
    );
  }
  return free;
}
