// Read-only catalog calls: machine types, accelerator and disk types, images (incl. families), zones,
// regions, projects, networks, subnetworks and disks.
import { stableId } from '../default-world.js';
import { invalidField, notFound } from '../api-error.js';
import {
  acceleratorTypeJson,
  diskTypeJson,
  imageJson,
  machineTypeJson,
  projectJson,
  regionJson,
  zoneJson,
} from '../catalog-json.js';
import { imagePath, networkPath, regionPath, selfLink, subnetworkPath, zonePath } from '../links.js';
import { aggregatedResponse, listResponse } from '../listing.js';
import { findImage, latestOfFamily, requireMachineType } from '../references.js';
import type { GceState } from '../gce-state.js';
import type { GceWorld } from '../model.js';
import { param, type Handler, type RequestContext } from './context.js';
import { listScoped, requestScope, requestZone, requireScoped, type ScopeKind } from './scoped-collection.js';

function offered(zones: string[] | undefined, zone: string): boolean {
  return zones === undefined || zones.includes(zone);
}

export const getMachineType: Handler = (ctx) => {
  const { project, zone } = requestZone(ctx);
  return machineTypeJson(project, zone, requireMachineType(ctx.state, project, zone, param(ctx, 'machineType')));
};

/** machineTypes.list and acceleratorTypes.list: the types the zone offers, in name order. */
function listOffered<C extends 'machineTypes' | 'acceleratorTypes'>(
  collection: C,
  json: (project: string, zone: string, t: GceWorld[C][number]) => Record<string, unknown>,
): Handler {
  return (ctx) => {
    const { project, zone } = requestZone(ctx);
    const items = (ctx.state.world[collection] as readonly GceWorld[C][number][])
      .filter((t) => offered(t.zones, zone))
      .sort((a, b) => a.name.localeCompare(b.name))
      .map((t) => json(project, zone, t));
    return listResponse(
      `compute#${collection.slice(0, -1)}List`,
      `${zonePath(project, zone)}/${collection}`,
      items,
      ctx.query,
    );
  };
}

export const listMachineTypes = listOffered('machineTypes', machineTypeJson);

export const aggregatedListMachineTypes: Handler = (ctx) => {
  const project = param(ctx, 'project');
  ctx.state.requireProject(project);
  const zones = ctx.state.world.zones.map((z) => z.name).sort();
  const types = [...ctx.state.world.machineTypes].sort((a, b) => a.name.localeCompare(b.name));
  const entries = zones.flatMap((zone) =>
    types
      .filter((m) => offered(m.zones, zone))
      .map((m) => ({ scope: `zones/${zone}`, item: machineTypeJson(project, zone, m) })),
  );
  return aggregatedResponse(
    'compute#machineTypeAggregatedList',
    project,
    'machineTypes',
    'machineTypes',
    entries,
    zones.map((z) => `zones/${z}`),
    ctx.query,
  );
};

export const getAcceleratorType: Handler = (ctx) => {
  const { project, zone } = requestZone(ctx);
  const name = param(ctx, 'acceleratorType');
  const at = ctx.state.world.acceleratorTypes.find((a) => a.name === name && offered(a.zones, zone));
  if (!at) throw notFound(`${zonePath(project, zone)}/acceleratorTypes/${name}`);
  return acceleratorTypeJson(project, zone, at);
};

export const listAcceleratorTypes = listOffered('acceleratorTypes', acceleratorTypeJson);

export const getDiskType: Handler = (ctx) => {
  const { project, zone } = requestZone(ctx);
  const name = param(ctx, 'diskType');
  if (!ctx.state.world.diskTypes.includes(name)) throw notFound(`${zonePath(project, zone)}/diskTypes/${name}`);
  return diskTypeJson(project, zone, name);
};

export const listDiskTypes: Handler = (ctx) => {
  const { project, zone } = requestZone(ctx);
  const items = [...ctx.state.world.diskTypes].sort().map((d) => diskTypeJson(project, zone, d));
  return listResponse('compute#diskTypeList', `${zonePath(project, zone)}/diskTypes`, items, ctx.query);
};

/** Image projects (debian-cloud, rhcos-cloud...) exist for reads even when they are not emulated projects. */
function requireImageProject(ctx: RequestContext, project: string): void {
  if (ctx.state.world.images.some((i) => i.project === project)) return;
  ctx.state.requireProject(project);
}

export const getImage: Handler = (ctx) => {
  const project = param(ctx, 'project');
  requireImageProject(ctx, project);
  const name = param(ctx, 'image');
  const img = findImage(ctx.state, project, name);
  if (!img) throw notFound(imagePath(project, name));
  return imageJson(img);
};

export const getImageFromFamily: Handler = (ctx) => {
  const project = param(ctx, 'project');
  requireImageProject(ctx, project);
  const family = param(ctx, 'family');
  const img = latestOfFamily(ctx.state, project, family);
  if (!img) throw notFound(`projects/${project}/global/images/family/${family}`);
  return imageJson(img);
};

export const getImageFamilyView: Handler = (ctx) => {
  const project = param(ctx, 'project');
  requireImageProject(ctx, project);
  const zone = param(ctx, 'zone');
  if (!ctx.state.world.zones.some((z) => z.name === zone)) throw invalidField('zone', zone, 'Unknown zone.');
  const family = param(ctx, 'family');
  const img = latestOfFamily(ctx.state, project, family);
  if (!img) throw notFound(`projects/${project}/zones/${param(ctx, 'zone')}/imageFamilyViews/${family}`);
  return { image: imageJson(img) };
};

export const listImages: Handler = (ctx) => {
  const project = param(ctx, 'project');
  requireImageProject(ctx, project);
  const items = ctx.state.world.images
    .filter((i) => i.project === project)
    .sort((a, b) => a.name.localeCompare(b.name))
    .map(imageJson);
  return listResponse('compute#imageList', `projects/${project}/global/images`, items, ctx.query);
};

export const getZone: Handler = (ctx) => {
  const { project, zone } = requestZone(ctx);
  return zoneJson(ctx.state, project, zone);
};

/** zones.list and regions.list: every zone (region) of the world, in name order, as seen from the project. */
function listScopes(
  kind: ScopeKind,
  json: (state: GceState, project: string, name: string) => Record<string, unknown>,
): Handler {
  return (ctx) => {
    const project = param(ctx, 'project');
    ctx.state.requireProject(project);
    const scopes = kind === 'zone' ? ctx.state.world.zones : ctx.state.world.regions;
    const items = scopes
      .map((z) => z.name)
      .sort()
      .map((name) => json(ctx.state, project, name));
    return listResponse(`compute#${kind}List`, `projects/${project}/${kind}s`, items, ctx.query);
  };
}

export const listZones = listScopes('zone', zoneJson);

export const getRegion: Handler = (ctx) => {
  const { project, name } = requestScope(ctx, 'region');
  return regionJson(ctx.state, project, name);
};

export const listRegions = listScopes('region', regionJson);

export const getProject: Handler = (ctx) => {
  const project = param(ctx, 'project');
  ctx.state.requireProject(project);
  return projectJson(ctx.state, project);
};

export const getNetwork: Handler = (ctx) => {
  const project = param(ctx, 'project');
  ctx.state.requireProject(project);
  const name = param(ctx, 'network');
  const net = ctx.state.world.networks.find((n) => n.project === project && n.name === name);
  if (!net) throw notFound(networkPath(project, name));
  const subs = ctx.state.world.subnetworks.filter((s) => s.project === project && s.network === name);
  return {
    kind: 'compute#network',
    id: stableId(networkPath(project, name)),
    name,
    selfLink: selfLink(networkPath(project, name)),
    autoCreateSubnetworks: false,
    subnetworks: subs.map((s) => selfLink(subnetworkPath(s.project, s.region, s.name))),
    routingConfig: { routingMode: 'REGIONAL' },
  };
};

export const getSubnetwork: Handler = (ctx) => {
  const sub = requireScoped(ctx, 'subnetworks');
  const { project, region, name } = sub;
  const [base = '', bits = '32'] = sub.ipCidrRange.split('/');
  const gw = base.split('.').map(Number);
  gw[3] = (gw[3] ?? 0) + 1;
  return {
    kind: 'compute#subnetwork',
    id: stableId(subnetworkPath(project, region, name)),
    name,
    network: selfLink(networkPath(project, sub.network)),
    ipCidrRange: `${base}/${bits}`,
    gatewayAddress: gw.join('.'),
    region: selfLink(regionPath(project, region)),
    selfLink: selfLink(subnetworkPath(project, region, name)),
    stackType: 'IPV4_ONLY',
  };
};

export const getDisk: Handler = (ctx) => structuredClone(requireScoped(ctx, 'disks').resource);

export const listDisks: Handler = listScoped('disks', (d) => structuredClone(d.resource));
