// AWSMachineProviderConfig / AWSMachineProviderStatus: the JSON shapes of openshift/api machine/v1beta1,
// decoded from Machine.spec.providerSpec.value with the reference webhook's defaults, then validated
// (provider-spec-validation.ts). Unknown fields are reported, never silently dropped.
import {
  SpecReader,
  FALLBACKS_FIELD,
  compactSpec,
  checkWithFallbacks,
  groupVersionKindWarning,
  throwOnFieldIssues,
  readCommonProviderStatus,
  type CapacityEntryRecord,
  type FieldIssue,
  type Machine,
  type ObjectReader,
  type ProviderCondition,
} from '../../lib/index.js';
import { AWS_FALLBACKS } from './fallbacks.js';
import { validateProviderConfig } from './provider-spec-validation.js';

export const PROVIDER_SPEC_PATH = 'spec.providerSpec.value';
export const PROVIDER_CONFIG_KIND = 'AWSMachineProviderConfig';
export const PROVIDER_STATUS_KIND = 'AWSMachineProviderStatus';
/** Both groups the reference accepts; v1beta1 is what writers use today, v1 the webhook also tolerates. */
export const PROVIDER_CONFIG_API_VERSIONS = [
  'machine.openshift.io/v1beta1',
  'awsproviderconfig.openshift.io/v1beta1',
  'machine.openshift.io/v1',
  'awsproviderconfig.openshift.io/v1',
] as const;

export const DEFAULT_INSTANCE_TYPE_AMD64 = 'm5.large';
export const DEFAULT_INSTANCE_TYPE_ARM64 = 'm6g.large';
export const DEFAULT_USER_DATA_SECRET = 'worker-user-data';
export const DEFAULT_CREDENTIALS_SECRET = 'aws-cloud-credentials';

export const Tenancies = ['default', 'dedicated', 'host'] as const;
export const MarketTypes = ['OnDemand', 'Spot', 'CapacityBlock'] as const;
export const LoadBalancerTypes = ['classic', 'network'] as const;
export const NetworkInterfaceTypes = ['ENA', 'EFA'] as const;
export const MetadataAuthentications = ['Required', 'Optional'] as const;
export const ConfidentialComputePolicies = ['Disabled', 'AMDEncryptedVirtualizationNestedPaging'] as const;
export const HostAffinities = ['AnyAvailable', 'DedicatedHost'] as const;
export const HostAllocationStrategies = ['UserProvided', 'Dynamic'] as const;

export interface Filter {
  name: string;
  values?: string[];
}

/** Exactly one of id / arn / filters is meant to be set; the actuator's precedence is id > filters. */
export interface AWSResourceReference {
  id?: string;
  arn?: string;
  filters?: Filter[];
}

export interface TagSpecification {
  name: string;
  value: string;
}

export interface EBSBlockDeviceSpec {
  /** Deprecated upstream and without effect: volumes are always deleted on termination. */
  deleteOnTermination?: boolean;
  encrypted?: boolean;
  kmsKey?: AWSResourceReference;
  iops?: number;
  throughputMib?: number;
  volumeSize?: number;
  volumeType?: string;
}

export interface BlockDeviceMappingSpec {
  deviceName?: string;
  ebs?: EBSBlockDeviceSpec;
  noDevice?: string;
  virtualName?: string;
}

export interface DedicatedHost {
  allocationStrategy?: string;
  id?: string;
  dynamicHostAllocation?: { tags?: TagSpecification[] };
}

export interface HostPlacement {
  affinity?: string;
  dedicatedHost?: DedicatedHost;
}

export interface Placement {
  region?: string;
  availabilityZone?: string;
  tenancy?: string;
  host?: HostPlacement;
}

export interface LoadBalancerReference {
  name: string;
  type: string;
}

export interface AWSMachineProviderConfig {
  apiVersion?: string;
  kind?: string;
  ami: AWSResourceReference;
  instanceType: string;
  cpuOptions?: { confidentialCompute?: string };
  tags?: TagSpecification[];
  iamInstanceProfile?: AWSResourceReference;
  userDataSecret?: { name?: string };
  credentialsSecret?: { name?: string };
  keyName?: string;
  deviceIndex: number;
  publicIp?: boolean;
  networkInterfaceType?: string;
  securityGroups?: AWSResourceReference[];
  subnet: AWSResourceReference;
  placement: Placement;
  loadBalancers?: LoadBalancerReference[];
  blockDevices?: BlockDeviceMappingSpec[];
  spotMarketOptions?: { maxPrice?: string };
  metadataServiceOptions: { authentication?: string };
  placementGroupName?: string;
  placementGroupPartition?: number;
  capacityReservationId?: string;
  marketType?: string;
  /** Capacity fallback entries, as written (decoded and validated by decodeFallbacks into DecodedProviderConfig.fallbacks). */
  fallbacks?: unknown;
}

export interface AWSMachineProviderStatus {
  apiVersion?: string;
  kind?: string;
  instanceId?: string | null;
  instanceState?: string | null;
  conditions?: ProviderCondition[];
  dedicatedHost?: { id?: string };
  /** The capacity entry the Machine runs on, for specs with fallbacks. */
  capacityEntry?: CapacityEntryRecord;
}

export interface DecodeOptions {
  /** The cluster's region (Infrastructure status); the webhook's default for placement.region. */
  defaultRegion?: string;
  /** Architecture of the control plane; picks the default instance type as the webhook does. */
  defaultArchitecture?: 'amd64' | 'arm64';
  /** Whether the Machine is a control-plane machine (host tenancy is forbidden there). */
  controlPlane?: boolean;
  /** Where the value came from, for field paths (a MachineSet template's differs). Default spec.providerSpec.value. */
  path?: string;
}

export interface DecodedProviderConfig {
  config: AWSMachineProviderConfig;
  /** Human-readable warnings, as the reference webhook returns them (never failures). */
  warnings: string[];
  /** Field paths of keys this provider does not know; they are ignored. */
  unknownFields: string[];
  /** The fallback entries, each merged over the primary and validated; empty without fallbacks. */
  fallbacks: AWSMachineProviderConfig[];
}

function readReference(o: ObjectReader): AWSResourceReference {
  return {
    id: o.string('id'),
    arn: o.string('arn'),
    filters: o.objectArray('filters', (f) => ({ name: f.string('name') ?? '', values: f.stringArray('values') })),
  };
}

const readTags = (o: ObjectReader, key: string): TagSpecification[] | undefined =>
  o.objectArray(key, (t) => ({ name: t.string('name') ?? '', value: t.string('value') ?? '' }));

function readPlacement(o: ObjectReader): Placement {
  return {
    region: o.string('region'),
    availabilityZone: o.string('availabilityZone'),
    tenancy: o.string('tenancy'),
    host: o.object('host', (h) => ({
      affinity: h.string('affinity'),
      dedicatedHost: h.object('dedicatedHost', (d) => ({
        allocationStrategy: d.string('allocationStrategy'),
        id: d.string('id'),
        dynamicHostAllocation: d.object('dynamicHostAllocation', (a) => ({ tags: readTags(a, 'tags') })),
      })),
    })),
  };
}

function readBlockDevice(o: ObjectReader): BlockDeviceMappingSpec {
  return {
    deviceName: o.string('deviceName'),
    noDevice: o.string('noDevice'),
    virtualName: o.string('virtualName'),
    ebs: o.object('ebs', (e) => ({
      deleteOnTermination: e.boolean('deleteOnTermination'),
      encrypted: e.boolean('encrypted'),
      kmsKey: e.object('kmsKey', readReference),
      iops: e.integer('iops'),
      throughputMib: e.integer('throughputMib'),
      volumeSize: e.integer('volumeSize'),
      volumeType: e.string('volumeType'),
    })),
  };
}

/** Structural decode of providerSpec.value with the webhook defaults applied; no semantic validation. */
export function readProviderConfig(
  value: unknown,
  opts: DecodeOptions = {},
): Omit<DecodedProviderConfig, 'fallbacks'> & { errors: FieldIssue[] } {
  const reader = new SpecReader();
  const warnings: string[] = [];
  const root = reader.object(value ?? {}, opts.path ?? PROVIDER_SPEC_PATH);
  const config: AWSMachineProviderConfig = {
    ami: {},
    instanceType: '',
    deviceIndex: 0,
    subnet: {},
    placement: {},
    metadataServiceOptions: {},
  };
  if (root) {
    config.apiVersion = root.string('apiVersion');
    config.kind = root.string('kind');
    config.ami = root.object('ami', readReference) ?? {};
    config.instanceType = root.string('instanceType') ?? '';
    config.cpuOptions = root.object('cpuOptions', (c) => ({ confidentialCompute: c.string('confidentialCompute') }));
    config.tags = readTags(root, 'tags');
    config.iamInstanceProfile = root.object('iamInstanceProfile', readReference);
    config.userDataSecret = root.object('userDataSecret', (s) => ({ name: s.string('name') }));
    config.credentialsSecret = root.object('credentialsSecret', (s) => ({ name: s.string('name') }));
    config.keyName = root.string('keyName');
    config.deviceIndex = root.integer('deviceIndex') ?? 0;
    config.publicIp = root.boolean('publicIp');
    config.networkInterfaceType = root.string('networkInterfaceType');
    config.securityGroups = root.objectArray('securityGroups', readReference);
    config.subnet = root.object('subnet', readReference) ?? {};
    config.placement = root.object('placement', readPlacement) ?? {};
    config.loadBalancers = root.objectArray('loadBalancers', (l) => ({
      name: l.string('name') ?? '',
      type: l.string('type') ?? '',
    }));
    config.blockDevices = root.objectArray('blockDevices', readBlockDevice);
    config.spotMarketOptions = root.object('spotMarketOptions', (s) => ({ maxPrice: s.string('maxPrice') }));
    config.metadataServiceOptions =
      root.object('metadataServiceOptions', (m) => ({ authentication: m.string('authentication') })) ?? {};
    config.placementGroupName = root.string('placementGroupName');
    config.placementGroupPartition = root.integer('placementGroupPartition');
    config.capacityReservationId = root.string('capacityReservationId');
    config.marketType = root.string('marketType');
    config.fallbacks = root.raw(FALLBACKS_FIELD) ?? undefined;
    root.done();
  }

  const gvkWarning = groupVersionKindWarning(config, PROVIDER_CONFIG_API_VERSIONS, PROVIDER_CONFIG_KIND);
  if (gvkWarning) warnings.push(gvkWarning);

  // The reference webhook's defaulting.
  if (!config.instanceType) {
    config.instanceType =
      opts.defaultArchitecture === 'arm64' ? DEFAULT_INSTANCE_TYPE_ARM64 : DEFAULT_INSTANCE_TYPE_AMD64;
    warnings.push(
      `providerSpec.instanceType: no instanceType provided, setting the default instance type ${config.instanceType}`,
    );
  }
  if (!config.placement.region && opts.defaultRegion) config.placement.region = opts.defaultRegion;
  if (!config.userDataSecret) config.userDataSecret = { name: DEFAULT_USER_DATA_SECRET };
  else if (!config.userDataSecret.name) config.userDataSecret.name = DEFAULT_USER_DATA_SECRET;
  if (!config.credentialsSecret) config.credentialsSecret = { name: DEFAULT_CREDENTIALS_SECRET };

  for (const f of reader.unknownFields) warnings.push(`Unknown field (${f}) will be ignored`);
  return { config: compactSpec(config), warnings, unknownFields: reader.unknownFields, errors: reader.errors };
}

/** Throws one InvalidMachineConfigurationError naming the first bad field and listing every issue. */
export const throwIfInvalid: (issues: FieldIssue[]) => void = throwOnFieldIssues;

/**
 * Reads and validates a providerSpec value and its fallback entries (each merged over it): the spec, its entries,
 * every issue with its field path, and the warnings.
 */
export function checkProviderConfig(
  value: unknown,
  opts: DecodeOptions = {},
): DecodedProviderConfig & { errors: FieldIssue[] } {
  const read = (v: unknown, path: string) => {
    const { config, errors, warnings, unknownFields } = readProviderConfig(v, { ...opts, path });
    return { spec: config, errors, warnings, unknownFields };
  };
  const validate = (config: AWSMachineProviderConfig, path: string) =>
    validateProviderConfig(config, { controlPlane: opts.controlPlane ?? false, path });
  const { spec, ...checked } = checkWithFallbacks(
    value,
    opts.path ?? PROVIDER_SPEC_PATH,
    { read, validate },
    AWS_FALLBACKS,
  );
  return { config: spec, ...checked };
}

/** Decodes, defaults and validates a providerSpec value; throws InvalidMachineConfigurationError. */
export function decodeProviderConfig(value: unknown, opts: DecodeOptions = {}): DecodedProviderConfig {
  const { errors, ...decoded } = checkProviderConfig(value, opts);
  throwIfInvalid(errors);
  return decoded;
}

const isControlPlane = (m: Machine): boolean => {
  const labels = m.metadata.labels ?? {};
  return (
    labels['machine.openshift.io/cluster-api-machine-role'] === 'master' ||
    labels['machine.openshift.io/cluster-api-machine-type'] === 'master'
  );
};

/** decodeProviderConfig for a Machine: knows it must be control plane from its role labels. */
export function decodeMachineProviderConfig(
  machine: Machine,
  opts: Omit<DecodeOptions, 'controlPlane'> = {},
): DecodedProviderConfig {
  return decodeProviderConfig(machine.spec?.providerSpec?.value, { ...opts, controlPlane: isControlPlane(machine) });
}

/** Reads status.providerStatus leniently: it is our own output, so a malformed one is just reset. */
export function decodeProviderStatus(value: unknown): AWSMachineProviderStatus {
  const { status, raw } = readCommonProviderStatus(value);
  const out: AWSMachineProviderStatus = status;
  const host = raw.dedicatedHost as { id?: unknown } | undefined;
  if (host && typeof host === 'object') out.dedicatedHost = typeof host.id === 'string' ? { id: host.id } : {};
  return out;
}

/** The JSON written to status.providerStatus; instanceId/instanceState are null when cleared, as the Go pointers. */
export function encodeProviderStatus(status: AWSMachineProviderStatus): Record<string, unknown> {
  return compactSpec({ ...status });
}
