// REST paths from resource descriptors: /api/v1/namespaces/ns/pods/name/eviction and the like.
import type { Resource } from './resources.js';

export class RequestBuildError extends Error {
  override readonly name = 'RequestBuildError';
}

export function collectionPath(r: Resource, namespace: string | undefined): string {
  const base = r.group === '' ? `/api/${r.version}` : `/apis/${r.group}/${r.version}`;
  if (r.namespaced && namespace) return `${base}/namespaces/${encodeURIComponent(namespace)}/${r.plural}`;
  return `${base}/${r.plural}`;
}

/** Path of one object; a namespaced kind must be given its namespace, a cluster-scoped one must not. */
export function objectPath(r: Resource, key: { namespace?: string; name: string }, subresource?: string): string {
  if (!key.name) throw new RequestBuildError(`${r.kind}: metadata.name is required`);
  if (r.namespaced && !key.namespace)
    throw new RequestBuildError(`${r.kind} ${key.name}: metadata.namespace is required for a namespaced kind`);
  const ns = r.namespaced ? key.namespace : undefined;
  const path = `${collectionPath(r, ns)}/${encodeURIComponent(key.name)}`;
  return subresource ? `${path}/${subresource}` : path;
}

export function withQuery(path: string, query: Record<string, string | number | boolean | undefined>): string {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) {
    if (v !== undefined && v !== '') params.set(k, String(v));
  }
  const qs = params.toString();
  return qs ? `${path}?${qs}` : path;
}
