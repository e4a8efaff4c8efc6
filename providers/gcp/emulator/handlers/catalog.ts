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
import { param, type Handler, type RequestContext } from './context.js';

function zoneScope(ctx: RequestContext): { project: string; zone: string } {
  const project = param(ctx, 'project');
  const zone = param(ctx, 'zone');
  ctx.state.requireZone(project, zone);
  return { project, zone };
}

function offered(zones: string[] | undefined, zone: string): boolean {
  return zones === undefined || zones.includes(zone);
}

export const getMachineType: Handler = (ctx) => {
  const { project, zone } = zoneScope(ctx);
  return machineTypeJson(project, zone, requireMachineType(ctx.state, project, zone, param(ctx, 'machineType')));
};

export const listMachineTypes: Handler = (ctx) => {
  const { project, zone } = zoneScope(ctx);
  const items = ctx.state.world.machineTypes
    .filter((m) => offered(m.zones, zone))
    .sort((a, b) => a.name.localeCompare(b.name))
    .map((m) => machineTypeJson(project, zone, m));
  return listResponse('compute#machineTypeList', `${zonePath(project, zone)}/machineTypes`, items, ctx.query);
};

export const aggregatedListMachineTypes: Handler = (ctx) => {
  const project = param(ctx, 'project');
  ctx.state.requireProject(project);
  const zones = ctx.state.world.zones.map((z) => z.name).sort();
  const types = [...ctx.state.world.machineTypes].sort((a, b) => a.name.localeCompare(b.name));
  const entries = zones.flatMap((zone) =>
    types.filter((m) => offered(m.zones, zone)).map((m) => ({ scope: `zones/${zone}`, item: machineTypeJson(project, zone, m) })),
  );
  return aggregatedResponse('compute#machineTypeAggregatedList', project, 'machineTypes', 'machineTypes', entries, zones.map((z) => `zones/${z}`), ctx.query);
};

export const getAcceleratorType: Handler = (ctx) => {
  const { project, zone } = zoneScope(ctx);
  const name = param(ctx, 'acceleratorType');
  const at = ctx.state.world.acceleratorTypes.find((a) => a.name === name && offered(a.zones, zone));
  if (!at) throw notFound(`${zonePath(project, zone)}/acceleratorTypes/${name}`);
  return acceleratorTypeJson(project, zone, at);
};

export const listAcceleratorTypes: Handler = (ctx) => {
  const { project, zone } = zoneScope(ctx);
  const items = ctx.state.world.acceleratorTypes
    .filter((a) => offered(a.zones, zone))
    .sort((a, b) => a.name.localeCompare(b.name))
    .map((a) => acceleratorTypeJson(project, zone, a));
  return listResponse('compute#acceleratorTypeList', `${zonePath(project, zone)}/acceleratorTypes`, items, ctx.query);
};

export const getDiskType: Handler = (ctx) => {
  const { project, zone } = zoneScope(ctx);
  const name = param(ctx, 'diskType');
  if (!ctx.state.world.diskTypes.includes(name)) throw notFound(`${zonePath(project, zone)}/diskTypes/${name}`);
  return diskTypeJson(project, zone, name);
};

export const listDiskTypes: Handler = (ctx) => {
  const { project, zone } = zoneScope(ctx);
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
  const { project, zone } = zoneScope(ctx);
  return zoneJson(ctx.state, project, zone);
};

export const listZones: Handler = (ctx) => {
  const project = param(ctx, 'project');
  ctx.state.requireProject(project);
  const items = ctx.state.world.zones.map((z) => z.name).sort().map((z) => zoneJson(ctx.state, project, z));
  return listResponse('compute#zoneList', `projects/${project}/zones`, items, ctx.query);
};

export const getRegion: Handler = (ctx) => {
  const project = param(ctx, 'project');
  const region = param(ctx, 'region');
  ctx.state.requireRegion(project, region);
  return regionJson(ctx.state, project, region);
};

export const listRegions: Handler = (ctx) => {
  const project = param(ctx, 'project');
  ctx.state.requireProject(project);
  const items = ctx.state.world.regions.map((r) => r.name).sort().map((r) => regionJson(ctx.state, project, r));
  return listResponse('compute#regionList', `projects/${project}/regions`, items, ctx.query);
};

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
  const project = param(ctx, 'project');
  const region = param(ctx, 'region');
  ctx.state.requireRegion(project, region);
  const name = param(ctx, 'subnetwork');
  const sub = ctx.state.world.subnetworks.find((s) => s.project === project && s.region === region && s.name === name);
  if (!sub) throw notFound(subnetworkPath(project, region, name));
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

export const getDisk: Handler = (ctx) => {
  const { project, zone } = zoneScope(ctx);
  const name = param(ctx, 'disk');
  const disk = ctx.state.world.disks.find((d) => d.project === project && d.zone === zone && d.name === name);
  if (!disk) throw notFound(`${zonePath(project, zone)}/disks/${name}`);
  return structuredClone(disk.resource);
};

export const listDisks: Handler = (ctx) => {
  const { project, zone } = zoneScope(ctx);
  const items = ctx.state.world.disks
    .filter((d) => d.project === project && d.zone === zone)
    .sort((a, b) => a.name.localeCompare(b.name))
    .map((d) => structuredClone(d.resource));
  return listResponse('compute#diskList', `${zonePath(project, zone)}/disks`, items, ctx.query);
};
