// Which service and handler a request path belongs to. One loopback server answers for all four IBM
// services, each under its real path prefix: VPC /v1/..., IAM /identity/token, Resource Manager
// /v2/resource_groups and Global Tagging /v3/tags.
import type { Route } from './handlers/context.js';
import { CATALOG_ROUTES } from './handlers/catalog.js';
import { INSTANCE_ROUTES } from './handlers/instances.js';
import { RESOURCE_MANAGER_ROUTES, TAGGING_ROUTES } from './handlers/platform.js';

export type ServiceKind = 'vpc' | 'iam' | 'resource-manager' | 'global-tagging';

export const IAM_TOKEN_ACTION = 'iam:GetToken';

/** One path segment of a route: a literal, or `{name}` capturing one non-empty segment. */
type Segment = { literal: string } | { param: string };

interface CompiledRoute {
  service: ServiceKind;
  route: Route;
  segments: Segment[];
}

function compile(service: ServiceKind, prefix: string, route: Route): CompiledRoute {
  const segments = `${prefix}${route.path}`.split('/').map((seg): Segment => {
    const m = /^\{(\w+)\}$/.exec(seg);
    return m?.[1] ? { param: m[1] } : { literal: seg };
  });
  return { service, route, segments };
}

/** The route's parameters when `parts` (a path split on "/", one trailing slash allowed) fits its segments. */
function matchSegments(segments: readonly Segment[], parts: readonly string[]): Record<string, string> | undefined {
  const n = parts.length === segments.length + 1 && parts[parts.length - 1] === '' ? segments.length : parts.length;
  if (n !== segments.length) return undefined;
  const params: Record<string, string> = {};
  for (let i = 0; i < n; i++) {
    const seg = segments[i] as Segment;
    const part = parts[i] as string;
    if ('literal' in seg) {
      if (part !== seg.literal) return undefined;
    } else {
      if (part === '') return undefined;
      params[seg.param] = part;
    }
  }
  return params;
}

const TABLE: CompiledRoute[] = [
  ...[...INSTANCE_ROUTES, ...CATALOG_ROUTES].map((r) => compile('vpc', '/v1', r)),
  ...RESOURCE_MANAGER_ROUTES.map((r) => compile('resource-manager', '', r)),
  ...TAGGING_ROUTES.map((r) => compile('global-tagging', '', r)),
];

export type RouteMatch =
  | { kind: 'iam' }
  | { kind: 'route'; service: ServiceKind; route: Route; params: Record<string, string> }
  | { kind: 'method-not-allowed'; service: ServiceKind; allowed: string[] }
  | { kind: 'not-found'; service: ServiceKind };

export function serviceOfPath(path: string): ServiceKind {
  if (path.startsWith('/identity')) return 'iam';
  if (path.startsWith('/v2/')) return 'resource-manager';
  if (path.startsWith('/v3/')) return 'global-tagging';
  return 'vpc';
}

export function matchRoute(method: string, path: string): RouteMatch {
  if (path === '/identity/token' || path === '/identity/token/') {
    return method === 'POST' ? { kind: 'iam' } : { kind: 'method-not-allowed', service: 'iam', allowed: ['POST'] };
  }
  const allowed: string[] = [];
  const parts = path.split('/');
  for (const c of TABLE) {
    const raw = matchSegments(c.segments, parts);
    if (!raw) continue;
    if (c.route.method !== method) {
      allowed.push(c.route.method);
      continue;
    }
    const params: Record<string, string> = {};
    for (const [name, value] of Object.entries(raw)) params[name] = decodeURIComponent(value);
    return { kind: 'route', service: c.service, route: c.route, params };
  }
  const service = serviceOfPath(path);
  return allowed.length > 0 ? { kind: 'method-not-allowed', service, allowed } : { kind: 'not-found', service };
}
