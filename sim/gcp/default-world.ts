// The world a fresh emulator starts with: the given projects and zones, the seed catalog, and per project the
// networks and load-balancing resources an OpenShift installer would have made for `clusterId`
// (target pool "<id>-api", instance groups "<id>-master-<zone>", backend service "<id>-api-internal").
import { createHash } from 'node:crypto';
import {
  DEFAULT_ACCELERATOR_TYPES,
  DEFAULT_DISK_TYPES,
  DEFAULT_IMAGES,
  DEFAULT_MACHINE_TYPES,
  DEFAULT_QUOTA_LIMITS,
} from './catalog-tables.js';
import { regionOfZone, regionPath, selfLink, zonePath } from './links.js';
import type { GceBackendService, GceInstanceGroup, GceSubnetwork, GceTargetPool, GceWorld } from './model.js';
import { gceTimestamp } from './timestamps.js';

export const DEFAULT_PROJECT = 'test-project';
export const DEFAULT_ZONES = ['us-central1-a', 'us-central1-b', 'us-central1-c'];
export const DEFAULT_CLUSTER_ID = 'test-cluster';

export interface DefaultWorldOptions {
  projects?: string[];
  zones?: string[];
  clusterId?: string;
  /** Creation time stamped on the seed resources. */
  now?: number;
}

const NAME_RE = /^[a-z]([-a-z0-9]{0,61}[a-z0-9])?$/;
const ZONE_RE = /^[a-z]+-[a-z]+[0-9]+-[a-z]$/;

/** A stable 19-digit id derived from a resource path, so seed ids do not change between runs. */
export function stableId(path: string): string {
  const h = createHash('sha256').update(path).digest();
  return ((h.readBigUInt64BE(0) % 9_000_000_000_000_000_000n) + 1_000_000_000_000_000_000n).toString();
}

export function defaultWorld(opts: DefaultWorldOptions = {}): GceWorld {
  const projects = opts.projects ?? [DEFAULT_PROJECT];
  const zones = opts.zones ?? DEFAULT_ZONES;
  const clusterId = opts.clusterId ?? DEFAULT_CLUSTER_ID;
  if (projects.length === 0) throw new Error('defaultWorld: projects must name at least one project');
  if (zones.length === 0) throw new Error('defaultWorld: zones must name at least one zone');
  for (const p of projects)
    if (!/^[a-z][-a-z0-9]{4,28}[a-z0-9]$/.test(p))
      throw new Error(
        `defaultWorld: project "${p}" is not a valid project id (6-30 lowercase letters, digits, hyphens)`,
      );
  for (const z of zones)
    if (!ZONE_RE.test(z)) throw new Error(`defaultWorld: zone "${z}" is not a zone name like us-central1-a`);
  if (!NAME_RE.test(clusterId))
    throw new Error(`defaultWorld: clusterId "${clusterId}" must be a lowercase GCE resource name`);
  const regions = [...new Set(zones.map(regionOfZone))];
  const created = gceTimestamp(opts.now ?? Date.UTC(2026, 0, 1));

  const subnetworks: GceSubnetwork[] = [];
  const targetPools: GceTargetPool[] = [];
  const instanceGroups: GceInstanceGroup[] = [];
  const backendServices: GceBackendService[] = [];
  for (const project of projects) {
    regions.forEach((region, i) => {
      const net = `${clusterId}-network`;
      subnetworks.push(
        { project, region, name: 'default', network: 'default', ipCidrRange: `10.${128 + i}.0.0/20` },
        { project, region, name: `${clusterId}-master-subnet`, network: net, ipCidrRange: `10.${i}.0.0/17` },
        { project, region, name: `${clusterId}-worker-subnet`, network: net, ipCidrRange: `10.${i}.128.0/17` },
      );
      const tpPath = `${regionPath(project, region)}/targetPools/${clusterId}-api`;
      targetPools.push({
        project,
        region,
        name: `${clusterId}-api`,
        id: stableId(tpPath),
        creationTimestamp: created,
        instances: [],
      });
      const regionZones = zones.filter((z) => regionOfZone(z) === region);
      const groupLinks: string[] = [];
      for (const zone of regionZones) {
        const name = `${clusterId}-master-${zone}`;
        const path = `${zonePath(project, zone)}/instanceGroups/${name}`;
        groupLinks.push(selfLink(path));
        instanceGroups.push({
          project,
          zone,
          name,
          id: stableId(path),
          creationTimestamp: created,
          network: selfLink(`projects/${project}/global/networks/${net}`),
          subnetwork: selfLink(`${regionPath(project, region)}/subnetworks/${clusterId}-master-subnet`),
          namedPorts: [{ name: 'https', port: 6443 }],
          instances: [],
          fingerprint: 'NdMnS1rgbU0=',
        });
      }
      const bsName = `${clusterId}-api-internal`;
      const bsPath = `${regionPath(project, region)}/backendServices/${bsName}`;
      backendServices.push({
        project,
        region,
        name: bsName,
        resource: {
          kind: 'compute#backendService',
          id: stableId(bsPath),
          creationTimestamp: created,
          name: bsName,
          selfLink: selfLink(bsPath),
          region: selfLink(regionPath(project, region)),
          loadBalancingScheme: 'INTERNAL',
          protocol: 'TCP',
          sessionAffinity: 'NONE',
          timeoutSec: 120,
          healthChecks: [selfLink(`projects/${project}/global/healthChecks/${clusterId}-api-internal`)],
          backends: groupLinks.map((group) => ({ group, balancingMode: 'CONNECTION' })),
          fingerprint: 'x1k7xVuU7TU=',
        },
      });
    });
  }

  return {
    projects: projects.map((name) => ({ name, id: stableId(`projects/${name}`).slice(0, 12) })),
    regions: regions.map((name) => ({ name, quotaLimits: { ...DEFAULT_QUOTA_LIMITS } })),
    zones: zones.map((name) => ({ name, region: regionOfZone(name), status: 'UP' as const })),
    machineTypes: structuredClone(DEFAULT_MACHINE_TYPES),
    acceleratorTypes: structuredClone(DEFAULT_ACCELERATOR_TYPES),
    diskTypes: [...DEFAULT_DISK_TYPES],
    images: structuredClone(DEFAULT_IMAGES),
    networks: projects.flatMap((project) => [
      { project, name: 'default' },
      { project, name: `${clusterId}-network` },
    ]),
    subnetworks,
    targetPools,
    instanceGroups,
    backendServices,
    tagValues: [],
    instances: [],
    disks: [],
    operations: [],
    requestIds: {},
    nextSeq: 1,
  };
}
