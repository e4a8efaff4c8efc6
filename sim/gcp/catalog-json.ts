// The JSON GCE returns for catalog resources (machine types, accelerator and disk types, images, zones,
// regions, projects), with quota usage computed from the live instances.
import { stableId } from './default-world.js';
import type { GceState } from './gce-state.js';
import { imagePath, lastSegment, machineTypePath, projectPath, regionPath, selfLink, str, zonePath } from './links.js';
import type { AcceleratorTypeSpec, GceImage, GceInstance, MachineTypeSpec } from './model.js';

const SEED_TIME = '1969-12-31T16:00:00.000-08:00';

/** What a catalog entry opens with: its kind, an id derived from its name (the same in every run) and the seed time. */
function catalogHead(kind: string, name: string): Record<string, unknown> {
  return { kind: `compute#${kind}`, id: stableId(`${kind}s/${name}`), creationTimestamp: SEED_TIME, name };
}

export function machineTypeJson(project: string, zone: string, mt: MachineTypeSpec): Record<string, unknown> {
  const path = machineTypePath(project, zone, mt.name);
  const gb = Math.round((mt.memoryMb / 1024) * 100) / 100;
  const out: Record<string, unknown> = {
    ...catalogHead('machineType', mt.name),
    description: `${mt.guestCpus} vCPU${mt.guestCpus === 1 ? '' : 's'}, ${gb} GB RAM`,
    guestCpus: mt.guestCpus,
    memoryMb: mt.memoryMb,
    imageSpaceGb: 0,
    maximumPersistentDisks: 128,
    maximumPersistentDisksSizeGb: '263168',
    zone,
    selfLink: selfLink(path),
    isSharedCpu: mt.isSharedCpu,
    architecture: mt.architecture,
  };
  if (mt.accelerators?.length) out.accelerators = mt.accelerators.map((a) => ({ ...a }));
  return out;
}

export function acceleratorTypeJson(project: string, zone: string, at: AcceleratorTypeSpec): Record<string, unknown> {
  return {
    ...catalogHead('acceleratorType', at.name),
    description: at.description,
    zone: selfLink(zonePath(project, zone)),
    selfLink: selfLink(`${zonePath(project, zone)}/acceleratorTypes/${at.name}`),
    maximumCardsPerInstance: at.maximumCardsPerInstance,
  };
}

export function diskTypeJson(project: string, zone: string, name: string): Record<string, unknown> {
  return {
    ...catalogHead('diskType', name),
    description: name,
    validDiskSize: name.startsWith('hyperdisk') ? '4GB-65536GB' : '10GB-65536GB',
    zone: selfLink(zonePath(project, zone)),
    selfLink: selfLink(`${zonePath(project, zone)}/diskTypes/${name}`),
    defaultDiskSizeGb: name === 'pd-standard' ? '500' : '100',
  };
}

export function imageJson(img: GceImage): Record<string, unknown> {
  const out: Record<string, unknown> = {
    kind: 'compute#image',
    id: img.id,
    creationTimestamp: img.creationTimestamp,
    name: img.name,
    description: img.family ? `${img.family} image built ${img.creationTimestamp.slice(0, 10)}` : img.name,
    sourceType: 'RAW',
    status: img.status,
    archiveSizeBytes: String(img.diskSizeGb * 200_000_000),
    diskSizeGb: String(img.diskSizeGb),
    selfLink: selfLink(imagePath(img.project, img.name)),
    labelFingerprint: '42WmSpB8rSM=',
    guestOsFeatures: img.guestOsFeatures.map((type) => ({ type })),
    storageLocations: ['us', 'eu', 'asia'],
    architecture: img.architecture,
  };
  if (img.family) out.family = img.family;
  if (img.deprecatedState) out.deprecated = { state: img.deprecatedState };
  return out;
}

export function zoneJson(state: GceState, project: string, zone: string): Record<string, unknown> {
  const z = state.world.zones.find((x) => x.name === zone);
  return {
    ...catalogHead('zone', zone),
    description: zone,
    status: z?.status ?? 'UP',
    region: selfLink(regionPath(project, z?.region ?? '')),
    selfLink: selfLink(zonePath(project, zone)),
    availableCpuPlatforms: ['Intel Sapphire Rapids', 'AMD Milan', 'Intel Cascade Lake', 'Ampere Altra'],
    supportsPzs: false,
  };
}

/** CPUs, instances and accelerators in use in a region by a project's instances that hold resources. */
export function regionUsage(state: GceState, project: string, region: string): Record<string, number> {
  const usage: Record<string, number> = {};
  const add = (metric: string, n: number) => {
    usage[metric] = (usage[metric] ?? 0) + n;
  };
  for (const inst of state.world.instances) {
    if (inst.project !== project || state.regionOf(inst.zone) !== region) continue;
    add('INSTANCES', 1);
    if (inst.resource.status === 'TERMINATED') continue;
    const { cpus, accelerators, preemptible } = instanceFootprint(state, inst);
    add(preemptible ? 'PREEMPTIBLE_CPUS' : 'CPUS', cpus);
    for (const a of accelerators) add(`${preemptible ? 'PREEMPTIBLE_' : ''}${a.metric}`, a.count);
  }
  return usage;
}

/** What an instance counts against quota: vCPUs and accelerators (built-in or attached). */
export function instanceFootprint(
  state: GceState,
  inst: GceInstance,
): { cpus: number; accelerators: { metric: string; count: number }[]; preemptible: boolean } {
  const r = inst.resource;
  const mtName = lastSegment(str(r.machineType));
  const mt = state.world.machineTypes.find((m) => m.name === mtName) ?? customMachineType(mtName);
  const attached = (
    (r.guestAccelerators as { acceleratorType?: string; acceleratorCount?: number }[] | undefined) ?? []
  ).map((g) => ({
    type:
      String(g.acceleratorType ?? '')
        .split('/')
        .pop() ?? '',
    count: g.acceleratorCount ?? 0,
  }));
  const accelerators = attached.map((a) => ({
    metric: state.world.acceleratorTypes.find((t) => t.name === a.type)?.quotaMetric ?? a.type.toUpperCase(),
    count: a.count,
  }));
  const sched = (r.scheduling ?? {}) as { preemptible?: boolean; provisioningModel?: string };
  return {
    cpus: mt?.guestCpus ?? 0,
    accelerators,
    preemptible: sched.preemptible === true || sched.provisioningModel === 'SPOT',
  };
}

export function regionJson(state: GceState, project: string, region: string): Record<string, unknown> {
  const r = state.world.regions.find((x) => x.name === region);
  const usage = regionUsage(state, project, region);
  return {
    ...catalogHead('region', region),
    description: region,
    status: 'UP',
    zones: state.world.zones.filter((z) => z.region === region).map((z) => selfLink(zonePath(project, z.name))),
    quotas: Object.entries(r?.quotaLimits ?? {}).map(([metric, limit]) => ({
      metric,
      limit,
      usage: usage[metric] ?? 0,
    })),
    selfLink: selfLink(regionPath(project, region)),
    supportsPzs: false,
  };
}

export function projectJson(state: GceState, project: string): Record<string, unknown> {
  const p = state.world.projects.find((x) => x.name === project);
  const id = p?.id ?? '0';
  return {
    kind: 'compute#project',
    id,
    creationTimestamp: SEED_TIME,
    name: project,
    commonInstanceMetadata: { kind: 'compute#metadata', fingerprint: 'n1Hkdr2e5fA=', items: [] },
    quotas: [
      { metric: 'NETWORKS', limit: 15, usage: state.world.networks.filter((n) => n.project === project).length },
      { metric: 'IMAGES', limit: 2000, usage: 0 },
    ],
    selfLink: selfLink(projectPath(project)),
    defaultServiceAccount: `${id}-compute@developer.gserviceaccount.com`,
    xpnProjectStatus: 'UNSPECIFIED_XPN_PROJECT_STATUS',
    defaultNetworkTier: 'PREMIUM',
  };
}

/** Custom machine types: "custom-<cpus>-<memMb>" and "<family>-custom-<cpus>-<memMb>". */
export function customMachineType(name: string): MachineTypeSpec | undefined {
  const m = /^(?:(n1|n2|n2d|e2)-)?custom-(\d+)-(\d+)$/.exec(name);
  if (!m) return undefined;
  const cpus = Number(m[2]);
  const mem = Number(m[3]);
  if (cpus < 1 || cpus > 96 || mem < 1024 || mem % 256 !== 0 || mem > cpus * 8 * 1024) return undefined;
  return { name, guestCpus: cpus, memoryMb: mem, isSharedCpu: false, architecture: 'X86_64' };
}
