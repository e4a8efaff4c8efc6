// Turns the spec's references (AMI, security groups, subnet) into the ids RunInstances needs. A cloud answer
// that says the reference is wrong (nothing matches, a malformed id) is a configuration error; throttling,
// 5xx and network errors are retried (the reference fails the Machine on those too).
import type { Filter as Ec2Filter } from '@aws-sdk/client-ec2';
import { InvalidMachineConfigurationError } from '../../lib/index.js';
import type { Ec2Api } from './ec2-api.js';
import { classifyEc2Error, describeEc2Error } from './errors.js';
import { needsRootDeviceName, type ResolvedLaunchInputs } from './instances.js';
import { PROVIDER_SPEC_PATH as P, type AWSMachineProviderConfig, type Filter } from './provider-spec.js';

const toEc2Filters = (filters: Filter[] | undefined): Ec2Filter[] =>
  (filters ?? []).map((f) => ({ Name: f.name, Values: f.values ?? [] }));

/** Rethrows a cloud error as a configuration error only when the cloud says the request is invalid. */
async function lookup<T>(field: string, what: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (classifyEc2Error(err) === 'invalid') {
      throw new InvalidMachineConfigurationError(`${field}: ${what}: ${describeEc2Error(err)}`, { field, cause: err });
    }
    throw new Error(`${what}: ${describeEc2Error(err)}`, { cause: err });
  }
}

export async function resolveImageId(
  ec2: Ec2Api,
  config: AWSMachineProviderConfig,
  signal?: AbortSignal,
): Promise<string> {
  if (config.ami.id) return config.ami.id;
  const images = await lookup(`${P}.ami.filters`, 'error describing AMI', () =>
    ec2.describeImages({ filters: toEc2Filters(config.ami.filters) }, { signal }),
  );
  let newest: { id: string; created: number } | undefined;
  for (const img of images) {
    const created = Date.parse(img.CreationDate ?? '');
    if (!img.ImageId || Number.isNaN(created)) continue;
    if (!newest || created > newest.created) newest = { id: img.ImageId, created };
  }
  if (!newest)
    throw new InvalidMachineConfigurationError(`${P}.ami.filters: no image matches the AMI filters`, {
      field: `${P}.ami.filters`,
    });
  return newest.id;
}

export async function resolveSecurityGroupIds(
  ec2: Ec2Api,
  config: AWSMachineProviderConfig,
  signal?: AbortSignal,
): Promise<string[]> {
  const ids: string[] = [];
  for (const [i, sg] of (config.securityGroups ?? []).entries()) {
    if (sg.id) {
      ids.push(sg.id);
      continue;
    }
    const field = `${P}.securityGroups[${i}].filters`;
    const groups = await lookup(field, 'error describing security groups', () =>
      ec2.describeSecurityGroups(toEc2Filters(sg.filters), { signal }),
    );
    const found = groups.flatMap((g) => (g.GroupId ? [g.GroupId] : []));
    if (found.length === 0)
      throw new InvalidMachineConfigurationError(`${field}: no security group matches the filters`, { field });
    for (const id of found) if (!ids.includes(id)) ids.push(id);
  }
  return ids;
}

export async function resolveSubnet(
  ec2: Ec2Api,
  config: AWSMachineProviderConfig,
  signal?: AbortSignal,
): Promise<{ subnetId?: string; availabilityZone?: string }> {
  if (config.subnet.id) return { subnetId: config.subnet.id };
  const filters = toEc2Filters(config.subnet.filters);
  const az = config.placement.availabilityZone;
  if (az) filters.unshift({ Name: 'availability-zone', Values: [az] });
  if (filters.length === 0) return {}; // EC2 picks the default subnet of the default VPC.
  const field = `${P}.subnet`;
  const subnets = await lookup(field, 'error describing subnets', () => ec2.describeSubnets({ filters }, { signal }));
  const sorted = subnets.filter((s) => s.SubnetId).sort((a, b) => (a.SubnetId ?? '').localeCompare(b.SubnetId ?? ''));
  const first = sorted[0];
  if (!first)
    throw new InvalidMachineConfigurationError(
      `${field}: no subnet matches the filters${az ? ` in availability zone ${az}` : ''}`,
      { field },
    );
  return { subnetId: first.SubnetId, availabilityZone: first.AvailabilityZone };
}

async function zoneTypeOf(
  ec2: Ec2Api,
  subnetId: string | undefined,
  knownZone: string | undefined,
  signal?: AbortSignal,
): Promise<string | undefined> {
  let zone = knownZone;
  if (!zone && subnetId) {
    const subnets = await lookup(`${P}.subnet.id`, 'error describing subnets', () =>
      ec2.describeSubnets({ subnetIds: [subnetId] }, { signal }),
    );
    zone = subnets[0]?.AvailabilityZone;
  }
  if (!zone) return undefined;
  const zones = await lookup(`${P}.placement.availabilityZone`, 'error describing availability zones', () =>
    ec2.describeAvailabilityZones([zone], { signal }),
  );
  return zones[0]?.ZoneType;
}

async function rootDeviceNameOf(ec2: Ec2Api, imageId: string, signal?: AbortSignal): Promise<string | undefined> {
  const images = await lookup(`${P}.ami`, 'error describing AMI', () =>
    ec2.describeImages({ imageIds: [imageId] }, { signal }),
  );
  const name = images[0]?.RootDeviceName;
  if (!name)
    throw new InvalidMachineConfigurationError(`${P}.ami: image ${imageId} has no root device name`, {
      field: `${P}.ami`,
    });
  return name;
}

/** Everything RunInstances needs from the cloud, except the user data and the ipFamily. */
export async function resolveLaunchInputs(
  ec2: Ec2Api,
  config: AWSMachineProviderConfig,
  signal?: AbortSignal,
): Promise<
  Omit<ResolvedLaunchInputs, 'userData' | 'infrastructureTags' | 'ipFamily' | 'dedicatedHostId'> & {
    subnetZone?: string;
  }
> {
  const imageId = await resolveImageId(ec2, config, signal);
  const securityGroupIds = await resolveSecurityGroupIds(ec2, config, signal);
  const subnet = await resolveSubnet(ec2, config, signal);
  const zoneType =
    config.publicIp !== undefined ? await zoneTypeOf(ec2, subnet.subnetId, subnet.availabilityZone, signal) : undefined;
  const rootDeviceName = needsRootDeviceName(config) ? await rootDeviceNameOf(ec2, imageId, signal) : undefined;
  return {
    imageId,
    securityGroupIds,
    subnetId: subnet.subnetId,
    subnetZone: subnet.availabilityZone,
    zoneType,
    rootDeviceName,
  };
}
