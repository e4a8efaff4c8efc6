// The scope a request names (a zone or region of a project, which must exist) and the named resources that
// live in one: a get answers 404 with the resource's path, a list answers the scope's resources in name order.
// GCE names these consistently, and so does the emulator's world: the collection `targetPools` is the path
// segment and the world's field, `{targetPool}` the path parameter, `compute#targetPoolList` the list's kind.
import { notFound } from '../api-error.js';
import { regionPath, zonePath } from '../links.js';
import { listResponse } from '../listing.js';
import type { GceWorld } from '../model.js';
import { param, type Handler, type RequestContext } from './context.js';

export type ScopeKind = 'zone' | 'region';

export interface RequestScope {
  project: string;
  /** The zone or region name. */
  name: string;
  /** `projects/{p}/zones/{z}` or `projects/{p}/regions/{r}`. */
  path: string;
}

/** The `{project}` and `{zone}` or `{region}` path parameters, checked to exist (404 / 400 as GCE answers). */
export function requestScope(ctx: RequestContext, kind: ScopeKind): RequestScope {
  const project = param(ctx, 'project');
  const name = param(ctx, kind);
  if (kind === 'zone') ctx.state.requireZone(project, name);
  else ctx.state.requireRegion(project, name);
  return { project, name, path: kind === 'zone' ? zonePath(project, name) : regionPath(project, name) };
}

/** The zone a zonal call names, with its project. */
export function requestZone(ctx: RequestContext): { project: string; zone: string } {
  const { project, name: zone } = requestScope(ctx, 'zone');
  return { project, zone };
}

/** Which scope each zonal or regional collection lives in. */
const SCOPE_OF = {
  targetPools: 'region',
  backendServices: 'region',
  subnetworks: 'region',
  instanceGroups: 'zone',
  disks: 'zone',
} as const satisfies Partial<Record<keyof GceWorld, ScopeKind>>;

export type ScopedCollection = keyof typeof SCOPE_OF;
type Item<C extends ScopedCollection> = GceWorld[C][number];

function inScope(x: Item<ScopedCollection>, project: string, scope: string): boolean {
  return x.project === project && ('zone' in x ? x.zone : x.region) === scope;
}

/** The resource a get (or a call on one resource) names; 404 when it does not exist. */
export function requireScoped<C extends ScopedCollection>(ctx: RequestContext, collection: C): Item<C> {
  const scope = requestScope(ctx, SCOPE_OF[collection]);
  const name = param(ctx, collection.slice(0, -1));
  const all = ctx.state.world[collection] as readonly Item<C>[];
  const found = all.find((x) => inScope(x, scope.project, scope.name) && x.name === name);
  if (!found) throw notFound(`${scope.path}/${collection}/${name}`);
  return found;
}

/** The list handler of a collection: the scope's resources in name order, filtered and paged. */
export function listScoped<C extends ScopedCollection>(
  collection: C,
  render: (x: Item<C>) => Record<string, unknown>,
): Handler {
  return (ctx) => {
    const scope = requestScope(ctx, SCOPE_OF[collection]);
    const all = ctx.state.world[collection] as readonly Item<C>[];
    const items = all
      .filter((x) => inScope(x, scope.project, scope.name))
      .sort((a, b) => a.name.localeCompare(b.name))
      .map(render);
    return listResponse(`compute#${collection.slice(0, -1)}List`, `${scope.path}/${collection}`, items, ctx.query);
  };
}
