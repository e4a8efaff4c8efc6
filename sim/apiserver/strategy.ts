// kube-apiserver's per-kind write strategies: what the server sets on create, what an update of the
// main resource or of /status may change, and when metadata.generation moves.
import type { KubeObject } from '../../lib/apis/meta.js';
import { equalExcept, isPlainObject } from './json.js';
import type { ResourceType } from './resource-type.js';
import { hasStatusSubresource } from './resource-type.js';

type Obj = KubeObject & Record<string, unknown>;

/** Fills in server-owned metadata and the initial status of a new object (mutates obj). */
export function prepareCreate(type: ResourceType, obj: Obj, uid: string, now: string): void {
  const m = obj.metadata;
  m.uid = uid;
  m.creationTimestamp = now;
  delete m.resourceVersion;
  delete m.deletionTimestamp;
  delete m.deletionGracePeriodSeconds;
  delete (m as Record<string, unknown>).managedFields;
  delete (m as Record<string, unknown>).selfLink;
  if (type.generation !== 'none') m.generation = 1;
  else delete m.generation;
  const onCreate = type.statusOnCreate;
  if (onCreate === 'drop') delete obj.status;
  else if (typeof onCreate === 'function') obj.status = onCreate(obj);
}

/**
 * The object an update stores: for the main resource the incoming object with the stored status (when the
 * kind has a status subresource); for /status the stored object with the incoming status. Server-owned
 * metadata always comes from the stored object.
 */
export function prepareUpdate(type: ResourceType, subresource: 'status' | undefined, old: Obj, incoming: Obj): Obj {
  let next: Obj;
  if (subresource === 'status') {
    next = { ...old, metadata: { ...old.metadata } };
    if (incoming.status === undefined) delete next.status;
    else next.status = incoming.status;
  } else {
    next = { ...incoming, metadata: { ...incoming.metadata } };
    if (hasStatusSubresource(type)) {
      if (old.status === undefined) delete next.status;
      else next.status = old.status;
    }
  }
  const m = next.metadata;
  const o = old.metadata;
  m.name = o.name;
  if (o.namespace === undefined) delete m.namespace;
  else m.namespace = o.namespace;
  m.uid = o.uid;
  m.creationTimestamp = o.creationTimestamp;
  setOrDelete(m, 'deletionTimestamp', o.deletionTimestamp);
  setOrDelete(m, 'deletionGracePeriodSeconds', o.deletionGracePeriodSeconds);
  setOrDelete(m, 'generation', o.generation);
  m.resourceVersion = o.resourceVersion;
  // Entries the request brings (an Apply's, or a client's own) replace the stored ones; none keeps them.
  const meta = m as Record<string, unknown>;
  const sent = (incoming.metadata as Record<string, unknown>).managedFields;
  const stored = (o as Record<string, unknown>).managedFields;
  if (Array.isArray(sent) && sent.length > 0) meta.managedFields = sent;
  else if (stored !== undefined) meta.managedFields = stored;
  else delete meta.managedFields;
  if (o.generation !== undefined && generationChanges(type, old, next)) m.generation = o.generation + 1;
  return next;
}

function setOrDelete<K extends string>(m: Partial<Record<K, unknown>>, key: K, value: unknown): void {
  if (value === undefined) delete m[key];
  else m[key] = value;
}

function generationChanges(type: ResourceType, old: Obj, next: Obj): boolean {
  switch (type.generation) {
    case 'none':
      return false;
    case 'spec':
      return !equalExcept({ spec: old.spec }, { spec: next.spec }, []);
    case 'content':
      return !equalExcept(old, next, hasStatusSubresource(type) ? ['metadata', 'status'] : ['metadata']);
  }
}

/** Whether two versions of an object differ in anything but resourceVersion (an unchanged update is not written). */
export function sameObject(a: Obj, b: Obj): boolean {
  if (!equalExcept(a, b, ['metadata'])) return false;
  const am = a.metadata as Record<string, unknown>;
  const bm = b.metadata as Record<string, unknown>;
  return equalExcept(am, bm, ['resourceVersion']);
}

export function isObj(v: unknown): v is Obj {
  return isPlainObject(v) && isPlainObject(v.metadata);
}
