// What an informer keeps of each object it caches. Every cached copy lives as long as the object does, once per
// informer, so what no reader of the cache uses is dropped on the way in, as controller-runtime's default cache
// transform does:
//  - metadata.managedFields (field ownership): about half of a Machine's or a Node's decoded size. Writers patch
//    or send an update without it, which leaves the server's entries as they are.
//  - a Node's status.images: the kubelet reports up to 50 images, each with its names, which no controller reads
//    and which would otherwise be the largest part of every cached Node.
// The input is not changed (a shallow copy of what is dropped from), so an object the caller still holds is safe.
import type { KubeObject } from '../apis/meta.js';
import type { Resource } from '../client/resources.js';

export type CacheTransform<T extends KubeObject> = (obj: T) => T;

/** The object without metadata.managedFields (the object itself when it has none). */
export function withoutManagedFields<T extends KubeObject>(obj: T): T {
  const metadata = obj.metadata as Record<string, unknown> | undefined;
  if (metadata === undefined || !('managedFields' in metadata)) return obj;
  const { managedFields: _dropped, ...rest } = metadata;
  return { ...obj, metadata: rest };
}

/** A Node without status.images (the Node itself when it reports none). */
function withoutImages<T extends KubeObject>(obj: T): T {
  const status = (obj as { status?: Record<string, unknown> }).status;
  if (status === undefined || status === null || !('images' in status)) return obj;
  const { images: _dropped, ...rest } = status;
  return { ...obj, status: rest };
}

/** What the informer of `resource` keeps of each object. */
export function cacheTransform<T extends KubeObject>(resource: Resource<T>): CacheTransform<T> {
  if (resource.group === '' && resource.kind === 'Node') return (obj) => withoutImages(withoutManagedFields(obj));
  return withoutManagedFields;
}
