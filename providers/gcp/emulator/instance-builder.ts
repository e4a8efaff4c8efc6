// Turns an instances.insert body into the Instance GCE would store (defaults filled, references expanded to
// self-links, addresses allocated) and the disks it creates, refusing what GCE refuses with GCE's errors.
import { allocateInternalIp } from './addressing.js';
import { alreadyExists, GceApiError, invalidField, invalidResourceUsage, notFound } from './api-error.js';
import type { GceState } from './gce-state.js';
import { imagePath, instancePath, machineTypePath, networkPath, regionOfZone, selfLink, str, subnetworkPath, zonePath } from './links.js';
import type { GceDisk, GceImage, GceSubnetwork, MachineTypeSpec } from './model.js';
import {
  resolveAcceleratorRef,
  resolveDiskTypeRef,
  resolveImageRef,
  resolveMachineTypeRef,
  resolveNetworkRef,
  resolveSubnetworkRef,
} from './references.js';
import { gceTimestamp } from './timestamps.js';
import { checkLabels, checkMetadataItems, checkName, checkTags, fingerprint, readInt64 } from './validation.js';

type Json = Record<string, unknown>;

export interface BuiltInstance {
  name: string;
  resource: Json;
  disks: GceDisk[];
  machineType: MachineTypeSpec;
}

const ATTACHABLE_GPU_FAMILIES = ['n1'];
const CONFIDENTIAL_FAMILIES: Record<string, string[]> = {
  SEV: ['n2d', 'c2d', 'c3d'],
  SEV_SNP: ['n2d'],
  TDX: ['c3'],
};

function obj(v: unknown): Json {
  return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Json) : {};
}
function list(v: unknown): unknown[] {
  return Array.isArray(v) ? v : [];
}
function familyOf(mt: MachineTypeSpec): string {
  return mt.name.split('-')[0] ?? '';
}

export function buildInstance(state: GceState, project: string, zone: string, body: Json): BuiltInstance {
  const name = checkName('resource.name', body.name);
  if (state.instance(project, zone, name)) throw alreadyExists(instancePath(project, zone, name));
  const now = state.clock.now();
  const region = regionOfZone(zone);
  const mt = resolveMachineTypeRef(state, project, zone, body.machineType, 'resource.machineType');
  const selfPath = instancePath(project, zone, name);

  const { attached, disks, bootImage } = buildDisks(state, project, zone, name, body.disks, now);
  if (bootImage && bootImage.architecture !== mt.architecture) {
    throw invalidResourceUsage(
      `Requested boot disk architecture (${bootImage.architecture}) is not compatible with machine type architecture (${mt.architecture}).`,
    );
  }
  const uefi = bootImage?.guestOsFeatures.some((f) => f.toUpperCase() === 'UEFI_COMPATIBLE') ?? false;
  const scheduling = buildScheduling(body.scheduling);
  const guestAccelerators = buildAccelerators(state, project, zone, mt, body.guestAccelerators);
  if (guestAccelerators.length > 0 && scheduling.onHostMaintenance !== 'TERMINATE') {
    throw invalidField('resource.scheduling.onHostMaintenance', scheduling.onHostMaintenance, 'Instances with guest accelerators do not support live migration.');
  }

  const resource: Json = {
    kind: 'compute#instance',
    id: state.newId(),
    creationTimestamp: gceTimestamp(now),
    name,
    machineType: selfLink(machineTypePath(project, zone, mt.name)),
    status: 'PROVISIONING',
    zone: selfLink(zonePath(project, zone)),
    canIpForward: body.canIpForward === true,
    networkInterfaces: buildNics(state, project, region, body.networkInterfaces),
    disks: attached,
    scheduling,
    cpuPlatform: mt.architecture === 'ARM64' ? 'Ampere Altra' : 'Intel Cascade Lake',
    selfLink: selfLink(selfPath),
    startRestricted: false,
    deletionProtection: body.deletionProtection === true,
    fingerprint: fingerprint([name, now]),
  };
  if (typeof body.description === 'string') resource.description = body.description;
  if (typeof body.hostname === 'string') resource.hostname = body.hostname;

  const labels = checkLabels('resource.labels', body.labels);
  resource.labels = labels;
  resource.labelFingerprint = fingerprint(labels);
  const tags = checkTags('resource.tags.items', obj(body.tags).items);
  resource.tags = tags.length > 0 ? { items: tags, fingerprint: fingerprint(tags) } : { fingerprint: fingerprint(tags) };
  const items = checkMetadataItems('resource.metadata.items', obj(body.metadata).items);
  resource.metadata = { kind: 'compute#metadata', fingerprint: fingerprint(items), ...(items.length > 0 ? { items } : {}) };

  const sas = list(body.serviceAccounts);
  if (sas.length > 1) throw invalidField('resource.serviceAccounts', '', 'At most one service account may be attached to an instance.');
  resource.serviceAccounts = sas.map((s, i) => {
    const sa = obj(s);
    if (typeof sa.email !== 'string' || sa.email === '') throw invalidField(`resource.serviceAccounts[${i}].email`, sa.email, 'A service account email is required.');
    return { email: sa.email, scopes: list(sa.scopes).map(String) };
  });

  const shielded = buildShielded(body.shieldedInstanceConfig, uefi);
  if (shielded) resource.shieldedInstanceConfig = shielded;
  if (uefi) resource.shieldedInstanceIntegrityPolicy = { updateAutoLearnPolicy: true };
  const confidential = buildConfidential(body.confidentialInstanceConfig, mt, scheduling);
  if (confidential) resource.confidentialInstanceConfig = confidential;
  if (guestAccelerators.length > 0) resource.guestAccelerators = guestAccelerators;
  const rmTags = obj(obj(body.params).resourceManagerTags);
  for (const [k, v] of Object.entries(rmTags)) {
    if (!/^tagKeys\/\d+$/.test(k) || typeof v !== 'string' || !/^tagValues\/\d+$/.test(v)) {
      throw invalidField('resource.params.resourceManagerTags', `${k}=${String(v)}`, 'Expected tagKeys/{id} → tagValues/{id}.');
    }
  }
  if (Object.keys(rmTags).length > 50) throw invalidField('resource.params.resourceManagerTags', '', 'At most 50 tags may be bound to an instance.');

  for (const d of disks) d.resource.users = [selfLink(selfPath)];
  return { name, resource, disks, machineType: mt };
}

function buildScheduling(raw: unknown): Json {
  const s = obj(raw);
  const model = s.provisioningModel === undefined ? 'STANDARD' : str(s.provisioningModel).toUpperCase();
  if (model !== 'STANDARD' && model !== 'SPOT') {
    throw invalidField('resource.scheduling.provisioningModel', s.provisioningModel, 'Must be STANDARD or SPOT.');
  }
  const preemptible = s.preemptible === true;
  const interruptible = preemptible || model === 'SPOT';
  const ohmRaw = s.onHostMaintenance;
  // GCE accepts the enum in any case (the OpenShift provider sends "Terminate"); it stores it upper case.
  const ohm = ohmRaw === undefined || ohmRaw === '' ? (interruptible ? 'TERMINATE' : 'MIGRATE') : str(ohmRaw).toUpperCase();
  if (ohm !== 'MIGRATE' && ohm !== 'TERMINATE') throw invalidField('resource.scheduling.onHostMaintenance', ohmRaw, 'Must be MIGRATE or TERMINATE.');
  if (interruptible && ohm !== 'TERMINATE') {
    throw invalidField('resource.scheduling.onHostMaintenance', ohmRaw, 'Preemptible and Spot instances must use TERMINATE.');
  }
  if (interruptible && s.automaticRestart === true) {
    throw invalidField('resource.scheduling.automaticRestart', 'true', 'Preemptible and Spot instances cannot be automatically restarted.');
  }
  const out: Json = {
    onHostMaintenance: ohm,
    automaticRestart: s.automaticRestart === undefined ? !interruptible : s.automaticRestart === true,
    preemptible,
    provisioningModel: model,
  };
  if (model === 'SPOT') {
    const action = s.instanceTerminationAction === undefined ? 'STOP' : str(s.instanceTerminationAction).toUpperCase();
    if (action !== 'STOP' && action !== 'DELETE') throw invalidField('resource.scheduling.instanceTerminationAction', s.instanceTerminationAction, 'Must be STOP or DELETE.');
    out.instanceTerminationAction = action;
  }
  return out;
}

function buildAccelerators(state: GceState, project: string, zone: string, mt: MachineTypeSpec, raw: unknown): Json[] {
  const requested = list(raw).filter((g) => (Number(obj(g).acceleratorCount) || 0) > 0);
  if (mt.accelerators?.length) {
    if (requested.length > 0) {
      throw invalidField('resource.guestAccelerators', '', `Machine type '${mt.name}' has pre-attached accelerators; no others can be added.`);
    }
    return mt.accelerators.map((a) => ({
      acceleratorType: selfLink(`${zonePath(project, zone)}/acceleratorTypes/${a.guestAcceleratorType}`),
      acceleratorCount: a.guestAcceleratorCount,
    }));
  }
  if (requested.length === 0) return [];
  if (!ATTACHABLE_GPU_FAMILIES.includes(familyOf(mt))) {
    throw invalidField('resource.guestAccelerators', '', `Machine type '${mt.name}' does not support attaching accelerators.`);
  }
  if (requested.length > 1) throw invalidField('resource.guestAccelerators', '', 'Only one accelerator type can be attached to an instance.');
  return requested.map((g, i) => {
    const a = obj(g);
    const at = resolveAcceleratorRef(state, project, zone, a.acceleratorType, `resource.guestAccelerators[${i}].acceleratorType`);
    const count = Number(a.acceleratorCount);
    if (!Number.isInteger(count) || count > at.maximumCardsPerInstance) {
      throw invalidField(`resource.guestAccelerators[${i}].acceleratorCount`, a.acceleratorCount, `At most ${at.maximumCardsPerInstance} cards of ${at.name} per instance.`);
    }
    return { acceleratorType: selfLink(`${zonePath(project, zone)}/acceleratorTypes/${at.name}`), acceleratorCount: count };
  });
}

function buildShielded(raw: unknown, uefi: boolean): Json | undefined {
  const s = obj(raw);
  const given = raw !== undefined && raw !== null;
  const cfg = {
    enableSecureBoot: s.enableSecureBoot === true,
    enableVtpm: given ? s.enableVtpm === true : uefi,
    enableIntegrityMonitoring: given ? s.enableIntegrityMonitoring === true : uefi,
  };
  if (!uefi) {
    if (cfg.enableSecureBoot || cfg.enableVtpm || cfg.enableIntegrityMonitoring) {
      throw invalidResourceUsage('Shielded VM Config can only be set when using a UEFI-compatible disk');
    }
    return undefined;
  }
  return cfg;
}

function buildConfidential(raw: unknown, mt: MachineTypeSpec, scheduling: Json): Json | undefined {
  const c = obj(raw);
  if (c.enableConfidentialCompute !== true && c.confidentialInstanceType === undefined) return undefined;
  const type = c.confidentialInstanceType === undefined ? 'SEV' : str(c.confidentialInstanceType);
  const families = CONFIDENTIAL_FAMILIES[type];
  if (!families) throw invalidField('resource.confidentialInstanceConfig.confidentialInstanceType', type, 'Must be SEV, SEV_SNP or TDX.');
  if (!families.includes(familyOf(mt))) {
    throw invalidResourceUsage(`Confidential Computing type ${type} is not supported by machine type ${mt.name}`);
  }
  if (type !== 'SEV' && scheduling.onHostMaintenance !== 'TERMINATE') {
    throw invalidField('resource.scheduling.onHostMaintenance', scheduling.onHostMaintenance, `Confidential instances of type ${type} must use TERMINATE.`);
  }
  return { enableConfidentialCompute: true, ...(c.confidentialInstanceType === undefined ? {} : { confidentialInstanceType: type }) };
}

function buildNics(state: GceState, project: string, region: string, raw: unknown): Json[] {
  const nics = list(raw);
  if (nics.length === 0) throw invalidField('resource.networkInterfaces', '', 'At least one network interface is required.');
  return nics.map((n, i) => {
    const nic = obj(n);
    const field = `resource.networkInterfaces[${i}]`;
    let sub: GceSubnetwork | undefined;
    let netName: string;
    let netProject: string;
    if (typeof nic.subnetwork === 'string' && nic.subnetwork !== '') {
      sub = resolveSubnetworkRef(state, project, nic.subnetwork, `${field}.subnetwork`);
      if (sub.region !== region) throw invalidField(`${field}.subnetwork`, nic.subnetwork, `The subnetwork must be in region '${region}'.`);
      netName = sub.network;
      netProject = sub.project;
      if (typeof nic.network === 'string' && nic.network !== '') {
        const net = resolveNetworkRef(state, project, nic.network, `${field}.network`);
        if (net.name !== sub.network || net.project !== sub.project) {
          throw invalidField(`${field}.subnetwork`, nic.subnetwork, `The subnetwork does not belong to network '${net.name}'.`);
        }
      }
    } else {
      const net = resolveNetworkRef(state, project, typeof nic.network === 'string' && nic.network !== '' ? nic.network : 'global/networks/default', `${field}.network`);
      netName = net.name;
      netProject = net.project;
      sub = state.world.subnetworks.find((s) => s.project === net.project && s.network === net.name && s.region === region);
      if (!sub) throw invalidField(`${field}.subnetwork`, '', `Network '${net.name}' has no subnetwork in region '${region}'.`);
    }
    const networkIP = allocateInternalIp(state, sub, `${field}.networkIP`, nic.networkIP);
    const acs = list(nic.accessConfigs);
    if (acs.length > 1) throw invalidField(`${field}.accessConfigs`, '', 'At most one access config per network interface.');
    const out: Json = {
      kind: 'compute#networkInterface',
      network: selfLink(networkPath(netProject, netName)),
      subnetwork: selfLink(subnetworkPath(sub.project, sub.region, sub.name)),
      networkIP,
      name: `nic${i}`,
      fingerprint: fingerprint([networkIP, i]),
      stackType: 'IPV4_ONLY',
    };
    if (acs.length > 0) {
      const ac = obj(acs[0]);
      out.accessConfigs = [
        {
          kind: 'compute#accessConfig',
          type: 'ONE_TO_ONE_NAT',
          name: typeof ac.name === 'string' && ac.name !== '' ? ac.name : 'External NAT',
          networkTier: typeof ac.networkTier === 'string' ? ac.networkTier : 'PREMIUM',
          ...(typeof ac.natIP === 'string' && ac.natIP !== '' ? { natIP: ac.natIP } : {}),
        },
      ];
    }
    return out;
  });
}

function buildDisks(
  state: GceState,
  project: string,
  zone: string,
  instanceName: string,
  raw: unknown,
  now: number,
): { attached: Json[]; disks: GceDisk[]; bootImage?: GceImage } {
  const entries = list(raw);
  if (entries.length === 0) throw invalidField('resource.disks', '', 'At least one disk (the boot disk) is required.');
  const attached: Json[] = [];
  const disks: GceDisk[] = [];
  let bootImage: GceImage | undefined;
  const names = new Set<string>();
  entries.forEach((e, i) => {
    const d = obj(e);
    const field = `resource.disks[${i}]`;
    const boot = d.boot === true;
    if (boot && i !== 0) throw invalidField(`${field}.boot`, 'true', 'The boot disk must be the first disk.');
    if (i === 0 && !boot) throw invalidField('resource.disks[0].boot', 'false', 'The first disk must be a boot disk.');
    let diskName: string;
    let sizeGb: number;
    let image: GceImage | undefined;
    let existing: GceDisk | undefined;
    if (typeof d.source === 'string' && d.source !== '') {
      const parts = d.source.split('/');
      diskName = parts[parts.length - 1] ?? '';
      existing = state.world.disks.find((x) => x.project === project && x.zone === zone && x.name === diskName);
      if (!existing) throw notFound(`${zonePath(project, zone)}/disks/${diskName}`);
      if (((existing.resource.users as string[] | undefined) ?? []).length > 0) {
        throw new GceApiError(400, 'resourceInUseByAnotherResource', `The disk resource '${zonePath(project, zone)}/disks/${diskName}' is already being used by another instance`);
      }
      sizeGb = Number(existing.resource.sizeGb);
    } else {
      const p = obj(d.initializeParams);
      diskName = typeof p.diskName === 'string' && p.diskName !== '' ? checkName(`${field}.initializeParams.diskName`, p.diskName) : i === 0 ? instanceName : `${instanceName}-${state.knobs.random.hex(4)}`;
      if (typeof p.sourceImage === 'string' && p.sourceImage !== '') image = resolveImageRef(state, project, p.sourceImage, `${field}.initializeParams.sourceImage`);
      else if (boot) throw invalidField(`${field}.initializeParams.sourceImage`, '', 'A boot disk needs a source image or an existing disk.');
      const diskType = resolveDiskTypeRef(state, project, zone, p.diskType, `${field}.initializeParams.diskType`);
      const requested = readInt64(`${field}.initializeParams.diskSizeGb`, p.diskSizeGb);
      sizeGb = requested ?? image?.diskSizeGb ?? 10;
      if (image && sizeGb < image.diskSizeGb) {
        throw invalidField(`${field}.initializeParams.diskSizeGb`, String(sizeGb), `Requested disk size cannot be smaller than the image size (${image.diskSizeGb} GB).`);
      }
      if (sizeGb < 1 || sizeGb > 65536) throw invalidField(`${field}.initializeParams.diskSizeGb`, String(sizeGb), 'Disk size must be between 1 and 65536 GB.');
      if (names.has(diskName) || state.world.disks.some((x) => x.project === project && x.zone === zone && x.name === diskName)) {
        throw alreadyExists(`${zonePath(project, zone)}/disks/${diskName}`);
      }
      const labels = checkLabels(`${field}.initializeParams.labels`, p.labels);
      const diskPath = `${zonePath(project, zone)}/disks/${diskName}`;
      const resource: Json = {
        kind: 'compute#disk',
        id: state.newId(),
        creationTimestamp: gceTimestamp(now),
        name: diskName,
        sizeGb: String(sizeGb),
        zone: selfLink(zonePath(project, zone)),
        status: 'READY',
        selfLink: selfLink(diskPath),
        type: selfLink(`${zonePath(project, zone)}/diskTypes/${diskType}`),
        labels,
        labelFingerprint: fingerprint(labels),
        physicalBlockSizeBytes: '4096',
        architecture: image?.architecture,
      };
      if (image) {
        resource.sourceImage = selfLink(imagePath(image.project, image.name));
        resource.sourceImageId = image.id;
        resource.guestOsFeatures = image.guestOsFeatures.map((type) => ({ type }));
      }
      const key = obj(d.diskEncryptionKey);
      if (typeof key.kmsKeyName === 'string') {
        resource.diskEncryptionKey = { kmsKeyName: `${key.kmsKeyName}/cryptoKeyVersions/1`, ...(typeof key.kmsKeyServiceAccount === 'string' ? { kmsKeyServiceAccount: key.kmsKeyServiceAccount } : {}) };
      }
      disks.push({ project, zone, name: diskName, resource });
    }
    names.add(diskName);
    if (boot) bootImage = image ?? imageOfDisk(state, existing);
    const att: Json = {
      kind: 'compute#attachedDisk',
      type: 'PERSISTENT',
      mode: d.mode === 'READ_ONLY' ? 'READ_ONLY' : 'READ_WRITE',
      source: selfLink(`${zonePath(project, zone)}/disks/${diskName}`),
      deviceName: typeof d.deviceName === 'string' && d.deviceName !== '' ? d.deviceName : i === 0 ? 'persistent-disk-0' : `persistent-disk-${i}`,
      index: i,
      boot,
      autoDelete: d.autoDelete === true,
      interface: d.interface === 'NVME' ? 'NVME' : 'SCSI',
      diskSizeGb: String(sizeGb),
    };
    const features = (image ?? imageOfDisk(state, existing))?.guestOsFeatures;
    if (features) att.guestOsFeatures = features.map((type) => ({ type }));
    const dek = disks.find((x) => x.name === diskName)?.resource.diskEncryptionKey;
    if (dek) att.diskEncryptionKey = dek;
    attached.push(att);
  });
  return { attached, disks, bootImage };
}

function imageOfDisk(state: GceState, disk: GceDisk | undefined): GceImage | undefined {
  const src = disk?.resource.sourceImage;
  if (typeof src !== 'string') return undefined;
  const parts = src.split('/');
  return state.world.images.find((i) => i.project === parts[parts.length - 4] && i.name === parts[parts.length - 1]);
}
