// Turns an instances.insert body into the Instance GCE would store (defaults filled, references expanded to
// self-links, addresses allocated) and the disks it creates, refusing what GCE refuses with GCE's errors.
import { alreadyExists, invalidField, invalidResourceUsage } from './api-error.js';
import type { GceState } from './gce-state.js';
import type { Json } from './insert-body.js';
import { list, obj } from './insert-body.js';
import { buildDisks } from './instance-disks.js';
import { buildNics } from './instance-network-interfaces.js';
import { instancePath, machineTypePath, regionOfZone, selfLink, str, zonePath } from './links.js';
import type { GceDisk, MachineTypeSpec } from './model.js';
import { resolveAcceleratorRef, resolveMachineTypeRef } from './references.js';
import { gceTimestamp } from './timestamps.js';
import { checkLabels, checkMetadataItems, checkName, checkTags, fingerprint } from './validation.js';

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
    throw invalidField(
      'resource.scheduling.onHostMaintenance',
      scheduling.onHostMaintenance,
      'Instances with guest accelerators do not support live migration.',
    );
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
  resource.tags =
    tags.length > 0 ? { items: tags, fingerprint: fingerprint(tags) } : { fingerprint: fingerprint(tags) };
  const items = checkMetadataItems('resource.metadata.items', obj(body.metadata).items);
  resource.metadata = {
    kind: 'compute#metadata',
    fingerprint: fingerprint(items),
    ...(items.length > 0 ? { items } : {}),
  };

  const sas = list(body.serviceAccounts);
  if (sas.length > 1)
    throw invalidField('resource.serviceAccounts', '', 'At most one service account may be attached to an instance.');
  resource.serviceAccounts = sas.map((s, i) => {
    const sa = obj(s);
    if (typeof sa.email !== 'string' || sa.email === '')
      throw invalidField(`resource.serviceAccounts[${i}].email`, sa.email, 'A service account email is required.');
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
      throw invalidField(
        'resource.params.resourceManagerTags',
        `${k}=${String(v)}`,
        'Expected tagKeys/{id} → tagValues/{id}.',
      );
    }
  }
  if (Object.keys(rmTags).length > 50)
    throw invalidField('resource.params.resourceManagerTags', '', 'At most 50 tags may be bound to an instance.');

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
  const ohm =
    ohmRaw === undefined || ohmRaw === '' ? (interruptible ? 'TERMINATE' : 'MIGRATE') : str(ohmRaw).toUpperCase();
  if (ohm !== 'MIGRATE' && ohm !== 'TERMINATE')
    throw invalidField('resource.scheduling.onHostMaintenance', ohmRaw, 'Must be MIGRATE or TERMINATE.');
  if (interruptible && ohm !== 'TERMINATE') {
    throw invalidField(
      'resource.scheduling.onHostMaintenance',
      ohmRaw,
      'Preemptible and Spot instances must use TERMINATE.',
    );
  }
  if (interruptible && s.automaticRestart === true) {
    throw invalidField(
      'resource.scheduling.automaticRestart',
      'true',
      'Preemptible and Spot instances cannot be automatically restarted.',
    );
  }
  const out: Json = {
    onHostMaintenance: ohm,
    automaticRestart: s.automaticRestart === undefined ? !interruptible : s.automaticRestart === true,
    preemptible,
    provisioningModel: model,
  };
  if (model === 'SPOT') {
    const action = s.instanceTerminationAction === undefined ? 'STOP' : str(s.instanceTerminationAction).toUpperCase();
    if (action !== 'STOP' && action !== 'DELETE')
      throw invalidField(
        'resource.scheduling.instanceTerminationAction',
        s.instanceTerminationAction,
        'Must be STOP or DELETE.',
      );
    out.instanceTerminationAction = action;
  }
  return out;
}

function buildAccelerators(state: GceState, project: string, zone: string, mt: MachineTypeSpec, raw: unknown): Json[] {
  const requested = list(raw).filter((g) => (Number(obj(g).acceleratorCount) || 0) > 0);
  if (mt.accelerators?.length) {
    if (requested.length > 0) {
      throw invalidField(
        'resource.guestAccelerators',
        '',
        `Machine type '${mt.name}' has pre-attached accelerators; no others can be added.`,
      );
    }
    return mt.accelerators.map((a) => ({
      acceleratorType: selfLink(`${zonePath(project, zone)}/acceleratorTypes/${a.guestAcceleratorType}`),
      acceleratorCount: a.guestAcceleratorCount,
    }));
  }
  if (requested.length === 0) return [];
  if (!ATTACHABLE_GPU_FAMILIES.includes(familyOf(mt))) {
    throw invalidField(
      'resource.guestAccelerators',
      '',
      `Machine type '${mt.name}' does not support attaching accelerators.`,
    );
  }
  if (requested.length > 1)
    throw invalidField('resource.guestAccelerators', '', 'Only one accelerator type can be attached to an instance.');
  return requested.map((g, i) => {
    const a = obj(g);
    const at = resolveAcceleratorRef(
      state,
      project,
      zone,
      a.acceleratorType,
      `resource.guestAccelerators[${i}].acceleratorType`,
    );
    const count = Number(a.acceleratorCount);
    if (!Number.isInteger(count) || count > at.maximumCardsPerInstance) {
      throw invalidField(
        `resource.guestAccelerators[${i}].acceleratorCount`,
        a.acceleratorCount,
        `At most ${at.maximumCardsPerInstance} cards of ${at.name} per instance.`,
      );
    }
    return {
      acceleratorType: selfLink(`${zonePath(project, zone)}/acceleratorTypes/${at.name}`),
      acceleratorCount: count,
    };
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
  if (!families)
    throw invalidField(
      'resource.confidentialInstanceConfig.confidentialInstanceType',
      type,
      'Must be SEV, SEV_SNP or TDX.',
    );
  if (!families.includes(familyOf(mt))) {
    throw invalidResourceUsage(`Confidential Computing type ${type} is not supported by machine type ${mt.name}`);
  }
  if (type !== 'SEV' && scheduling.onHostMaintenance !== 'TERMINATE') {
    throw invalidField(
      'resource.scheduling.onHostMaintenance',
      scheduling.onHostMaintenance,
      `Confidential instances of type ${type} must use TERMINATE.`,
    );
  }
  return {
    enableConfidentialCompute: true,
    ...(c.confidentialInstanceType === undefined ? {} : { confidentialInstanceType: type }),
  };
}
