// RFC 7386 merge patches computed from a saved base copy: only what changed is sent, so keys other
// writers own (labels set by a user, nodeRef set by NodeLink) are left alone. Arrays are replaced
// whole, which is why callers lock on resourceVersion when they patch a list (conditions).

type Json = unknown;

const isObject = (v: Json): v is Record<string, Json> => typeof v === 'object' && v !== null && !Array.isArray(v);

export function deepEqual(a: Json, b: Json): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) {
    return Array.isArray(b) && a.length === b.length && a.every((v, i) => deepEqual(v, b[i]));
  }
  if (isObject(a) && isObject(b)) {
    const ak = Object.keys(a).filter((k) => a[k] !== undefined);
    const bk = Object.keys(b).filter((k) => b[k] !== undefined);
    return ak.length === bk.length && ak.every((k) => deepEqual(a[k], b[k]));
  }
  return false;
}

/** The merge patch turning `base` into `modified`, or undefined when they are equal. */
export function createMergePatch(base: Json, modified: Json): Record<string, Json> | undefined {
  if (!isObject(modified)) throw new TypeError('createMergePatch: modified must be an object');
  const from = isObject(base) ? base : {};
  const patch: Record<string, Json> = {};
  for (const key of Object.keys(from)) {
    if (from[key] !== undefined && modified[key] === undefined) patch[key] = null;
  }
  for (const [key, value] of Object.entries(modified)) {
    if (value === undefined) continue;
    const old = from[key];
    if (deepEqual(old, value)) continue;
    if (isObject(value) && isObject(old)) {
      const sub = createMergePatch(old, value);
      if (sub) patch[key] = sub;
    } else {
      patch[key] = value;
    }
  }
  return Object.keys(patch).length > 0 ? patch : undefined;
}

export function clone<T>(v: T): T {
  return structuredClone(v);
}
