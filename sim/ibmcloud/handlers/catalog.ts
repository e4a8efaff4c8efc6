// Regions, instance profiles, images, VPCs, subnets, security groups and dedicated hosts: the read-only
// lookups the actuator resolves names through.
import { notFound } from '../api-error.js';
import { page } from '../listing.js';
import {
  renderDedicatedHost,
  renderImage,
  renderProfile,
  renderSecurityGroup,
  renderSubnet,
  renderVpc,
  type RenderContext,
} from '../render.js';
import { crn } from '../vpc-state.js';
import { ok, type HandlerRequest, type Route } from './context.js';

/** The region's endpoint is the emulator itself, so a client that switches to it stays local. */
function renderRegion(r: RenderContext) {
  return {
    name: r.world.region,
    href: `${r.base}/regions/${r.world.region}`,
    endpoint: r.base.replace(/\/v1$/, ''),
    status: 'available',
  };
}

/** A filter that matches when the parameter is absent. */
function eq(query: URLSearchParams, key: string, value: string | undefined): boolean {
  const want = query.get(key);
  return want === null || want === value;
}

function getRegion(req: HandlerRequest) {
  const name = req.params.name ?? '';
  if (name !== req.st.world.region) throw notFound('Region', name);
  return ok(renderRegion(req.render));
}

function listImages(req: HandlerRequest) {
  const { query, st } = req;
  const items = st.world.images.filter(
    (m) =>
      eq(query, 'name', m.name) &&
      eq(query, 'visibility', m.visibility) &&
      eq(query, 'status', m.status) &&
      eq(query, 'resource_group.id', m.resourceGroupId),
  );
  return ok(
    page(items, query, { key: 'images', url: `${req.render.base}/images`, render: (m) => renderImage(req.render, m) }),
  );
}

function listVpcs(req: HandlerRequest) {
  const { query, st } = req;
  const items = st.world.vpcs.filter((v) => eq(query, 'resource_group.id', v.resourceGroupId));
  return ok(
    page(items, query, { key: 'vpcs', url: `${req.render.base}/vpcs`, render: (v) => renderVpc(req.render, v) }),
  );
}

function vpcMatches(req: HandlerRequest, vpcId: string): boolean {
  const w = req.st.world;
  const vpcName = w.vpcs.find((v) => v.id === vpcId)?.name;
  return (
    eq(req.query, 'vpc.id', vpcId) &&
    eq(req.query, 'vpc.name', vpcName) &&
    eq(req.query, 'vpc.crn', crn(w, w.region, 'vpc', vpcId))
  );
}

function listSubnets(req: HandlerRequest) {
  const { query, st } = req;
  const items = st.world.subnets.filter(
    (s) =>
      eq(query, 'resource_group.id', s.resourceGroupId) && eq(query, 'zone.name', s.zone) && vpcMatches(req, s.vpcId),
  );
  return ok(
    page(items, query, {
      key: 'subnets',
      url: `${req.render.base}/subnets`,
      render: (s) => renderSubnet(req.render, s),
    }),
  );
}

function listSecurityGroups(req: HandlerRequest) {
  const { query, st } = req;
  const items = st.world.securityGroups.filter(
    (g) => eq(query, 'resource_group.id', g.resourceGroupId) && vpcMatches(req, g.vpcId),
  );
  return ok(
    page(items, query, {
      key: 'security_groups',
      url: `${req.render.base}/security_groups`,
      render: (g) => renderSecurityGroup(req.render, g),
    }),
  );
}

function listDedicatedHosts(req: HandlerRequest) {
  const { query, st } = req;
  const items = st.world.dedicatedHosts.filter(
    (h) =>
      eq(query, 'resource_group.id', h.resourceGroupId) && eq(query, 'zone.name', h.zone) && eq(query, 'name', h.name),
  );
  return ok(
    page(items, query, {
      key: 'dedicated_hosts',
      url: `${req.render.base}/dedicated_hosts`,
      render: (h) => renderDedicatedHost(req.render, h),
    }),
  );
}

export const CATALOG_ROUTES: Route[] = [
  {
    method: 'GET',
    path: '/regions',
    action: 'ListRegions',
    handler: (req) => ok({ regions: [renderRegion(req.render)] }),
  },
  { method: 'GET', path: '/regions/{name}', action: 'GetRegion', handler: getRegion },
  // The profile collection is not paged by the API: every profile comes back at once.
  {
    method: 'GET',
    path: '/instance/profiles',
    action: 'ListInstanceProfiles',
    handler: (req) =>
      ok({
        href: `${req.render.base}/instance/profiles`,
        total_count: req.st.world.profiles.length,
        profiles: req.st.world.profiles.map((p) => renderProfile(req.render, p)),
      }),
  },
  {
    method: 'GET',
    path: '/instance/profiles/{name}',
    action: 'GetInstanceProfile',
    handler: (req) => {
      const name = req.params.name ?? '';
      const p = req.st.world.profiles.find((x) => x.name === name);
      if (!p) throw notFound('Instance profile', name);
      return ok(renderProfile(req.render, p));
    },
  },
  { method: 'GET', path: '/images', action: 'ListImages', handler: listImages },
  { method: 'GET', path: '/vpcs', action: 'ListVpcs', handler: listVpcs },
  { method: 'GET', path: '/subnets', action: 'ListSubnets', handler: listSubnets },
  { method: 'GET', path: '/security_groups', action: 'ListSecurityGroups', handler: listSecurityGroups },
  { method: 'GET', path: '/dedicated_hosts', action: 'ListDedicatedHosts', handler: listDedicatedHosts },
];
