// Target pools (addInstance/removeInstance), unmanaged instance groups (insert, add/remove/listInstances) and
// regional backend services (get, and update as a whole-resource PUT), with region/zone operations.
import { alreadyExists, conditionNotMet, GceApiError, invalidField, notFound } from '../api-error.js';
import type { GceState } from '../gce-state.js';
import {
  instancePath,
  regionPath,
  resourcePath,
  SELF_LINK_BASE,
  selfLink,
  splitResourcePath,
  str,
  zonePath,
} from '../links.js';
import { listResponse } from '../listing.js';
import type { GceBackendService, GceInstanceGroup, GceOperation, GceTargetPool, OperationScope } from '../model.js';
import { renderOperation, withRequestId } from '../operations.js';
import { resolveNetworkRef, resolveSubnetworkRef } from '../references.js';
import { gceTimestamp } from '../timestamps.js';
import { checkName, fingerprint } from '../validation.js';
import { bodyObject, type Handler, type RequestContext } from './context.js';
import { listScoped, requestScope, requireScoped } from './scoped-collection.js';

type Json = Record<string, unknown>;

function mutate(
  ctx: RequestContext,
  project: string,
  scope: OperationScope,
  type: string,
  targetLink: string,
  targetId: string,
  effect: () => void,
): Json {
  const { state } = ctx;
  let created = false;
  const op = withRequestId(state, project, ctx.query.get('requestId'), type, (): GceOperation => {
    created = true;
    effect();
    return state.createOperation({ project, scope, operationType: type, targetLink, targetId });
  });
  state.changed();
  return renderOperation(op, state.clock.now(), created);
}

/** The instance self-links named in an {instances:[{instance}]} body; each must exist (404 otherwise). */
function instanceRefs(state: GceState, project: string, body: Json, field: string, zone?: string): string[] {
  const refs = Array.isArray(body.instances) ? (body.instances as unknown[]) : [];
  return refs.map((r, i) => {
    const ref = (r as Json | null)?.instance;
    if (typeof ref !== 'string' || ref === '')
      throw invalidField(`${field}[${i}].instance`, ref, 'An instance URL is required.');
    const path = resourcePath(ref, project);
    const rest = splitResourcePath(path)?.rest ?? [];
    const p = splitResourcePath(path)?.project ?? '';
    if (rest[0] !== 'zones' || rest[2] !== 'instances' || rest.length !== 4)
      throw invalidField(`${field}[${i}].instance`, ref, 'Expected projects/{p}/zones/{z}/instances/{name}.');
    if (zone !== undefined && rest[1] !== zone)
      throw invalidField(`${field}[${i}].instance`, ref, `The instance must be in zone '${zone}'.`);
    const inst = state.instance(p, rest[1] as string, rest[3] as string);
    if (!inst) throw notFound(path);
    return selfLink(instancePath(inst.project, inst.zone, inst.name));
  });
}

/** The fields every GCE resource opens with, then the link to the zone or region it lives in. */
function resourceHead(
  kind: string,
  r: { project: string; name: string; id: string; creationTimestamp: string } & ({ zone: string } | { region: string }),
): Json {
  const scope =
    'zone' in r
      ? { zone: selfLink(zonePath(r.project, r.zone)) }
      : { region: selfLink(regionPath(r.project, r.region)) };
  return { kind: `compute#${kind}`, id: r.id, creationTimestamp: r.creationTimestamp, name: r.name, ...scope };
}

// ---- target pools -----------------------------------------------------------------------------------------

function targetPoolJson(tp: GceTargetPool): Json {
  const path = `${regionPath(tp.project, tp.region)}/targetPools/${tp.name}`;
  const out: Json = {
    ...resourceHead('targetPool', tp),
    sessionAffinity: 'NONE',
    selfLink: selfLink(path),
  };
  if (tp.instances.length > 0) out.instances = [...tp.instances];
  return out;
}

const requireTargetPool = (ctx: RequestContext): GceTargetPool => requireScoped(ctx, 'targetPools');

export const getTargetPool: Handler = (ctx) => targetPoolJson(requireTargetPool(ctx));

export const listTargetPools: Handler = listScoped('targetPools', targetPoolJson);

function targetPoolChange(add: boolean): Handler {
  return (ctx) => {
    const tp = requireTargetPool(ctx);
    const links = instanceRefs(ctx.state, tp.project, bodyObject(ctx), 'instances');
    const link = selfLink(`${regionPath(tp.project, tp.region)}/targetPools/${tp.name}`);
    return mutate(
      ctx,
      tp.project,
      { kind: 'region', name: tp.region },
      add ? 'addInstance' : 'removeInstance',
      link,
      tp.id,
      () => {
        if (add) for (const l of links) if (!tp.instances.includes(l)) tp.instances.push(l);
        if (!add) tp.instances = tp.instances.filter((l) => !links.includes(l));
      },
    );
  };
}
export const addTargetPoolInstance = targetPoolChange(true);
export const removeTargetPoolInstance = targetPoolChange(false);

// ---- instance groups --------------------------------------------------------------------------------------

function groupPath(g: GceInstanceGroup): string {
  return `${zonePath(g.project, g.zone)}/instanceGroups/${g.name}`;
}

function instanceGroupJson(g: GceInstanceGroup): Json {
  const out: Json = {
    ...resourceHead('instanceGroup', g),
    fingerprint: g.fingerprint,
    selfLink: selfLink(groupPath(g)),
    size: g.instances.length,
  };
  if (g.description) out.description = g.description;
  if (g.network) out.network = g.network;
  if (g.subnetwork) out.subnetwork = g.subnetwork;
  if (g.namedPorts.length > 0) out.namedPorts = g.namedPorts.map((p) => ({ ...p }));
  return out;
}

const requireGroup = (ctx: RequestContext): GceInstanceGroup => requireScoped(ctx, 'instanceGroups');

export const getInstanceGroup: Handler = (ctx) => instanceGroupJson(requireGroup(ctx));

export const listInstanceGroups: Handler = listScoped('instanceGroups', instanceGroupJson);

export const insertInstanceGroup: Handler = (ctx) => {
  const { state } = ctx;
  const { project, name: zone, path: zoneScopePath } = requestScope(ctx, 'zone');
  const body = bodyObject(ctx);
  const name = checkName('resource.name', body.name);
  const path = `${zoneScopePath}/instanceGroups/${name}`;
  return mutate(ctx, project, { kind: 'zone', name: zone }, 'insert', selfLink(path), '', () => {
    if (state.world.instanceGroups.some((g) => g.project === project && g.zone === zone && g.name === name))
      throw alreadyExists(path);
    const net =
      typeof body.network === 'string' && body.network !== ''
        ? resolveNetworkRef(state, project, body.network, 'resource.network')
        : undefined;
    const sub =
      typeof body.subnetwork === 'string' && body.subnetwork !== ''
        ? resolveSubnetworkRef(state, project, body.subnetwork, 'resource.subnetwork')
        : undefined;
    const ports = Array.isArray(body.namedPorts)
      ? (body.namedPorts as Json[]).map((p) => ({ name: String(p.name as string), port: Number(p.port) }))
      : [];
    state.world.instanceGroups.push({
      project,
      zone,
      name,
      id: state.newId(),
      creationTimestamp: gceTimestamp(state.clock.now()),
      network: net ? selfLink(`projects/${net.project}/global/networks/${net.name}`) : undefined,
      subnetwork: sub ? selfLink(`${regionPath(sub.project, sub.region)}/subnetworks/${sub.name}`) : undefined,
      description: typeof body.description === 'string' ? body.description : undefined,
      namedPorts: ports,
      instances: [],
      fingerprint: fingerprint([name, ports]),
    });
  });
};

export const deleteInstanceGroup: Handler = (ctx) => {
  const g = requireGroup(ctx);
  return mutate(ctx, g.project, { kind: 'zone', name: g.zone }, 'delete', selfLink(groupPath(g)), g.id, () => {
    ctx.state.world.instanceGroups = ctx.state.world.instanceGroups.filter((x) => x !== g);
  });
};

function groupChange(add: boolean): Handler {
  return (ctx) => {
    const g = requireGroup(ctx);
    const links = instanceRefs(ctx.state, g.project, bodyObject(ctx), 'instances', g.zone);
    return mutate(
      ctx,
      g.project,
      { kind: 'zone', name: g.zone },
      add ? 'compute.instanceGroups.addInstances' : 'compute.instanceGroups.removeInstances',
      selfLink(groupPath(g)),
      g.id,
      () => {
        if (add) {
          const dup = links.find((l) => g.instances.includes(l));
          if (dup)
            throw new GceApiError(
              400,
              'memberAlreadyExists',
              `The resource '${dup.slice(SELF_LINK_BASE.length)}' is already a member of '${groupPath(g)}'`,
            );
          g.instances.push(...links);
        } else {
          g.instances = g.instances.filter((l) => !links.includes(l));
        }
        g.fingerprint = fingerprint(g.instances);
      },
    );
  };
}
export const addInstanceGroupInstances = groupChange(true);
export const removeInstanceGroupInstances = groupChange(false);

export const listInstanceGroupInstances: Handler = (ctx) => {
  const g = requireGroup(ctx);
  const body = (ctx.body ?? {}) as Json;
  const wanted = body.instanceState === undefined ? 'ALL' : str(body.instanceState);
  if (wanted !== 'ALL' && wanted !== 'RUNNING') throw invalidField('instanceState', wanted, 'Must be ALL or RUNNING.');
  const items = g.instances
    .map((link) => {
      const parts = link.split('/');
      const inst = ctx.state.instance(g.project, parts[parts.length - 3] ?? '', parts[parts.length - 1] ?? '');
      return { instance: link, status: inst ? String(inst.resource.status) : 'TERMINATED' };
    })
    .filter((i) => wanted === 'ALL' || i.status === 'RUNNING')
    .sort((a, b) => a.instance.localeCompare(b.instance));
  return {
    ...listResponse('compute#instanceGroupsListInstances', `${groupPath(g)}/listInstances`, items, ctx.query),
    id: g.id,
    selfLink: selfLink(groupPath(g)),
  };
};

// ---- regional backend services ---------------------------------------------------------------------------

const requireBackendService = (ctx: RequestContext): GceBackendService => requireScoped(ctx, 'backendServices');

export const getBackendService: Handler = (ctx) => structuredClone(requireBackendService(ctx).resource);

export const listBackendServices: Handler = listScoped('backendServices', (b) => structuredClone(b.resource));

/** PUT of the whole backend service; the fingerprint guards against lost updates, as in GCE. */
export const updateBackendService: Handler = (ctx) => {
  const bs = requireBackendService(ctx);
  const body = bodyObject(ctx);
  if (body.fingerprint !== undefined && body.fingerprint !== bs.resource.fingerprint) {
    throw conditionNotMet('Supplied fingerprint does not match current fingerprint.');
  }
  const backends = Array.isArray(body.backends) ? (body.backends as Json[]) : [];
  backends.forEach((b, i) => {
    const ref = b.group;
    if (typeof ref !== 'string')
      throw invalidField(`resource.backends[${i}].group`, ref, 'A backend group URL is required.');
    const path = resourcePath(ref, bs.project);
    const rest = splitResourcePath(path)?.rest ?? [];
    const gp = splitResourcePath(path)?.project;
    if (!ctx.state.world.instanceGroups.some((g) => g.project === gp && g.zone === rest[1] && g.name === rest[3]))
      throw notFound(path);
  });
  return mutate(
    ctx,
    bs.project,
    { kind: 'region', name: bs.region },
    'update',
    String(bs.resource.selfLink),
    String(bs.resource.id),
    () => {
      const keep = {
        kind: bs.resource.kind,
        id: bs.resource.id,
        creationTimestamp: bs.resource.creationTimestamp,
        selfLink: bs.resource.selfLink,
        region: bs.resource.region,
        name: bs.name,
      };
      const next: Json = { ...body, ...keep };
      next.backends = backends.map((b) => ({
        ...b,
        group: selfLink(resourcePath(String(b.group as string), bs.project)),
      }));
      next.fingerprint = fingerprint(next.backends);
      bs.resource = next;
    },
  );
};
