// The semantic rules of the reference admission webhook (MAO machine_webhook.go, AWS part), plus the
// few the reference's actuator enforces late. Errors name the full field path; warnings never fail.
// Where the reference silently does something surprising (an empty SG filter list selecting every group,
// load balancer types it ignores) we reject instead, on purpose.
import type { AWSMachineProviderConfig, AWSResourceReference } from './provider-spec.js';
import {
  ConfidentialComputePolicies,
  HostAffinities,
  HostAllocationStrategies,
  LoadBalancerTypes,
  MarketTypes,
  MetadataAuthentications,
  NetworkInterfaceTypes,
  PROVIDER_SPEC_PATH,
  Tenancies,
} from './provider-spec.js';
import {
  checkName,
  checkRange,
  forbiddenValue,
  invalidValue,
  isNonNegativeDecimal,
  requiredValue,
  unsupportedValue,
  type FieldIssue,
  tooLong,
  type NameRule,
} from '../../lib/index.js';

export const CAPACITY_RESERVATION_ID = /^cr-[0-9a-f]{17}$/;
export const DEDICATED_HOST_ID = /^h-([0-9a-f]{8}|[0-9a-f]{17})$/;

/** EC2 instance types: a family and a size joined by ".", e.g. m6i.xlarge, u7i-12tb.224xlarge, m7i.metal-24xl. */
export const INSTANCE_TYPE: NameRule = {
  pattern: /^[a-z0-9][a-z0-9-]*\.[a-z0-9][a-z0-9-]*$/,
  maxLength: 64,
  description:
    'an EC2 instance type such as m6i.xlarge (lower-case letters, digits and "-", family and size joined by ".")',
};
/** AWS regions: us-east-1, us-gov-west-1, cn-northwest-1, eu-central-2. */
export const REGION: NameRule = {
  pattern: /^[a-z]{2}(-[a-z]+)+-[0-9]{1,2}$/,
  maxLength: 32,
  description: 'an AWS region such as us-east-1',
};
/** What follows the region in a zone name: a letter (us-east-1a) or a Local/Wavelength Zone suffix (us-east-1-bos-1a). */
const ZONE_SUFFIX = /^([a-z]|(-[a-z0-9]+)+)$/;
export const MAX_ZONE_LENGTH = 64;
/** EBS limits per volume type (GiB); io2 Block Express goes further, but only on instance types we cannot know here. */
export const MAX_VOLUME_SIZE_GIB: Readonly<Record<string, number>> = {
  standard: 1024,
  gp2: 16384,
  gp3: 16384,
  io1: 16384,
  io2: 16384,
  st1: 16384,
  sc1: 16384,
};
export const VolumeTypes = Object.keys(MAX_VOLUME_SIZE_GIB);
/** The highest provisioned IOPS of any EBS volume type (io2 Block Express). */
export const MAX_IOPS = 256_000;
/** EC2's integers are 32-bit. */
const MAX_INT32 = 2_147_483_647;
export const MAX_KEY_NAME_LENGTH = 255;
export const MAX_PLACEMENT_GROUP_NAME_LENGTH = 255;
export const MAX_TAG_VALUE_LENGTH = 256;
const MAX_PRICE_LENGTH = 32;

export interface ValidationResult {
  errors: FieldIssue[];
  warnings: string[];
}

const oneOf = (allowed: readonly string[], v: string | undefined): boolean =>
  v === undefined || v === '' || allowed.includes(v);

function referenceWarnings(ref: AWSResourceReference | undefined, name: string, warnings: string[]): void {
  if (ref?.arn)
    warnings.push(
      `can't use providerSpec.${name}.arn, only providerSpec.${name}.id can be used to reference ${name === 'ami' ? 'AMI' : 'IAM instance profile'}`,
    );
  if (ref?.filters)
    warnings.push(
      `can't use providerSpec.${name}.filters, only providerSpec.${name}.id can be used to reference ${name === 'ami' ? 'AMI' : 'IAM instance profile'}`,
    );
}

function validateMarket(P: string, c: AWSMachineProviderConfig, errors: FieldIssue[]): void {
  const market = c.marketType ?? '';
  const spot = c.spotMarketOptions !== undefined;
  const reservation = c.capacityReservationId ?? '';
  if (!oneOf(MarketTypes, market)) errors.push(unsupportedValue(`${P}.marketType`, market, MarketTypes));
  if (market === 'CapacityBlock' && spot)
    errors.push(
      invalidValue(
        `${P}.marketType`,
        market,
        'setting marketType to CapacityBlock and spotMarketOptions at the same time is not supported',
      ),
    );
  if (market === 'OnDemand' && spot)
    errors.push(
      invalidValue(
        `${P}.marketType`,
        market,
        'setting marketType to OnDemand and spotMarketOptions at the same time is not supported',
      ),
    );
  if (market === 'CapacityBlock' && !reservation)
    errors.push(
      requiredValue(`${P}.capacityReservationId`, 'capacityReservationID is required when CapacityBlock is provided'),
    );
  if ((market === 'Spot' || spot) && reservation) {
    errors.push(
      invalidValue(
        `${P}.capacityReservationId`,
        reservation,
        'capacityReservationId can not be set when using spot instances',
      ),
    );
  }
  if (reservation && !CAPACITY_RESERVATION_ID.test(reservation)) {
    errors.push(
      invalidValue(
        `${P}.capacityReservationId`,
        reservation,
        "it must start with 'cr-' and be exactly 20 characters long with 17 hexadecimal characters",
      ),
    );
  }
}

function validatePlacement(P: string, c: AWSMachineProviderConfig, controlPlane: boolean, errors: FieldIssue[]): void {
  const p = c.placement;
  const path = `${P}.placement`;
  const regionIssue = p.region
    ? checkName(`${path}.region`, p.region, REGION)
    : requiredValue(`${path}.region`, 'expected providerSpec.placement.region to be populated');
  if (regionIssue) errors.push(regionIssue);
  // The zone is compared with the region only once the region itself is valid.
  if (p.availabilityZone && !regionIssue && p.region) {
    const az = p.availabilityZone;
    if (az.length > MAX_ZONE_LENGTH || !az.startsWith(p.region) || !ZONE_SUFFIX.test(az.slice(p.region.length))) {
      errors.push(
        invalidValue(
          `${path}.availabilityZone`,
          az,
          `must be a zone of region ${p.region}, e.g. ${p.region}a (at most ${MAX_ZONE_LENGTH} characters)`,
        ),
      );
    }
  }
  if (!oneOf(Tenancies, p.tenancy)) errors.push(unsupportedValue(`${path}.tenancy`, p.tenancy, Tenancies));
  if (p.tenancy === 'host' && controlPlane)
    errors.push(forbiddenValue(`${path}.tenancy`, 'host tenancy is not supported for control plane machines'));
  const host = p.host;
  if (!host) return;
  if (p.tenancy !== 'host') errors.push(forbiddenValue(`${path}.host`, 'host may only be set when tenancy is host'));
  if (!host.affinity) errors.push(requiredValue(`${path}.host.affinity`, 'affinity is required when host is set'));
  else if (!oneOf(HostAffinities, host.affinity))
    errors.push(unsupportedValue(`${path}.host.affinity`, host.affinity, HostAffinities));
  const dh = host.dedicatedHost;
  if (!dh) {
    if (host.affinity === 'DedicatedHost') {
      errors.push(
        requiredValue(
          `${path}.host.dedicatedHost`,
          'host affinity DedicatedHost requires dedicated host ID to be provided or dynamically allocated',
        ),
      );
    }
    return;
  }
  const strategy = dh.allocationStrategy || 'UserProvided';
  const dhPath = `${path}.host.dedicatedHost`;
  if (!oneOf(HostAllocationStrategies, strategy))
    errors.push(unsupportedValue(`${dhPath}.allocationStrategy`, strategy, HostAllocationStrategies));
  if (strategy === 'UserProvided') {
    if (!dh.id) errors.push(requiredValue(`${dhPath}.id`, 'id is required when allocationStrategy is UserProvided'));
    if (dh.dynamicHostAllocation)
      errors.push(
        forbiddenValue(
          `${dhPath}.dynamicHostAllocation`,
          'dynamicHostAllocation is only allowed when allocationStrategy is Dynamic',
        ),
      );
  }
  if (strategy === 'Dynamic') {
    if (dh.id) errors.push(forbiddenValue(`${dhPath}.id`, 'id is forbidden when allocationStrategy is Dynamic'));
    if (host.affinity !== 'DedicatedHost')
      errors.push(
        invalidValue(
          `${path}.host.affinity`,
          host.affinity,
          'hostAffinity must be DedicatedHost when using dynamic host allocation',
        ),
      );
    const tags = dh.dynamicHostAllocation?.tags;
    if (tags && (tags.length < 1 || tags.length > 50))
      errors.push(
        invalidValue(`${dhPath}.dynamicHostAllocation.tags`, tags.length, 'must have between 1 and 50 items'),
      );
  }
  if (dh.id && !DEDICATED_HOST_ID.test(dh.id)) {
    errors.push(
      invalidValue(`${dhPath}.id`, dh.id, "must start with 'h-' followed by 8 or 17 lowercase hexadecimal characters"),
    );
  }
}

function validateBlockDevices(P: string, c: AWSMachineProviderConfig, errors: FieldIssue[], warnings: string[]): void {
  let unnamed = 0;
  (c.blockDevices ?? []).forEach((bd, i) => {
    const path = `${P}.blockDevices[${i}]`;
    if (!bd.ebs) {
      // The reference drops such entries without a word; say so.
      warnings.push(`${path}: only EBS block devices are supported; this entry will be ignored`);
      return;
    }
    if (!bd.deviceName) unnamed++;
    const ebs = bd.ebs;
    if (ebs.throughputMib !== undefined) {
      if (ebs.volumeType !== 'gp3')
        errors.push(
          invalidValue(`${path}.ebs.throughputMib`, ebs.throughputMib, 'throughput is only supported for gp3 volumes'),
        );
      else if (ebs.throughputMib < 125 || ebs.throughputMib > 2000)
        errors.push(
          invalidValue(`${path}.ebs.throughputMib`, ebs.throughputMib, 'throughput must be between 125 and 2000 MiB/s'),
        );
    }
    const typeKnown = ebs.volumeType === undefined || ebs.volumeType === '' || VolumeTypes.includes(ebs.volumeType);
    if (!typeKnown) errors.push(unsupportedValue(`${path}.ebs.volumeType`, ebs.volumeType, VolumeTypes));
    if (ebs.volumeSize !== undefined) {
      // Without a type EC2 uses gp2 (or the AMI's snapshot type); every type but standard shares gp2's limit.
      const maxSize = MAX_VOLUME_SIZE_GIB[typeKnown && ebs.volumeType ? ebs.volumeType : 'gp2'] ?? 0;
      const issue = checkRange(
        `${path}.ebs.volumeSize`,
        ebs.volumeSize,
        0,
        maxSize,
        `GiB for volume type ${ebs.volumeType || 'gp2'}`,
      );
      if (issue) errors.push(issue);
    }
    if (ebs.iops !== undefined) {
      const issue = checkRange(`${path}.ebs.iops`, ebs.iops, 0, MAX_IOPS);
      if (issue) errors.push(issue);
    }
  });
  if (unnamed > 1) errors.push(invalidValue(`${P}.blockDevices`, unnamed, 'non root device must have name'));
}

/** `opts.path` is where the value sits in its object (a MachineSet's template differs); errors name fields from there. */
export function validateProviderConfig(
  c: AWSMachineProviderConfig,
  opts: { controlPlane: boolean; path?: string },
): ValidationResult {
  const P = opts.path ?? PROVIDER_SPEC_PATH;
  const errors: FieldIssue[] = [];
  const warnings: string[] = [];

  if (!c.ami.id && !(c.ami.filters && c.ami.filters.length > 0))
    errors.push(requiredValue(`${P}.ami`, 'expected providerSpec.ami.id to be populated'));
  referenceWarnings(c.ami, 'ami', warnings);
  if (!c.instanceType)
    errors.push(requiredValue(`${P}.instanceType`, 'expected providerSpec.instanceType to be populated'));
  else {
    const issue = checkName(`${P}.instanceType`, c.instanceType, INSTANCE_TYPE);
    if (issue) errors.push(issue);
  }
  const deviceIndexIssue = checkRange(`${P}.deviceIndex`, c.deviceIndex, 0, MAX_INT32);
  if (deviceIndexIssue) errors.push(deviceIndexIssue);
  if (c.keyName !== undefined && c.keyName.length > MAX_KEY_NAME_LENGTH)
    errors.push(tooLong(`${P}.keyName`, c.keyName, MAX_KEY_NAME_LENGTH));
  if (c.placementGroupName !== undefined && c.placementGroupName.length > MAX_PLACEMENT_GROUP_NAME_LENGTH) {
    errors.push(tooLong(`${P}.placementGroupName`, c.placementGroupName, MAX_PLACEMENT_GROUP_NAME_LENGTH));
  }
  const maxPrice = c.spotMarketOptions?.maxPrice;
  if (maxPrice && (maxPrice.length > MAX_PRICE_LENGTH || !isNonNegativeDecimal(maxPrice))) {
    errors.push(
      invalidValue(
        `${P}.spotMarketOptions.maxPrice`,
        maxPrice,
        'must be a non-negative decimal number of dollars per hour, such as "0.05"',
      ),
    );
  }

  if (!c.iamInstanceProfile)
    warnings.push(
      'providerSpec.iamInstanceProfile: no IAM instance profile provided: nodes may be unable to join the cluster',
    );
  referenceWarnings(c.iamInstanceProfile, 'iamInstanceProfile', warnings);

  if (!c.userDataSecret)
    errors.push(requiredValue(`${P}.userDataSecret`, 'expected providerSpec.userDataSecret to be populated'));
  else if (!c.userDataSecret.name)
    errors.push(requiredValue(`${P}.userDataSecret.name`, 'expected providerSpec.userDataSecret.name to be populated'));
  if (!c.credentialsSecret)
    errors.push(requiredValue(`${P}.credentialsSecret`, 'expected providerSpec.credentialsSecret to be populated'));

  if (!c.subnet.id && !c.subnet.arn && !c.subnet.filters) {
    warnings.push(
      'providerSpec.subnet: No subnet has been provided. Instances may be created in an unexpected subnet and may not join the cluster.',
    );
  }
  if (c.subnet.arn)
    warnings.push(
      "can't use providerSpec.subnet.arn, only providerSpec.subnet.id or providerSpec.subnet.filters can be used to reference Subnet",
    );
  (c.securityGroups ?? []).forEach((sg, i) => {
    if (!sg.id && !(sg.filters && sg.filters.length > 0)) {
      errors.push(
        requiredValue(
          `${P}.securityGroups[${i}]`,
          'a security group must be referenced by id or by at least one filter',
        ),
      );
    }
  });

  validateMarket(P, c, errors);
  validatePlacement(P, c, opts.controlPlane, errors);
  validateBlockDevices(P, c, errors, warnings);

  if (c.placementGroupPartition !== undefined) {
    if (!c.placementGroupName)
      errors.push(
        invalidValue(
          `${P}.placementGroupPartition`,
          c.placementGroupPartition,
          'providerSpec.placementGroupPartition is set but providerSpec.placementGroupName is empty',
        ),
      );
    else if (c.placementGroupPartition < 1 || c.placementGroupPartition > 7)
      errors.push(
        invalidValue(
          `${P}.placementGroupPartition`,
          c.placementGroupPartition,
          'providerSpec.placementGroupPartition must be between 1 and 7',
        ),
      );
  }
  if (!oneOf(NetworkInterfaceTypes, c.networkInterfaceType))
    errors.push(unsupportedValue(`${P}.networkInterfaceType`, c.networkInterfaceType, NetworkInterfaceTypes));
  if (!oneOf(MetadataAuthentications, c.metadataServiceOptions.authentication)) {
    errors.push(
      unsupportedValue(
        `${P}.metadataServiceOptions.authentication`,
        c.metadataServiceOptions.authentication,
        MetadataAuthentications,
      ),
    );
  }
  if (c.cpuOptions) {
    if (c.cpuOptions.confidentialCompute === undefined)
      errors.push(
        invalidValue(`${P}.cpuOptions`, c.cpuOptions, 'At least one field must be set if cpuOptions is provided'),
      );
    else if (!oneOf(ConfidentialComputePolicies, c.cpuOptions.confidentialCompute)) {
      errors.push(
        unsupportedValue(
          `${P}.cpuOptions.confidentialCompute`,
          c.cpuOptions.confidentialCompute,
          ConfidentialComputePolicies,
        ),
      );
    }
  }
  (c.loadBalancers ?? []).forEach((lb, i) => {
    if (!lb.name) errors.push(requiredValue(`${P}.loadBalancers[${i}].name`, 'a load balancer name is required'));
    if (!(LoadBalancerTypes as readonly string[]).includes(lb.type))
      errors.push(unsupportedValue(`${P}.loadBalancers[${i}].type`, lb.type, LoadBalancerTypes));
  });

  const seen = new Set<string>();
  const duplicated = new Set<string>();
  (c.tags ?? []).forEach((t, i) => {
    if (t.name.length < 1 || t.name.length > 128)
      errors.push(invalidValue(`${P}.tags[${i}].name`, t.name, 'must be between 1 and 128 characters'));
    if (t.value.length > MAX_TAG_VALUE_LENGTH)
      errors.push(tooLong(`${P}.tags[${i}].value`, t.value, MAX_TAG_VALUE_LENGTH));
    if (seen.has(t.name)) duplicated.add(t.name);
    seen.add(t.name);
  });
  if (duplicated.size > 0)
    warnings.push(
      `providerSpec.tags: duplicated tag names (${[...duplicated].join(',')}): only the first value will be used.`,
    );

  return { errors, warnings };
}
