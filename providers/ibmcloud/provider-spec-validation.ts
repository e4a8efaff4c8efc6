// The semantic rules for an IBM Cloud providerSpec. The reference validates nothing but the cluster-ID label,
// so every mistake surfaces as a cloud look-up error at create time (or never: tags were ignored). These
// checks run before any cloud call and name the full field path.
import { forbiddenValue, invalidValue, requiredValue, unsupportedValue, type FieldIssue } from '../../lib/index.js';
import {
  BOOT_VOLUME_PROFILES,
  DEFAULT_BOOT_VOLUME_PROFILE,
  type IBMCloudMachineProviderSpec,
} from './provider-spec.js';

export interface ValidationResult {
  errors: FieldIssue[];
  warnings: string[];
}

/** VPC names (instances, subnets, security groups...): lower case, digits and hyphens, at most 63. */
export const VPC_NAME = /^([a-z]|[a-z][-a-z0-9]*[a-z0-9])$/;
/** The VPC API's limit on every resource name (and on profile names). */
export const MAX_NAME_LENGTH = 63;
const PROFILE_NAME = /^[a-z0-9]+(-[a-z0-9]+)+$/;
const REGION = /^[a-z]{2}-[a-z]+$/;
export const MAX_REGION_LENGTH = 32;
/** The number after "<region>-" in a zone name (us-south-1 ... us-south-3). */
const ZONE_NUMBER = /^[0-9]{1,3}$/;

const validRegion = (region: string): boolean => region.length <= MAX_REGION_LENGTH && REGION.test(region);

/** Whether `zone` is "<region>-<n>"; plain string operations, so the cost is linear in the zone's length. */
export const isZoneOf = (zone: string, region: string): boolean =>
  zone.startsWith(`${region}-`) && ZONE_NUMBER.test(zone.slice(region.length + 1));
/** Global Tagging: letters, digits, spaces, "_", "-", "." (and ":" between key and value), at most 128. */
const TAG_PART = /^[A-Za-z0-9 _.-]+$/;
export const MAX_TAG_LENGTH = 128;
const GEN1_MAX_GIB = 250;
const SDP_MAX_GIB = 32_000;
const MIN_BOOT_GIB = 10;

function validateBootVolume(s: IBMCloudMachineProviderSpec, P: string, errors: FieldIssue[]): void {
  const b = s.bootVolume;
  if (!b) return;
  const path = `${P}.bootVolume`;
  const profile = b.profile ?? DEFAULT_BOOT_VOLUME_PROFILE;
  if (!(BOOT_VOLUME_PROFILES as readonly string[]).includes(profile))
    errors.push(unsupportedValue(`${path}.profile`, profile, BOOT_VOLUME_PROFILES));
  if (b.sizeGiB !== undefined) {
    const max = profile === 'sdp' ? SDP_MAX_GIB : GEN1_MAX_GIB;
    if (b.sizeGiB < MIN_BOOT_GIB || b.sizeGiB > max)
      errors.push(
        invalidValue(
          `${path}.sizeGiB`,
          b.sizeGiB,
          `must be from ${MIN_BOOT_GIB} to ${max} GiB for volume profile ${profile}`,
        ),
      );
  }
  if (b.iops !== undefined) {
    if (b.iops < 1) errors.push(invalidValue(`${path}.iops`, b.iops, 'must be positive'));
    else if (profile !== 'custom' && profile !== 'sdp')
      errors.push(
        forbiddenValue(`${path}.iops`, `iops can be set only for the custom and sdp volume profiles, not ${profile}`),
      );
  }
  if (b.bandwidth !== undefined) {
    if (b.bandwidth < 1) errors.push(invalidValue(`${path}.bandwidth`, b.bandwidth, 'must be positive'));
    else if (profile !== 'sdp')
      errors.push(
        forbiddenValue(`${path}.bandwidth`, `bandwidth can be set only for the sdp volume profile, not ${profile}`),
      );
  }
  if (b.encryptionKey !== undefined && !b.encryptionKey.startsWith('crn:')) {
    errors.push(
      invalidValue(
        `${path}.encryptionKey`,
        b.encryptionKey,
        'must be the CRN of a Key Protect or Hyper Protect Crypto Services root key (crn:v1:...)',
      ),
    );
  }
}

function validateTags(s: IBMCloudMachineProviderSpec, P: string, errors: FieldIssue[]): void {
  const seen = new Set<string>();
  (s.tags ?? []).forEach((t, i) => {
    const path = `${P}.tags[${i}]`;
    if (!t.name) {
      errors.push(requiredValue(`${path}.name`, 'a tag needs a name'));
      return;
    }
    if (!TAG_PART.test(t.name))
      errors.push(invalidValue(`${path}.name`, t.name, 'may contain only letters, digits, spaces, "_", "-" and "."'));
    if (t.value && !TAG_PART.test(t.value))
      errors.push(invalidValue(`${path}.value`, t.value, 'may contain only letters, digits, spaces, "_", "-" and "."'));
    const full = t.value ? `${t.name}:${t.value}` : t.name;
    if (full.length > MAX_TAG_LENGTH)
      errors.push(invalidValue(path, full, `"name:value" must be at most ${MAX_TAG_LENGTH} characters`));
    if (seen.has(t.name)) errors.push(invalidValue(`${path}.name`, t.name, 'duplicate tag name'));
    seen.add(t.name);
  });
}

/** Checks a decoded spec; `P` is the path of the providerSpec value. */
export function validateProviderSpec(s: IBMCloudMachineProviderSpec, P: string): ValidationResult {
  const errors: FieldIssue[] = [];
  const warnings: string[] = [];
  const required = (key: 'vpc' | 'image' | 'profile' | 'region' | 'zone' | 'resourceGroup', what: string) => {
    if (!s[key]) errors.push(requiredValue(`${P}.${key}`, what));
  };
  required('vpc', 'the name of the VPC the instance joins');
  required('image', 'the name of a private image in resourceGroup');
  required('profile', 'an instance profile such as bx2-4x16');
  required('region', 'a region such as us-south');
  required('zone', 'a zone such as us-south-1');
  required('resourceGroup', 'the name of the resource group the instance goes in');
  if (s.vpc && (s.vpc.length > MAX_NAME_LENGTH || !VPC_NAME.test(s.vpc))) {
    errors.push(
      invalidValue(
        `${P}.vpc`,
        s.vpc,
        `VPC names are lower-case letters, digits and "-", starting with a letter, at most ${MAX_NAME_LENGTH} characters`,
      ),
    );
  }
  if (s.profile && (s.profile.length > MAX_NAME_LENGTH || !PROFILE_NAME.test(s.profile))) {
    errors.push(
      invalidValue(
        `${P}.profile`,
        s.profile,
        `instance profile names look like bx2-4x16 (at most ${MAX_NAME_LENGTH} characters)`,
      ),
    );
  }
  const regionValid = validRegion(s.region);
  if (s.region && !regionValid)
    errors.push(
      invalidValue(
        `${P}.region`,
        s.region,
        `regions look like us-south or eu-de (at most ${MAX_REGION_LENGTH} characters)`,
      ),
    );
  // The zone is checked against the region only once the region itself is valid: a bad region is reported
  // once, on its own field, and never becomes part of another check.
  if (s.zone && regionValid && !isZoneOf(s.zone, s.region)) {
    errors.push(invalidValue(`${P}.zone`, s.zone, `must be a zone of region ${s.region}, e.g. ${s.region}-1`));
  }
  const nic = s.primaryNetworkInterface;
  if (!nic.subnet)
    errors.push(requiredValue(`${P}.primaryNetworkInterface.subnet`, 'the name of the subnet the instance joins'));
  const groups = new Set<string>();
  (nic.securityGroups ?? []).forEach((g, i) => {
    const path = `${P}.primaryNetworkInterface.securityGroups[${i}]`;
    if (!g) errors.push(requiredValue(path, 'security group names must not be empty'));
    else if (groups.has(g)) errors.push(invalidValue(path, g, 'duplicate security group'));
    groups.add(g);
  });
  if (!s.credentialsSecret?.name) {
    errors.push(
      requiredValue(`${P}.credentialsSecret.name`, `the Secret holding the IAM API key (key ibmcloud_api_key)`),
    );
  }
  validateBootVolume(s, P, errors);
  validateTags(s, P, errors);
  if (!s.userDataSecret?.name)
    warnings.push(`${P}.userDataSecret: no user data Secret named; the instance boots without user data`);
  return { errors, warnings };
}
