// Work-queue keys: "namespace/name", or "name" for cluster-scoped objects.
import type { Request } from './types.js';

export function requestKey(r: Request): string {
  return r.namespace ? `${r.namespace}/${r.name}` : r.name;
}

export function requestFromKey(key: string): Request {
  const i = key.indexOf('/');
  return i < 0 ? { name: key } : { namespace: key.slice(0, i), name: key.slice(i + 1) };
}
