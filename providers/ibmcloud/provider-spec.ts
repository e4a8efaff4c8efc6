// IBMCloudMachineProviderSpec / IBMCloudMachineProviderStatus (ibmcloudproviderconfig.openshift.io/v1beta1),
// decoded from Machine.spec.providerSpec.value, then validated (provider-spec-validation.ts). Unknown fields
// are reported, never silently dropped (the reference plain-unmarshals and loses them).
import {
  FALLBACKS_FIELD,
  compactSpec,
  checkWithFallbacks,
  readCommonProviderStatus,
  groupVersionKindWarning,
  SpecReader,
  throwOnFieldIssues,
  type CapacityEntryRecord,
  type FieldIssue,
  type ObjectReader,
} from '../../lib/index.js';
import { IBM_FALLBACKS } from './fallbacks.js';
import { validateProviderSpec } from './provider-spec-validation.js';

export const PROVIDER_SPEC_PATH = 'spec.providerSpec.value';
export const TEMPLATE_SPEC_PATH = 'spec.template.spec.providerSpec.value';
export const PROVIDER_API_VERSION = 'ibmcloudproviderconfig.openshift.io/v1beta1';
export const PROVIDER_SPEC_KIND = 'IBMCloudMachineProviderSpec';
export const PROVIDER_STATUS_KIND = 'IBMCloudMachineProviderStatus';

/** The Secret key holding the raw IAM API key. */
export const API_KEY_SECRET_KEY = 'ibmcloud_api_key';
export const DEFAULT_BOOT_VOLUME_PROFILE = 'general-purpose';
export const BOOT_VOLUME_PROFILES = ['general-purpose', '5iops-tier', '10iops-tier', 'custom', 'sdp'] as const;

export interface SecretRef {
  name?: string;
}

export interface IBMCloudBootVolume {
  /** Key Protect or HPCS key CRN. */
  encryptionKey?: string;
  profile?: string;
  sizeGiB?: number;
  iops?: number;
  /** Mbps (sdp only). */
  bandwidth?: number;
}

export interface IBMCloudTag {
  name: string;
  value?: string;
}

export interface IBMCloudNetworkInterface {
  /** Subnet name. */
  subnet: string;
  /** Security group names. */
  securityGroups?: string[];
}

export interface IBMCloudMachineProviderSpec {
  apiVersion?: string;
  kind?: string;
  /** VPC name. */
  vpc: string;
  bootVolume?: IBMCloudBootVolume;
  tags?: IBMCloudTag[];
  /** Private image name, in resourceGroup. */
  image: string;
  /** Instance profile, e.g. bx2-4x16. */
  profile: string;
  /** Dedicated host name, in resourceGroup and zone. */
  dedicatedHost?: string;
  region: string;
  zone: string;
  /** Resource group name: the instance's, and where the image, security groups (unless networkResourceGroup) and dedicated host are. */
  resourceGroup: string;
  /** Resource group name of the VPC, subnet and security groups; defaults to resourceGroup. */
  networkResourceGroup?: string;
  primaryNetworkInterface: IBMCloudNetworkInterface;
  userDataSecret?: SecretRef;
  credentialsSecret?: SecretRef;
  /** Capacity fallback entries, as written (decoded and validated by decodeFallbacks into DecodedProviderSpec.fallbacks). */
  fallbacks?: unknown;
}

/** The provider's own condition type (not metav1.Condition): it has lastProbeTime. */
export interface IBMCloudMachineProviderCondition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  lastProbeTime?: string;
  lastTransitionTime?: string;
  reason?: string;
  message?: string;
}

export interface IBMCloudMachineProviderStatus {
  apiVersion?: string;
  kind?: string;
  /** The VPC instance id, e.g. 0717_... */
  instanceId?: string | null;
  /** The VPC status: pending, starting, running, stopping, stopped, restarting, deleting, failed. */
  instanceState?: string | null;
  conditions?: IBMCloudMachineProviderCondition[];
  /** The capacity entry the Machine runs on, for specs with fallbacks. */
  capacityEntry?: CapacityEntryRecord;
}

export const MachineCreatedConditionType = 'MachineCreated';
export const MachineCreationSucceededReason = 'MachineCreationSucceeded';
export const MachineCreationFailedReason = 'MachineCreationFailed';

export const DEFAULT_USER_DATA_SECRET = 'worker-user-data';
/** The Secret the IBM CredentialsRequest asks the cloud credential operator to write. */
export const DEFAULT_CREDENTIALS_SECRET = 'ibmcloud-credentials';

/**
 * What the admission webhook fills in when a spec leaves it out. The reference has no IBM Cloud webhook; these
 * follow the AWS and GCP ones: the user-data and credentials Secrets the installer and the cloud credential
 * operator create, and the cluster's own region and resource group (Infrastructure platformStatus.ibmcloud).
 */
export interface WebhookDefaults {
  /** platformStatus.ibmcloud.location */
  region?: string;
  /** platformStatus.ibmcloud.resourceGroupName */
  resourceGroup?: string;
}

export interface DecodeOptions {
  /** Where the value came from, for field paths. Default spec.providerSpec.value. */
  path?: string;
  /** Apply the admission webhook's defaults; the actuator reads specs as they were admitted and passes none. */
  webhookDefaults?: WebhookDefaults;
}

export interface DecodedProviderSpec {
  spec: IBMCloudMachineProviderSpec;
  warnings: string[];
  /** Field paths of keys this provider does not know; they are ignored. */
  unknownFields: string[];
  /** The fallback entries, each merged over the primary and validated; empty without fallbacks. */
  fallbacks: IBMCloudMachineProviderSpec[];
}

const readSecretRef = (o: ObjectReader): SecretRef => ({ name: o.string('name') });

/** Structural decode; no semantic validation. */
export function readProviderSpec(
  value: unknown,
  opts: DecodeOptions = {},
): Omit<DecodedProviderSpec, 'fallbacks'> & { errors: FieldIssue[] } {
  const path = opts.path ?? PROVIDER_SPEC_PATH;
  const reader = new SpecReader();
  const warnings: string[] = [];
  const spec: IBMCloudMachineProviderSpec = {
    vpc: '',
    image: '',
    profile: '',
    region: '',
    zone: '',
    resourceGroup: '',
    primaryNetworkInterface: { subnet: '' },
  };
  const root = reader.object(value ?? {}, path);
  if (root) {
    root.ignore('metadata');
    spec.apiVersion = root.string('apiVersion');
    spec.kind = root.string('kind');
    spec.vpc = root.string('vpc') ?? '';
    spec.bootVolume = root.object('bootVolume', (b) => ({
      encryptionKey: b.string('encryptionKey') || undefined,
      profile: b.string('profile') || undefined,
      sizeGiB: b.integer('sizeGiB') || undefined,
      iops: b.integer('iops') || undefined,
      bandwidth: b.integer('bandwidth') || undefined,
    }));
    spec.tags = root.objectArray('tags', (t) => ({ name: t.string('name') ?? '', value: t.string('value') }));
    spec.image = root.string('image') ?? '';
    spec.profile = root.string('profile') ?? '';
    spec.dedicatedHost = root.string('dedicatedHost') || undefined;
    spec.region = root.string('region') ?? '';
    spec.zone = root.string('zone') ?? '';
    spec.resourceGroup = root.string('resourceGroup') ?? '';
    spec.networkResourceGroup = root.string('networkResourceGroup') || undefined;
    spec.primaryNetworkInterface = root.object('primaryNetworkInterface', (n) => ({
      subnet: n.string('subnet') ?? '',
      securityGroups: n.stringArray('securityGroups'),
    })) ?? {
      subnet: '',
    };
    spec.userDataSecret = root.object('userDataSecret', readSecretRef);
    spec.credentialsSecret = root.object('credentialsSecret', readSecretRef);
    spec.fallbacks = root.raw(FALLBACKS_FIELD) ?? undefined;
    root.done();
  }
  const defaults = opts.webhookDefaults;
  if (defaults) {
    if (!spec.region && defaults.region) spec.region = defaults.region;
    if (!spec.resourceGroup && defaults.resourceGroup) spec.resourceGroup = defaults.resourceGroup;
    if (!spec.userDataSecret?.name) spec.userDataSecret = { ...spec.userDataSecret, name: DEFAULT_USER_DATA_SECRET };
    if (!spec.credentialsSecret?.name)
      spec.credentialsSecret = { ...spec.credentialsSecret, name: DEFAULT_CREDENTIALS_SECRET };
  }
  const gvkWarning = groupVersionKindWarning(spec, [PROVIDER_API_VERSION], PROVIDER_SPEC_KIND);
  if (gvkWarning) warnings.push(gvkWarning);
  for (const f of reader.unknownFields) warnings.push(`Unknown field (${f}) will be ignored`);
  return { spec: compactSpec(spec), warnings, unknownFields: reader.unknownFields, errors: reader.errors };
}

/** Throws one InvalidMachineConfigurationError naming the first bad field and listing every issue. */
export const throwIfInvalid: (issues: FieldIssue[]) => void = throwOnFieldIssues;

/**
 * Reads and validates a providerSpec value and its fallback entries (each merged over it): the spec, its entries,
 * every issue with its field path, and the warnings.
 */
export function checkProviderSpec(
  value: unknown,
  opts: DecodeOptions = {},
): DecodedProviderSpec & { errors: FieldIssue[] } {
  return checkWithFallbacks(
    value,
    opts.path ?? PROVIDER_SPEC_PATH,
    { read: (v, path) => readProviderSpec(v, { ...opts, path }), validate: validateProviderSpec },
    IBM_FALLBACKS,
  );
}

/** Decodes and validates a providerSpec value; throws InvalidMachineConfigurationError. */
export function decodeProviderSpec(value: unknown, opts: DecodeOptions = {}): DecodedProviderSpec {
  const { errors, ...decoded } = checkProviderSpec(value, opts);
  throwIfInvalid(errors);
  return decoded;
}

/** The resource group of the VPC, subnet and security groups. */
export const networkResourceGroupOf = (spec: IBMCloudMachineProviderSpec): string =>
  spec.networkResourceGroup || spec.resourceGroup;

/** Reads status.providerStatus leniently: it is our own output, so a malformed one is just reset. */
export function decodeProviderStatus(value: unknown): IBMCloudMachineProviderStatus {
  // The conditions are kept as written, in the provider's own shape (with lastProbeTime).
  return readCommonProviderStatus(value).status;
}

/** The JSON written to status.providerStatus (the reference has no metadata field here). */
export function encodeProviderStatus(status: IBMCloudMachineProviderStatus): Record<string, unknown> {
  return compactSpec({
    apiVersion: status.apiVersion ?? PROVIDER_API_VERSION,
    kind: status.kind ?? PROVIDER_STATUS_KIND,
    instanceId: status.instanceId ?? undefined,
    instanceState: status.instanceState ?? undefined,
    conditions: status.conditions,
    capacityEntry: status.capacityEntry,
  });
}

/**
 * The reference's condition rule: a new condition gets both times; an existing one changes only when status,
 * reason or message differ, lastTransitionTime only when the status flips, lastProbeTime on every change.
 */
export function setCondition(
  status: IBMCloudMachineProviderStatus,
  cond: Omit<IBMCloudMachineProviderCondition, 'lastProbeTime' | 'lastTransitionTime'>,
  nowIso: string,
): void {
  const conditions = status.conditions ?? [];
  const existing = conditions.find((c) => c.type === cond.type);
  if (!existing) {
    conditions.push({ ...cond, lastProbeTime: nowIso, lastTransitionTime: nowIso });
  } else if (existing.status !== cond.status || existing.reason !== cond.reason || existing.message !== cond.message) {
    if (existing.status !== cond.status) existing.lastTransitionTime = nowIso;
    existing.lastProbeTime = nowIso;
    existing.status = cond.status;
    existing.reason = cond.reason;
    existing.message = cond.message;
  }
  status.conditions = conditions;
}
