// Which service and handler a request path belongs to. One loopback server answers for all four IBM
// services, each under its real path prefix: VPC /v1/..., IAM /identity/token, Resource Manager
// /v2/resource_groups and Global Tagging /v3/tags.
import type { Route } from './handlers/context.js';
import { CATALOG_ROUTES } from './handlers/catalog.js';
import { INSTANCE_ROUTES } from './handlers/instances.js';
import { RESOURCE_MANAGER_ROUTES, TAGGING_ROUTES } from './handlers/platform.js';

export type ServiceKind = 'vpc' | 'iam' | 'resource-manager' | 'global-tagging';

export const IAM_TOKEN_ACTION = 'iam:GetToken';

interface CompiledRoute {
  service: ServiceKind;
  route: Route;
  re: RegExp;
  names: string[];
}

function compile(service: ServiceKind, prefix: string, route: Route): CompiledRoute {
  const names: string[] = [];
  const pattern = `${prefix}${route.path}`
    .split('/')
    .map((seg) => {
      const m = /^\{(\w+)\}$/.exec(seg);
      if (!m?.[1]) return seg.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      names.push(m[1]);
      return '([^/]+)';
    })
    .join('/');
  return { service, route, re: new RegExp(`^${pattern}/?$`), names };
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
  for (const c of TABLE) {
    const m = c.re.exec(path);
    if (!m) continue;
    if (c.route.method !== method) {
      allowed.push(c.route.method);
      continue;
    }
    const params: Record<string, string> = {};
    c.names.forEach((n, i) => (params[n] = decodeURIComponent(m[i + 1] ?? '')));
    return { kind: 'route', service: c.service, route: c.route, params };
  }
  const service = serviceOfPath(path);
  return allowed.length > 0 ? { kind: 'method-not-allowed', service, allowed } : { kind: 'not-found', service };
}
