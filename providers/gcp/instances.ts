// Pure functions from a Machine and its decoded providerSpec to Compute requests, and from an instance back
// to what the Machine records (providerID, addresses, labels). No I/O here.
import { createHash } from 'node:crypto';
import {
  InvalidMachineConfigurationError,
  keepBootingState,
  machineClusterId,
  placementLabels,
  type Machine,
  type NodeAddress,
} from '../../lib/index.js';
import type { Instance } from './compute-api.js';
import { PROVIDER_SPEC_PATH, type GCPDisk, type GCPMachineProviderSpec } from './provider-spec.js';

/** Self-links use this host whatever endpoint the client talks to; GCE compares them as strings. */
export const SELF_LINK_BASE = 'https://www.googleapis.com/compute/v1/';
/** Where relative image names resolve (the reference's basePath). */
export const IMAGE_BASE = 'https://compute.googleapis.com/compute/v1/';
export const OS_ID_LABEL = 'machine.openshift.io/os-id';
export const USER_DATA_KEY = 'user-data';
export const WINDOWS_USER_DATA_KEY = 'sysprep-specialize-script-ps1';

/** The OpenShift ownership label every instance and disk carries; it always wins over user labels. */
export const clusterLabelKey = (clusterId: string): string => `kubernetes-io-cluster-${clusterId}`;

/** The Machine's cluster label; required. */
export const clusterIdOf = (machine: Machine): string => machineClusterId(machine);

export const providerIdOf = (project: string, zone: string, name: string): string => `gce://${project}/${zone}/${name}`;
export const instanceSelfLink = (project: string, zone: string, name: string): string =>
  `${SELF_LINK_BASE}projects/${project}/zones/${zone}/instances/${name}`;
export const instanceGroupSelfLink = (project: string, zone: string, group: string): string =>
  `${SELF_LINK_BASE}projects/${project}/zones/${zone}/instanceGroups/${group}`;

/** The last path segment of a GCE URL or relative reference. */
export const lastSegment = (ref: string | null | undefined): string => (ref ?? '').split('/').pop() ?? '';

/**
 * A request id for a GCE mutation: a UUID derived from the Machine's UID, the purpose and an attempt number,
 * so a retried call (lost reply, controller restart) is recognised by GCE as the same request.
 */
export function requestIdFor(uid: string, purpose: string, attempt = 0): string {
  const h = createHash('sha256').update(`${uid}/${purpose}/${attempt}`).digest('hex');
  const variant = ((parseInt(h.charAt(16), 16) & 0x3) | 0x8).toString(16);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-5${h.slice(13, 16)}-${variant}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** instances.delete's requestId: the Machine UID itself (a Kubernetes UID is a UUID), as the reference does. */
export const deleteRequestIdFor = (uid: string): string => (UUID.test(uid) ? uid : requestIdFor(uid, 'delete'));

/**
 * Instance labels: Infrastructure resource labels, then the spec's, then the OpenShift ownership label,
 * each overriding the one before.
 */
export function buildLabels(
  clusterId: string,
  specLabels: Record<string, string> | undefined,
  infrastructureLabels: Record<string, string> = {},
): Record<string, string> {
  const merged = { ...infrastructureLabels, ...specLabels };
  const user = Object.keys(merged).filter((k) => k !== clusterLabelKey(clusterId)).length;
  if (user > 32) {
    throw new InvalidMachineConfigurationError(
      `at most 32 user labels are allowed; infrastructure resourceLabels and ${PROVIDER_SPEC_PATH}.labels together have ${user}`,
      { field: `${PROVIDER_SPEC_PATH}.labels` },
    );
  }
  return { ...merged, [clusterLabelKey(clusterId)]: 'owned' };
}

export const isWindows = (machine: Machine): boolean => machine.metadata.labels?.[OS_ID_LABEL] === 'Windows';

/** The metadata key user data goes under, and the value (Windows scripts lose their <powershell> wrapper). */
export function userDataItem(machine: Machine, userData: string): { key: string; value: string } {
  if (!isWindows(machine)) return { key: USER_DATA_KEY, value: userData };
  const open = '<powershell>';
  const close = '</powershell>\n<persist>true</persist>';
  const trimmed =
    userData.startsWith(open) && userData.endsWith(close)
      ? userData.slice(open.length, userData.length - close.length)
      : userData;
  return { key: WINDOWS_USER_DATA_KEY, value: trimmed };
}

function imageLink(image: string, project: string): string {
  return image.includes('/') ? image : `${IMAGE_BASE}projects/${project}/global/images/${image}`;
}

function buildDisk(d: GCPDisk, inputs: InstanceInputs, spec: GCPMachineProviderSpec): protosAttachedDisk {
  const initializeParams: protosAttachedDisk['initializeParams'] = {
    diskSizeGb: String(d.sizeGb),
    diskType: `zones/${spec.zone}/diskTypes/${d.type}`,
    labels: buildLabels(inputs.clusterId, d.labels, inputs.infrastructureLabels),
  };
  if (inputs.resourceManagerTags) initializeParams.resourceManagerTags = inputs.resourceManagerTags;
  if (d.image) initializeParams.sourceImage = imageLink(d.image, inputs.project);
  const out: protosAttachedDisk = { autoDelete: d.autoDelete, boot: d.boot, initializeParams };
  const kms = d.encryptionKey?.kmsKey;
  if (kms) {
    out.diskEncryptionKey = {
      kmsKeyName: `projects/${kms.projectID || inputs.project}/locations/${kms.location}/keyRings/${kms.keyRing}/cryptoKeys/${kms.name}`,
      ...(d.encryptionKey?.kmsKeyServiceAccount ? { kmsKeyServiceAccount: d.encryptionKey.kmsKeyServiceAccount } : {}),
    };
  }
  return out;
}

type protosAttachedDisk = NonNullable<Instance['disks']>[number];

export interface InstanceInputs {
  /** The project the instance goes in (the spec's, else the credentials'). */
  project: string;
  clusterId: string;
  /** The user-data Secret's content ("" when the spec names none). */
  userData: string;
  infrastructureLabels?: Record<string, string>;
  /** Resolved tag bindings, tagKeys/{id} → tagValues/{id}; unset = none. */
  resourceManagerTags?: Record<string, string>;
  /** Whether the boot image is UEFI compatible; false turns Shielded VM off when the spec leaves it unset. */
  uefiCompatible?: boolean;
}

const CONFIDENTIAL_TYPES: Record<string, string | undefined> = {
  Enabled: undefined,
  AMDEncryptedVirtualization: 'SEV',
  AMDEncryptedVirtualizationNestedPaging: 'SEV_SNP',
  IntelTrustedDomainExtensions: 'TDX',
};

/** True when the spec leaves every Shielded VM setting unset (the platform defaults apply). */
export const shieldedUnset = (spec: GCPMachineProviderSpec): boolean =>
  !spec.shieldedInstanceConfig.secureBoot &&
  !spec.shieldedInstanceConfig.virtualizedTrustedPlatformModule &&
  !spec.shieldedInstanceConfig.integrityMonitoring;

function scheduling(spec: GCPMachineProviderSpec): NonNullable<Instance['scheduling']> {
  const spot = spec.provisioningModel === 'Spot';
  const interruptible = spot || spec.preemptible === true;
  const out: NonNullable<Instance['scheduling']> = { preemptible: spec.preemptible ?? false };
  // GCE's enum is upper case (the reference sends the spec's "Terminate" verbatim and relies on leniency).
  if (spec.onHostMaintenance) out.onHostMaintenance = spec.onHostMaintenance.toUpperCase();
  else if (interruptible || (spec.gpus?.length ?? 0) > 0) out.onHostMaintenance = 'TERMINATE';
  if (spot) out.provisioningModel = 'SPOT';
  if (spec.restartPolicy === 'Always') out.automaticRestart = true;
  else if (spec.restartPolicy === 'Never' || interruptible) out.automaticRestart = false;
  return out;
}

/** The instances.insert body as the reference builds it, named after the Machine: the name is the idempotency key. */
export function buildInstance(machine: Machine, spec: GCPMachineProviderSpec, inputs: InstanceInputs): Instance {
  const name = machine.metadata.name ?? '';
  const project = inputs.project;
  const sh = spec.shieldedInstanceConfig;
  const disableShielded = shieldedUnset(spec) && inputs.uefiCompatible === false;
  const instance: Instance = {
    name,
    machineType: `zones/${spec.zone}/machineTypes/${spec.machineType}`,
    canIpForward: spec.canIPForward,
    deletionProtection: spec.deletionProtection,
    labels: buildLabels(inputs.clusterId, spec.labels, inputs.infrastructureLabels),
    tags: { items: spec.tags ?? [] },
    scheduling: scheduling(spec),
    shieldedInstanceConfig: disableShielded
      ? { enableSecureBoot: false, enableVtpm: false, enableIntegrityMonitoring: false }
      : {
          enableSecureBoot: sh.secureBoot === 'Enabled',
          enableVtpm: sh.virtualizedTrustedPlatformModule !== 'Disabled',
          enableIntegrityMonitoring: sh.integrityMonitoring !== 'Disabled',
        },
    disks: spec.disks.map((d) => buildDisk(d, inputs, spec)),
    networkInterfaces: spec.networkInterfaces.map((n) => {
      const nicProject = n.projectID || project;
      return {
        ...(n.network ? { network: `projects/${nicProject}/global/networks/${n.network}` } : {}),
        ...(n.subnetwork
          ? { subnetwork: `projects/${nicProject}/regions/${spec.region}/subnetworks/${n.subnetwork}` }
          : {}),
        accessConfigs: n.publicIP ? [{}] : [],
      };
    }),
    serviceAccounts: spec.serviceAccounts.map((s) => ({ email: s.email, scopes: s.scopes })),
    metadata: { items: metadataItems(machine, spec, inputs.userData) },
  };
  if (inputs.resourceManagerTags && Object.keys(inputs.resourceManagerTags).length > 0)
    instance.params = { resourceManagerTags: inputs.resourceManagerTags };
  const cc = spec.confidentialCompute;
  if (cc && cc !== 'Disabled') {
    const type = CONFIDENTIAL_TYPES[cc];
    instance.confidentialInstanceConfig = {
      enableConfidentialCompute: true,
      ...(type ? { confidentialInstanceType: type } : {}),
    };
  }
  const gpu = spec.gpus?.[0];
  if (gpu)
    instance.guestAccelerators = [
      { acceleratorType: `zones/${spec.zone}/acceleratorTypes/${gpu.type}`, acceleratorCount: gpu.count },
    ];
  return instance;
}

/** The instance's metadata items: the user data first, then the spec's gcpMetadata (see buildInstance). */
export function metadataItems(
  machine: Machine,
  spec: GCPMachineProviderSpec,
  userData: string,
): Array<{ key: string; value: string }> {
  const first = userDataItem(machine, userData);
  const items = [first];
  for (const m of spec.gcpMetadata ?? []) {
    // An item under the user-data key replaces the Secret's content, as in the reference.
    if (m.key === first.key) first.value = m.value ?? '';
    else if (!items.some((i) => i.key === m.key)) items.push({ key: m.key, value: m.value ?? '' });
  }
  return items;
}

/**
 * The Machine's addresses: the primary internal IP, each external (NAT) IP, and the three internal DNS
 * names GCE serves. (The reference also lists empty NAT IPs of access configs still being set up.)
 */
export function addressesOf(instance: Instance, project: string, zone: string): NodeAddress[] {
  const name = instance.name ?? '';
  const nic = instance.networkInterfaces?.[0];
  const out: NodeAddress[] = [];
  if (nic?.networkIP) out.push({ type: 'InternalIP', address: nic.networkIP });
  for (const ac of nic?.accessConfigs ?? []) if (ac.natIP) out.push({ type: 'ExternalIP', address: ac.natIP });
  out.push(
    { type: 'InternalDNS', address: `${name}.${zone}.c.${project}.internal` },
    { type: 'InternalDNS', address: `${name}.c.${project}.internal` },
    { type: 'InternalDNS', address: name },
  );
  return out;
}

/** The region, zone and instance-type labels, from the spec as in the reference. */
export function machineLabelsFor(spec: GCPMachineProviderSpec): Record<string, string> {
  return placementLabels({ instanceType: spec.machineType, region: spec.region, zone: spec.zone });
}

export const isInterruptible = (spec: GCPMachineProviderSpec, instance: Instance): boolean =>
  spec.preemptible === true ||
  spec.provisioningModel === 'Spot' ||
  instance.scheduling?.provisioningModel === 'SPOT' ||
  instance.scheduling?.preemptible === true;

/** The instance's GCE status as a string ("PROVISIONING", "RUNNING", ...). */
export const instanceStatus = (instance: Instance): string => String(instance.status ?? 'UNKNOWN');

const BOOTING: ReadonlySet<string> = new Set(['PROVISIONING', 'STAGING']);

/** Whether GCE is still bringing the instance up. */
export const isBooting = (instance: Instance): boolean => BOOTING.has(instanceStatus(instance));

/** The state to record on the Machine: a boot's PROVISIONING → STAGING step keeps the state recorded (lib's keepBootingState). */
export const stateToRecord = (recorded: string | null | undefined, instance: Instance): string =>
  keepBootingState(recorded, instanceStatus(instance), BOOTING);
