// The attributes kube-apiserver authorizes a request by (its RequestInfo): the verb from the HTTP method,
// and either the API group, resource, subresource, namespace and name of a resource URL or the path of any
// other URL; plus the 403 kube sends when the answer is no, worded as kube words it.
import * as E from '../errors.js';
import { parseResourcePath } from '../request-info.js';
import type { UserInfo } from './user.js';

export interface ResourceAttributes {
  resourceRequest: true;
  verb: string;
  /** '' for the core group. */
  group: string;
  resource: string;
  subresource?: string;
  /** '' for cluster-scoped requests and for lists across all namespaces. */
  namespace: string;
  /** '' when the request names no object (create, list, watch, deletecollection). */
  name: string;
}

export interface NonResourceAttributes {
  resourceRequest: false;
  verb: string;
  path: string;
}

export type RequestAttributes = ResourceAttributes | NonResourceAttributes;

export type Attributes = RequestAttributes & { user: UserInfo };

/** The verb of a resource request, as kube derives it from the method and whether an object is named. */
export function resourceVerb(method: string, named: boolean, watch: boolean): string {
  switch (method) {
    case 'GET':
    case 'HEAD':
      return watch ? 'watch' : named ? 'get' : 'list';
    case 'POST':
      return 'create';
    case 'PUT':
      return 'update';
    case 'PATCH':
      return 'patch';
    case 'DELETE':
      return named ? 'delete' : 'deletecollection';
    default:
      return method.toLowerCase();
  }
}

/**
 * What a request asks for. A list or watch with the field selector `metadata.name=<x>` names <x>, as in
 * kube, so a rule limited to resourceNames can allow watching one object. A namespace is its own namespace.
 */
export function requestAttributes(
  method: string,
  path: string,
  query: URLSearchParams,
  watch: boolean,
): RequestAttributes {
  const info = parseResourcePath(path);
  if (!info) return { resourceRequest: false, verb: method.toLowerCase(), path };
  const verb = resourceVerb(method, info.name !== undefined, watch);
  let name = info.name ?? '';
  if (name === '' && (verb === 'list' || verb === 'watch'))
    name = nameFromFieldSelector(query.get('fieldSelector')) ?? '';
  const namespace =
    info.group === '' && info.resource === 'namespaces' && info.name !== undefined ? info.name : info.namespace;
  return {
    resourceRequest: true,
    verb,
    group: info.group,
    resource: info.resource,
    ...(info.subresource !== undefined ? { subresource: info.subresource } : {}),
    namespace,
    name,
  };
}

function nameFromFieldSelector(selector: string | null): string | undefined {
  if (!selector) return undefined;
  for (const term of selector.split(',')) {
    const eq = term.indexOf('=');
    if (eq < 0 || term[eq - 1] === '!') continue;
    if (term.slice(0, eq).trim() !== 'metadata.name') continue;
    return term.slice(term[eq + 1] === '=' ? eq + 2 : eq + 1).trim();
  }
  return undefined;
}

/** `<resource>/<subresource>`, or the resource alone. */
export function combinedResource(a: { resource: string; subresource?: string }): string {
  return a.subresource ? `${a.resource}/${a.subresource}` : a.resource;
}

/** kube-apiserver's 403: `<resource> "<name>" is forbidden: User "<user>" cannot <verb> resource ...`. */
export function forbidden(a: Attributes, reason: string): E.StatusError {
  const who = `User ${JSON.stringify(a.user.username)}`;
  let why: string;
  if (!a.resourceRequest) {
    why = `${who} cannot ${a.verb} path ${JSON.stringify(a.path)}`;
  } else {
    const what = `${who} cannot ${a.verb} resource ${JSON.stringify(combinedResource(a))} in API group ${JSON.stringify(a.group)}`;
    why = a.namespace ? `${what} in the namespace ${JSON.stringify(a.namespace)}` : `${what} at the cluster scope`;
  }
  if (reason) why = `${why}: ${reason}`;
  if (!a.resourceRequest) return new E.StatusError(403, 'Forbidden', `forbidden: ${why}`, {});
  const gr = { group: a.group, resource: a.resource };
  const subject = a.name ? `${E.qualifiedName(gr)} ${JSON.stringify(a.name)}` : E.qualifiedName(gr);
  return new E.StatusError(403, 'Forbidden', `${subject} is forbidden: ${why}`, {
    ...(a.name ? { name: a.name } : {}),
    group: a.group || undefined,
    kind: a.resource,
  });
}
