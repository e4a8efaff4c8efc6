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
  PROVIDER_SPEC_PATH as P,
  Tenancies,
} from './provider-spec.js';
import { forbiddenValue, invalidValue, requiredValue, unsupportedValue, type FieldIssue } from '../../lib/index.js';

export const CAPACITY_RESERVATION_ID = /^cr-[0-9a-f]{17}$/;
export const DEDICATED_HOST_ID = /^h-([0-9a-f]{8}|[0-9a-f]{17})$/;

export interface ValidationResult {
  errors: FieldIssue[];
  warnings: string[];
}

const oneOf = (allowed: readonly string[], v: string | undefined): boolean => v === undefined || v === '' || allowed.includes(v);

function referenceWarnings(ref: AWSResourceReference | undefined, name: string, warnings: string[]): void {
  if (ref?.arn) warnings.push(`can't use providerSpec.${name}.arn, only providerSpec.${name}.id can be used to reference ${name === 'ami' ? 'AMI' : 'IAM instance profile'}`);
  if (ref?.filters) warnings.push(`can't use providerSpec.${name}.filters, only providerSpec.${name}.id can be used to reference ${name === 'ami' ? 'AMI' : 'IAM instance profile'}`);
}

function validateMarket(c: AWSMachineProviderConfig, errors: FieldIssue[]): void {
  const market = c.marketType ?? '';
  const spot = c.spotMarketOptions !== undefined;
  const reservation = c.capacityReservationId ?? '';
  if (!oneOf(MarketTypes, market)) errors.push(unsupportedValue(`${P}.marketType`, market, MarketTypes));
  if (market === 'CapacityBlock' && spot) errors.push(invalidValue(`${P}.marketType`, market, 'setting marketType to CapacityBlock and spotMarketOptions at the same time is not supported'));
  if (market === 'OnDemand' && spot) errors.push(invalidValue(`${P}.marketType`, market, 'setting marketType to OnDemand and spotMarketOptions at the same time is not supported'));
  if (market === 'CapacityBlock' && !reservation) errors.push(requiredValue(`${P}.capacityReservationId`, 'capacityReservationID is required when CapacityBlock is provided'));
  if ((market === 'Spot' || spot) && reservation) {
    errors.push(invalidValue(`${P}.capacityReservationId`, reservation, 'capacityReservationId can not be set when using spot instances'));
  }
  if (reservation && !CAPACITY_RESERVATION_ID.test(reservation)) {
    errors.push(
      invalidValue(`${P}.capacityReservationId`, reservation, "it must start with 'cr-' and be exactly 20 characters long with 17 hexadecimal characters"),
    );
  }
}

function validatePlacement(c: AWSMachineProviderConfig, controlPlane: boolean, errors: FieldIssue[]): void {
  const p = c.placement;
  const path = `${P}.placement`;
  if (!p.region) errors.push(requiredValue(`${path}.region`, 'expected providerSpec.placement.region to be populated'));
  if (!oneOf(Tenancies, p.tenancy)) errors.push(unsupportedValue(`${path}.tenancy`, p.tenancy, Tenancies));
  if (p.tenancy === 'host' && controlPlane) errors.push(forbiddenValue(`${path}.tenancy`, 'host tenancy is not supported for control plane machines'));
  const host = p.host;
  if (!host) return;
  if (p.tenancy !== 'host') errors.push(forbiddenValue(`${path}.host`, 'host may only be set when tenancy is host'));
  if (!host.affinity) errors.push(requiredValue(`${path}.host.affinity`, 'affinity is required when host is set'));
  else if (!oneOf(HostAffinities, host.affinity)) errors.push(unsupportedValue(`${path}.host.affinity`, host.affinity, HostAffinities));
  const dh = host.dedicatedHost;
  if (!dh) {
    if (host.affinity === 'DedicatedHost') {
      errors.push(requiredValue(`${path}.host.dedicatedHost`, 'host affinity DedicatedHost requires dedicated host ID to be provided or dynamically allocated'));
    }
    return;
  }
  const strategy = dh.allocationStrategy || 'UserProvided';
  const dhPath = `${path}.host.dedicatedHost`;
  if (!oneOf(HostAllocationStrategies, strategy)) errors.push(unsupportedValue(`${dhPath}.allocationStrategy`, strategy, HostAllocationStrategies));
  if (strategy === 'UserProvided') {
    if (!dh.id) errors.push(requiredValue(`${dhPath}.id`, 'id is required when allocationStrategy is UserProvided'));
    if (dh.dynamicHostAllocation) errors.push(forbiddenValue(`${dhPath}.dynamicHostAllocation`, 'dynamicHostAllocation is only allowed when allocationStrategy is Dynamic'));
  }
  if (strategy === 'Dynamic') {
    if (dh.id) errors.push(forbiddenValue(`${dhPath}.id`, 'id is forbidden when allocationStrategy is Dynamic'));
    if (host.affinity !== 'DedicatedHost') errors.push(invalidValue(`${path}.host.affinity`, host.affinity, 'hostAffinity must be DedicatedHost when using dynamic host allocation'));
    const tags = dh.dynamicHostAllocation?.tags;
    if (tags && (tags.length < 1 || tags.length > 50)) errors.push(invalidValue(`${dhPath}.dynamicHostAllocation.tags`, tags.length, 'must have between 1 and 50 items'));
  }
  if (dh.id && !DEDICATED_HOST_ID.test(dh.id)) {
    errors.push(invalidValue(`${dhPath}.id`, dh.id, "must start with 'h-' followed by 8 or 17 lowercase hexadecimal characters"));
  }
}

function validateBlockDevices(c: AWSMachineProviderConfig, errors: FieldIssue[], warnings: string[]): void {
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
      if (ebs.volumeType !== 'gp3') errors.push(invalidValue(`${path}.ebs.throughputMib`, ebs.throughputMib, 'throughput is only supported for gp3 volumes'));
      else if (ebs.throughputMib < 125 || ebs.throughputMib > 2000) errors.push(invalidValue(`${path}.ebs.throughputMib`, ebs.throughputMib, 'throughput must be between 125 and 2000 MiB/s'));
    }
    if (ebs.volumeSize !== undefined && ebs.volumeSize < 0) errors.push(invalidValue(`${path}.ebs.volumeSize`, ebs.volumeSize, 'must be greater than or equal to 0'));
    if (ebs.iops !== undefined && ebs.iops < 0) errors.push(invalidValue(`${path}.ebs.iops`, ebs.iops, 'must be greater than or equal to 0'));
  });
  if (unnamed > 1) errors.push(invalidValue(`${P}.blockDevices`, unnamed, 'non root device must have name'));
}

export function validateProviderConfig(c: AWSMachineProviderConfig, opts: { controlPlane: boolean }): ValidationResult {
  const errors: FieldIssue[] = [];
  const warnings: string[] = [];

  if (!c.ami.id && !(c.ami.filters && c.ami.filters.length > 0)) errors.push(requiredValue(`${P}.ami`, 'expected providerSpec.ami.id to be populated'));
  referenceWarnings(c.ami, 'ami', warnings);
  if (!c.instanceType) errors.push(requiredValue(`${P}.instanceType`, 'expected providerSpec.instanceType to be populated'));

  if (!c.iamInstanceProfile) warnings.push('no IAM instance profile provided: nodes may be unable to join the cluster');
  referenceWarnings(c.iamInstanceProfile, 'iamInstanceProfile', warnings);

  if (!c.userDataSecret) errors.push(requiredValue(`${P}.userDataSecret`, 'expected providerSpec.userDataSecret to be populated'));
  else if (!c.userDataSecret.name) errors.push(requiredValue(`${P}.userDataSecret.name`, 'expected providerSpec.userDataSecret.name to be populated'));
  if (!c.credentialsSecret) errors.push(requiredValue(`${P}.credentialsSecret`, 'expected providerSpec.credentialsSecret to be populated'));

  if (!c.subnet.id && !c.subnet.arn && !c.subnet.filters) {
    warnings.push('providerSpec.subnet: No subnet has been provided. Instances may be created in an unexpected subnet and may not join the cluster.');
  }
  if (c.subnet.arn) warnings.push("can't use providerSpec.subnet.arn, only providerSpec.subnet.id or providerSpec.subnet.filters can be used to reference Subnet");
  (c.securityGroups ?? []).forEach((sg, i) => {
    if (!sg.id && !(sg.filters && sg.filters.length > 0)) {
      errors.push(requiredValue(`${P}.securityGroups[${i}]`, 'a security group must be referenced by id or by at least one filter'));
    }
  });

  validateMarket(c, errors);
  validatePlacement(c, opts.controlPlane, errors);
  validateBlockDevices(c, errors, warnings);

  if (c.placementGroupPartition !== undefined) {
    if (!c.placementGroupName) errors.push(invalidValue(`${P}.placementGroupPartition`, c.placementGroupPartition, 'providerSpec.placementGroupPartition is set but providerSpec.placementGroupName is empty'));
    else if (c.placementGroupPartition < 1 || c.placementGroupPartition > 7) errors.push(invalidValue(`${P}.placementGroupPartition`, c.placementGroupPartition, 'providerSpec.placementGroupPartition must be between 1 and 7'));
  }
  if (!oneOf(NetworkInterfaceTypes, c.networkInterfaceType)) errors.push(unsupportedValue(`${P}.networkInterfaceType`, c.networkInterfaceType, NetworkInterfaceTypes));
  if (!oneOf(MetadataAuthentications, c.metadataServiceOptions.authentication)) {
    errors.push(unsupportedValue(`${P}.metadataServiceOptions.authentication`, c.metadataServiceOptions.authentication, MetadataAuthentications));
  }
  if (c.cpuOptions) {
    if (c.cpuOptions.confidentialCompute === undefined) errors.push(invalidValue(`${P}.cpuOptions`, c.cpuOptions, 'At least one field must be set if cpuOptions is provided'));
    else if (!oneOf(ConfidentialComputePolicies, c.cpuOptions.confidentialCompute)) {
      errors.push(unsupportedValue(`${P}.cpuOptions.confidentialCompute`, c.cpuOptions.confidentialCompute, ConfidentialComputePolicies));
    }
  }
  (c.loadBalancers ?? []).forEach((lb, i) => {
    if (!lb.name) errors.push(requiredValue(`${P}.loadBalancers[${i}].name`, 'a load balancer name is required'));
    if (!(LoadBalancerTypes as readonly string[]).includes(lb.type)) errors.push(unsupportedValue(`${P}.loadBalancers[${i}].type`, lb.type, LoadBalancerTypes));
  });

  const seen = new Set<string>();
  const duplicated = new Set<string>();
  (c.tags ?? []).forEach((t, i) => {
    if (t.name.length < 1 || t.name.length > 128) errors.push(invalidValue(`${P}.tags[${i}].name`, t.name, 'must be between 1 and 128 characters'));
    if (seen.has(t.name)) duplicated.add(t.name);
    seen.add(t.name);
  });
  if (duplicated.size > 0) warnings.push(`providerSpec.tags: duplicated tag names (${[...duplicated].join(',')}): only the first value will be used.`);

  return { errors, warnings };
}
