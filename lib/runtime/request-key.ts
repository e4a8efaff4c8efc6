// Work-queue keys: the namespacedKey of the request; a key read back is a request again.
import { namespacedKey, splitObjectKey } from '../apis/objects.js';
import type { Request } from './types.js';

export function requestKey(r: Request): string {
  return namespacedKey(r);
}

/** The request a key names; a cluster-scoped key gives a request without a namespace. */
export function requestFromKey(key: string): Request {
  const { namespace, name } = splitObjectKey(key);
  return namespace ? { namespace, name } : { name };
}
