// GCPMachineProviderSpec / GCPMachineProviderStatus: the JSON shapes of openshift/api machine/v1beta1,
// decoded from Machine.spec.providerSpec.value with the reference webhook's defaults, then validated
// (provider-spec-validation.ts). Unknown fields are reported, never silently dropped.
import {
  SpecReader,
  compactSpec,
  groupVersionKindWarning,
  invalidValue,
  keyPath,
  setOwn,
  throwOnFieldIssues,
  readCommonProviderStatus,
  FALLBACKS_FIELD,
  checkWithFallbacks,
  type CapacityEntryRecord,
  type FieldIssue,
  type ObjectReader,
  type ProviderCondition,
} from '../../lib/index.js';
import { GCP_FALLBACKS } from './fallbacks.js';
import { validateProviderSpec } from './provider-spec-validation.js';

export const PROVIDER_SPEC_PATH = 'spec.providerSpec.value';
export const PROVIDER_SPEC_KIND = 'GCPMachineProviderSpec';
export const PROVIDER_STATUS_KIND = 'GCPMachineProviderStatus';
/** The groups and versions the reference webhook accepts without a warning. */
export const PROVIDER_SPEC_API_VERSIONS = [
  'machine.openshift.io/v1beta1',
  'gcpprovider.openshift.io/v1beta1',
  'machine.openshift.io/v1',
  'gcpprovider.openshift.io/v1',
] as const;

export const DEFAULT_MACHINE_TYPE_AMD64 = 'n1-standard-4';
export const DEFAULT_MACHINE_TYPE_ARM64 = 't2a-standard-4';
export const DEFAULT_USER_DATA_SECRET = 'worker-user-data';
export const DEFAULT_CREDENTIALS_SECRET = 'gcp-cloud-credentials';
export const DEFAULT_DISK_TYPE = 'pd-standard';
export const DEFAULT_DISK_SIZE_GB = 128;

export const OnHostMaintenanceTypes = ['Migrate', 'Terminate'] as const;
export const RestartPolicies = ['Always', 'Never'] as const;
export const ShieldedSettings = ['Enabled', 'Disabled'] as const;
export const ProvisioningModels = ['Spot'] as const;
export const ConfidentialComputePolicies = [
  'Enabled',
  'Disabled',
  'AMDEncryptedVirtualization',
  'AMDEncryptedVirtualizationNestedPaging',
  'IntelTrustedDomainExtensions',
] as const;

export interface SecretRef {
  name?: string;
}

export interface GCPKMSKeyReference {
  name: string;
  keyRing: string;
  projectID?: string;
  location: string;
}

export interface GCPEncryptionKeyReference {
  kmsKey?: GCPKMSKeyReference;
  kmsKeyServiceAccount?: string;
}

export interface GCPDisk {
  autoDelete: boolean;
  boot: boolean;
  sizeGb: number;
  type: string;
  image: string;
  labels?: Record<string, string>;
  encryptionKey?: GCPEncryptionKeyReference;
}

export interface GCPMetadata {
  key: string;
  value?: string;
}

export interface GCPNetworkInterface {
  publicIP?: boolean;
  network?: string;
  projectID?: string;
  subnetwork?: string;
}

export interface GCPServiceAccount {
  email: string;
  scopes: string[];
}

export interface GCPGPUConfig {
  count: number;
  type: string;
}

export interface GCPShieldedInstanceConfig {
  secureBoot?: string;
  virtualizedTrustedPlatformModule?: string;
  integrityMonitoring?: string;
}

export interface ResourceManagerTag {
  parentID: string;
  key: string;
  value: string;
}

export interface GCPMachineProviderSpec {
  apiVersion?: string;
  kind?: string;
  userDataSecret?: SecretRef;
  credentialsSecret?: SecretRef;
  canIPForward: boolean;
  deletionProtection: boolean;
  disks: GCPDisk[];
  labels?: Record<string, string>;
  gcpMetadata?: GCPMetadata[];
  networkInterfaces: GCPNetworkInterface[];
  serviceAccounts: GCPServiceAccount[];
  tags?: string[];
  targetPools?: string[];
  machineType: string;
  region: string;
  zone: string;
  projectID?: string;
  gpus?: GCPGPUConfig[];
  preemptible?: boolean;
  provisioningModel?: string;
  onHostMaintenance?: string;
  restartPolicy?: string;
  shieldedInstanceConfig: GCPShieldedInstanceConfig;
  confidentialCompute?: string;
  resourceManagerTags?: ResourceManagerTag[];
  /** Capacity fallback entries, as written (decoded and validated by decodeFallbacks into DecodedProviderSpec.fallbacks). */
  fallbacks?: unknown;
}

export interface GCPMachineProviderStatus {
  apiVersion?: string;
  kind?: string;
  /** The instance name (the reference stores the name, not the numeric id). */
  instanceId?: string | null;
  /** The GCE status: PROVISIONING, STAGING, RUNNING, STOPPING, TERMINATED, ... */
  instanceState?: string | null;
  conditions?: ProviderCondition[];
  /** The capacity entry the Machine runs on, for specs with fallbacks. */
  capacityEntry?: CapacityEntryRecord;
}

export interface DecodeOptions {
  /** The cluster's infrastructure name: defaults the network, subnetwork and tags as the webhook does. */
  clusterId?: string;
  /** Architecture of the control plane; picks the default machine type as the webhook does. */
  defaultArchitecture?: 'amd64' | 'arm64';
  /** The boot image for specs without disks (the installer's RHCOS image); unset = disks are required. */
  defaultImage?: string;
  /** Where the value came from, for field paths (a MachineSet template's differs). Default spec.providerSpec.value. */
  path?: string;
}

export interface DecodedProviderSpec {
  spec: GCPMachineProviderSpec;
  /** Human-readable warnings, as the reference webhook returns them (never failures). */
  warnings: string[];
  /** Field paths of keys this provider does not know; they are ignored. */
  unknownFields: string[];
  /** The fallback entries, each merged over the primary and validated; empty without fallbacks. */
  fallbacks: GCPMachineProviderSpec[];
}

const readSecretRef = (o: ObjectReader): SecretRef => ({ name: o.string('name') });

function readStringMap(o: ObjectReader, key: string, issues: FieldIssue[]): Record<string, string> | undefined {
  const raw = o.raw(key);
  if (raw === undefined || raw === null) return undefined;
  if (typeof raw !== 'object' || Array.isArray(raw)) {
    issues.push(invalidValue(o.field(key), raw, 'must be a map of strings'));
    return undefined;
  }
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(raw as Record<string, unknown>)) {
    if (typeof v !== 'string') issues.push(invalidValue(keyPath(o.field(key), k), v, 'must be a string'));
    // setOwn: a "__proto__" key stays an ordinary entry, to be judged by the label rules like any other.
    else setOwn(out, k, v);
  }
  return out;
}

function readDisk(o: ObjectReader, issues: FieldIssue[]): GCPDisk {
  return {
    autoDelete: o.boolean('autoDelete') ?? false,
    boot: o.boolean('boot') ?? false,
    sizeGb: o.integer('sizeGb') ?? 0,
    type: o.string('type') ?? '',
    image: o.string('image') ?? '',
    labels: readStringMap(o, 'labels', issues),
    encryptionKey: o.object('encryptionKey', (e) => ({
      kmsKey: e.object('kmsKey', (k) => ({
        name: k.string('name') ?? '',
        keyRing: k.string('keyRing') ?? '',
        projectID: k.string('projectID'),
        location: k.string('location') ?? '',
      })),
      kmsKeyServiceAccount: e.string('kmsKeyServiceAccount'),
    })),
  };
}

/** Structural decode of providerSpec.value with the webhook defaults applied; no semantic validation. */
export function readProviderSpec(
  value: unknown,
  opts: DecodeOptions = {},
): Omit<DecodedProviderSpec, 'fallbacks'> & { errors: FieldIssue[] } {
  const path = opts.path ?? PROVIDER_SPEC_PATH;
  const reader = new SpecReader();
  const mapIssues: FieldIssue[] = [];
  const warnings: string[] = [];
  const root = reader.object(value ?? {}, path);
  const spec: GCPMachineProviderSpec = {
    canIPForward: false,
    deletionProtection: false,
    disks: [],
    networkInterfaces: [],
    serviceAccounts: [],
    machineType: '',
    region: '',
    zone: '',
    shieldedInstanceConfig: {},
  };
  if (root) {
    root.ignore('metadata');
    spec.apiVersion = root.string('apiVersion');
    spec.kind = root.string('kind');
    spec.userDataSecret = root.object('userDataSecret', readSecretRef);
    spec.credentialsSecret = root.object('credentialsSecret', readSecretRef);
    spec.canIPForward = root.boolean('canIPForward') ?? false;
    spec.deletionProtection = root.boolean('deletionProtection') ?? false;
    spec.disks = root.objectArray('disks', (d) => readDisk(d, mapIssues)) ?? [];
    spec.labels = readStringMap(root, 'labels', mapIssues);
    spec.gcpMetadata = root.objectArray('gcpMetadata', (m) => ({
      key: m.string('key') ?? '',
      value: m.string('value'),
    }));
    spec.networkInterfaces =
      root.objectArray('networkInterfaces', (n) => ({
        publicIP: n.boolean('publicIP'),
        network: n.string('network'),
        projectID: n.string('projectID'),
        subnetwork: n.string('subnetwork'),
      })) ?? [];
    spec.serviceAccounts =
      root.objectArray('serviceAccounts', (s) => ({
        email: s.string('email') ?? '',
        scopes: s.stringArray('scopes') ?? [],
      })) ?? [];
    spec.tags = root.stringArray('tags');
    spec.targetPools = root.stringArray('targetPools');
    spec.machineType = root.string('machineType') ?? '';
    spec.region = root.string('region') ?? '';
    spec.zone = root.string('zone') ?? '';
    spec.projectID = root.string('projectID');
    spec.gpus = root.objectArray('gpus', (g) => ({ count: g.integer('count') ?? 0, type: g.string('type') ?? '' }));
    spec.preemptible = root.boolean('preemptible');
    spec.provisioningModel = root.string('provisioningModel');
    spec.onHostMaintenance = root.string('onHostMaintenance');
    spec.restartPolicy = root.string('restartPolicy');
    spec.shieldedInstanceConfig =
      root.object('shieldedInstanceConfig', (s) => ({
        secureBoot: s.string('secureBoot'),
        virtualizedTrustedPlatformModule: s.string('virtualizedTrustedPlatformModule'),
        integrityMonitoring: s.string('integrityMonitoring'),
      })) ?? {};
    spec.confidentialCompute = root.string('confidentialCompute');
    spec.resourceManagerTags = root.objectArray('resourceManagerTags', (t) => ({
      parentID: t.string('parentID') ?? '',
      key: t.string('key') ?? '',
      value: t.string('value') ?? '',
    }));
    spec.fallbacks = root.raw(FALLBACKS_FIELD) ?? undefined;
    root.done();
  }

  const gvkWarning = groupVersionKindWarning(spec, PROVIDER_SPEC_API_VERSIONS, PROVIDER_SPEC_KIND);
  if (gvkWarning) warnings.push(gvkWarning);

  // The reference webhook's defaulting.
  if (!spec.machineType) {
    spec.machineType = opts.defaultArchitecture === 'arm64' ? DEFAULT_MACHINE_TYPE_ARM64 : DEFAULT_MACHINE_TYPE_AMD64;
    warnings.push(
      `providerSpec.machineType: no machineType provided, setting the default machine type ${spec.machineType}`,
    );
  }
  if (spec.networkInterfaces.length === 0 && opts.clusterId) {
    spec.networkInterfaces = [{ network: `${opts.clusterId}-network`, subnetwork: `${opts.clusterId}-worker-subnet` }];
  }
  if (spec.disks.length === 0 && opts.defaultImage) {
    spec.disks = [
      { autoDelete: true, boot: true, sizeGb: DEFAULT_DISK_SIZE_GB, type: DEFAULT_DISK_TYPE, image: opts.defaultImage },
    ];
  }
  for (const d of spec.disks) {
    if (!d.type) d.type = DEFAULT_DISK_TYPE;
    if (!d.image && d.boot && opts.defaultImage) d.image = opts.defaultImage;
  }
  for (const g of spec.gpus ?? []) if (g.count === 0) g.count = 1;
  if (!spec.tags && opts.clusterId) spec.tags = [`${opts.clusterId}-worker`];
  if (!spec.userDataSecret) spec.userDataSecret = { name: DEFAULT_USER_DATA_SECRET };
  else if (!spec.userDataSecret.name) spec.userDataSecret.name = DEFAULT_USER_DATA_SECRET;
  if (!spec.credentialsSecret) spec.credentialsSecret = { name: DEFAULT_CREDENTIALS_SECRET };
  else if (!spec.credentialsSecret.name) spec.credentialsSecret.name = DEFAULT_CREDENTIALS_SECRET;

  for (const f of reader.unknownFields) warnings.push(`Unknown field (${f}) will be ignored`);
  return {
    spec: compactSpec(spec),
    warnings,
    unknownFields: reader.unknownFields,
    errors: [...reader.errors, ...mapIssues],
  };
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
    GCP_FALLBACKS,
  );
}

/** Decodes, defaults and validates a providerSpec value; throws InvalidMachineConfigurationError. */
export function decodeProviderSpec(value: unknown, opts: DecodeOptions = {}): DecodedProviderSpec {
  const { errors, ...decoded } = checkProviderSpec(value, opts);
  throwIfInvalid(errors);
  return decoded;
}

/** Reads status.providerStatus leniently: it is our own output, so a malformed one is just reset. */
export function decodeProviderStatus(value: unknown): GCPMachineProviderStatus {
  return readCommonProviderStatus(value).status;
}

/** The JSON written to status.providerStatus, in the reference's shape (`metadata: {}` included). */
export function encodeProviderStatus(status: GCPMachineProviderStatus): Record<string, unknown> {
  return compactSpec({
    apiVersion: status.apiVersion ?? 'machine.openshift.io/v1beta1',
    kind: status.kind ?? PROVIDER_STATUS_KIND,
    metadata: {},
    instanceId: status.instanceId,
    instanceState: status.instanceState,
    conditions: status.conditions,
    capacityEntry: status.capacityEntry,
  });
}
