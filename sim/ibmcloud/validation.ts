// InstancePrototypeInstanceByImage validation as the VPC API does it: required fields, name syntax,
// references that must exist (profile, image, zone, VPC, subnet, security groups, resource group, dedicated
// host) and must agree (subnet in the VPC and zone, image architecture matching the profile), boot volume
// limits, and a unique name per VPC (409).
import { badField, IbmApiError, missingField, notFound } from './api-error.js';
import type { BootVolumeRec, DedicatedHostRec, IbmWorld, ImageRec, ProfileRec, SubnetRec } from './model.js';

export interface ValidatedPrototype {
  name: string;
  profile: ProfileRec;
  image: ImageRec;
  zone: string;
  vpcId: string;
  resourceGroupId: string;
  subnet: SubnetRec;
  securityGroupIds: string[];
  userData: string;
  bootVolume: BootVolumeRec;
  dedicatedHost?: DedicatedHostRec;
}

const NAME_RE = /^-?([a-z]|[a-z][-a-z0-9]*[a-z0-9]|[0-9][-a-z0-9]*([a-z]|[-a-z][-a-z0-9]*[a-z0-9]))$/;
const VOLUME_PROFILES = ['general-purpose', '5iops-tier', '10iops-tier', 'custom', 'sdp'];
const MAX_USER_DATA = 64 * 1024;

type Obj = Record<string, unknown>;

function obj(v: unknown, field: string): Obj {
  if (v === undefined || v === null) throw missingField(field);
  if (typeof v !== 'object' || Array.isArray(v)) throw badField(field, `Field ${field} must be an object.`);
  return v as Obj;
}

function str(v: unknown, field: string): string {
  if (v === undefined || v === null || v === '') throw missingField(field);
  if (typeof v !== 'string') throw badField(field, `Field ${field} must be a string.`);
  return v;
}

function optInt(v: unknown, field: string): number | undefined {
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 1)
    throw badField(field, `Field ${field} must be a positive integer.`);
  return v;
}

const fieldTarget = (name: string) => ({ name, type: 'field' as const });

export function validatePrototype(world: IbmWorld, body: unknown): ValidatedPrototype {
  const p = obj(body, 'body');

  const name = str(p.name, 'name');
  if (name.length > 63 || !NAME_RE.test(name)) {
    throw new IbmApiError(
      400,
      'validation_invalid_name',
      `The instance name "${name}" is invalid: lower-case letters, digits and hyphens, at most 63 characters, starting with a letter.`,
      fieldTarget('name'),
    );
  }

  const profileName = str(obj(p.profile, 'profile').name, 'profile.name');
  const profile = world.profiles.find((x) => x.name === profileName);
  if (!profile) throw notFound('Instance profile', profileName, fieldTarget('profile.name'));

  const zone = str(obj(p.zone, 'zone').name, 'zone.name');
  if (!world.zones.includes(zone)) throw notFound('Zone', zone, fieldTarget('zone.name'));

  const imageId = str(obj(p.image, 'image').id, 'image.id');
  const image = world.images.find((m) => m.id === imageId);
  if (!image) throw notFound('Image', imageId, fieldTarget('image.id'));
  if (image.status !== 'available') throw badField('image.id', `Image ${imageId} is ${image.status}, not available.`);
  if (image.architecture !== profile.architecture) {
    throw new IbmApiError(
      400,
      'image_profile_architecture_mismatch',
      `Image ${image.name} (${image.architecture}) cannot run on profile ${profile.name} (${profile.architecture}).`,
      fieldTarget('image.id'),
    );
  }

  const vpcId = str(obj(p.vpc, 'vpc').id, 'vpc.id');
  if (!world.vpcs.some((v) => v.id === vpcId)) throw notFound('VPC', vpcId, fieldTarget('vpc.id'));

  let resourceGroupId = world.resourceGroups.find((g) => g.default)?.id ?? '';
  if (p.resource_group !== undefined) {
    resourceGroupId = str(obj(p.resource_group, 'resource_group').id, 'resource_group.id');
    if (!world.resourceGroups.some((g) => g.id === resourceGroupId))
      throw notFound('Resource group', resourceGroupId, fieldTarget('resource_group.id'));
  }

  const nic = obj(p.primary_network_interface, 'primary_network_interface');
  const subnetId = str(obj(nic.subnet, 'primary_network_interface.subnet').id, 'primary_network_interface.subnet.id');
  const subnet = world.subnets.find((s) => s.id === subnetId);
  if (!subnet) throw notFound('Subnet', subnetId, fieldTarget('primary_network_interface.subnet.id'));
  if (subnet.vpcId !== vpcId)
    throw badField('primary_network_interface.subnet.id', `Subnet ${subnetId} is not in VPC ${vpcId}.`);
  if (subnet.zone !== zone)
    throw badField('primary_network_interface.subnet.id', `Subnet ${subnetId} is in zone ${subnet.zone}, not ${zone}.`);

  const securityGroupIds: string[] = [];
  if (nic.security_groups !== undefined) {
    if (!Array.isArray(nic.security_groups))
      throw badField(
        'primary_network_interface.security_groups',
        'Field primary_network_interface.security_groups must be an array.',
      );
    nic.security_groups.forEach((g: unknown, i: number) => {
      const field = `primary_network_interface.security_groups[${i}].id`;
      const id = str(obj(g, field).id, field);
      const sg = world.securityGroups.find((s) => s.id === id);
      if (!sg) throw notFound('Security group', id, fieldTarget(field));
      if (sg.vpcId !== vpcId) throw badField(field, `Security group ${id} is not in VPC ${vpcId}.`);
      securityGroupIds.push(id);
    });
  }
  if (securityGroupIds.length === 0) {
    const def = world.securityGroups.find((s) => s.vpcId === vpcId);
    if (def) securityGroupIds.push(def.id);
  }

  let userData = '';
  if (p.user_data !== undefined) {
    if (typeof p.user_data !== 'string') throw badField('user_data', 'Field user_data must be a string.');
    if (Buffer.byteLength(p.user_data) > MAX_USER_DATA)
      throw badField('user_data', `Field user_data exceeds ${MAX_USER_DATA} bytes.`);
    userData = p.user_data;
  }

  const bootVolume = validateBootVolume(p.boot_volume_attachment, image);

  let dedicatedHost: DedicatedHostRec | undefined;
  if (p.placement_target !== undefined) {
    const id = str(obj(p.placement_target, 'placement_target').id, 'placement_target.id');
    dedicatedHost = world.dedicatedHosts.find((h) => h.id === id);
    if (!dedicatedHost) throw notFound('Dedicated host', id, fieldTarget('placement_target.id'));
    if (dedicatedHost.zone !== zone)
      throw badField('placement_target.id', `Dedicated host ${id} is in zone ${dedicatedHost.zone}, not ${zone}.`);
    if (!dedicatedHost.instancePlacementEnabled)
      throw badField('placement_target.id', `Dedicated host ${id} does not accept instance placement.`);
    if (!dedicatedHost.supportedProfiles.includes(profile.name)) {
      throw badField(
        'profile.name',
        `Profile ${profile.name} is not supported by dedicated host ${dedicatedHost.name}.`,
      );
    }
  }

  const clash = world.instances.find((i) => i.vpcId === vpcId && i.name === name);
  if (clash) {
    throw new IbmApiError(
      409,
      'validation_unique_failed',
      `Provided Name (${name}) is not unique: instance ${clash.id} in VPC ${vpcId} already has it.`,
      fieldTarget('name'),
    );
  }

  return {
    name,
    profile,
    image,
    zone,
    vpcId,
    resourceGroupId,
    subnet,
    securityGroupIds,
    userData,
    bootVolume,
    dedicatedHost,
  };
}

function validateBootVolume(v: unknown, image: ImageRec): BootVolumeRec {
  const minimum = image.minimumProvisionedSize;
  if (v === undefined) return { profile: 'general-purpose', capacity: minimum };
  const volume = obj(obj(v, 'boot_volume_attachment').volume, 'boot_volume_attachment.volume');
  const profile = str(
    obj(volume.profile, 'boot_volume_attachment.volume.profile').name,
    'boot_volume_attachment.volume.profile.name',
  );
  if (!VOLUME_PROFILES.includes(profile))
    throw notFound('Volume profile', profile, fieldTarget('boot_volume_attachment.volume.profile.name'));
  const capacity = optInt(volume.capacity, 'boot_volume_attachment.volume.capacity') ?? minimum;
  const max = profile === 'sdp' ? 32_000 : 250;
  if (capacity < minimum || capacity > max) {
    throw badField(
      'boot_volume_attachment.volume.capacity',
      `Boot volume capacity ${capacity} GB must be from ${minimum} (the image minimum) to ${max} for profile ${profile}.`,
    );
  }
  const iops = optInt(volume.iops, 'boot_volume_attachment.volume.iops');
  if (iops !== undefined && profile !== 'custom' && profile !== 'sdp') {
    throw badField(
      'boot_volume_attachment.volume.iops',
      `iops can be set only for the custom and sdp volume profiles, not ${profile}.`,
    );
  }
  const bandwidth = optInt(volume.bandwidth, 'boot_volume_attachment.volume.bandwidth');
  if (bandwidth !== undefined && profile !== 'sdp') {
    throw badField(
      'boot_volume_attachment.volume.bandwidth',
      `bandwidth can be set only for the sdp volume profile, not ${profile}.`,
    );
  }
  let encryptionKeyCrn: string | undefined;
  if (volume.encryption_key !== undefined) {
    encryptionKeyCrn = str(
      obj(volume.encryption_key, 'boot_volume_attachment.volume.encryption_key').crn,
      'boot_volume_attachment.volume.encryption_key.crn',
    );
    if (!encryptionKeyCrn.startsWith('crn:'))
      throw badField('boot_volume_attachment.volume.encryption_key.crn', `Not a CRN: ${encryptionKeyCrn}`);
  }
  return { profile, capacity, iops, bandwidth, encryptionKeyCrn };
}
