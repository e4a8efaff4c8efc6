// RFC 7386 merge patches computed from a saved base copy: only what changed is sent, so keys other
// writers own (labels set by a user, nodeRef set by NodeLink) are left alone. Arrays are replaced
// whole, which is why callers lock on resourceVersion when they patch a list (conditions).

type Json = unknown;

const isObject = (v: Json): v is Record<string, Json> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isPlainObject = (v: Json): v is Record<string, Json> =>
  isObject(v) && [Object.prototype, null].includes(Object.getPrototypeOf(v) as object | null);

/**
 * Structural equality of JSON values, with an explicit stack rather than recursion: the API server stores values
 * nested up to 10,000 levels (in a providerSpec, say), deeper than the call stack allows recursing.
 */
export function deepEqual(a: Json, b: Json): boolean {
  const pending: Array<[Json, Json]> = [[a, b]];
  for (let pair = pending.pop(); pair; pair = pending.pop()) {
    const [x, y] = pair;
    if (x === y) continue;
    if (Array.isArray(x)) {
      if (!Array.isArray(y) || x.length !== y.length) return false;
      for (let i = 0; i < x.length; i++) pending.push([x[i], y[i]]);
    } else if (isObject(x) && isObject(y)) {
      const xk = Object.keys(x).filter((k) => x[k] !== undefined);
      const yk = Object.keys(y).filter((k) => y[k] !== undefined);
      if (xk.length !== yk.length) return false;
      for (const k of xk) pending.push([x[k], y[k]]);
    } else {
      return false;
    }
  }
  return true;
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

/**
 * A deep copy of a JSON value (what the API server hands over), with an explicit stack rather than recursion, so
 * a Machine whose providerSpec nests 10,000 levels deep is copied like any other (structuredClone overflows).
 */
export function clone<T>(v: T): T {
  // Plain objects and arrays are walked here; anything else that is not a primitive (a Date, say) is small and flat.
  const copyOf = (x: Json): Json =>
    Array.isArray(x)
      ? new Array<Json>(x.length)
      : isPlainObject(x)
        ? {}
        : typeof x === 'object' && x !== null
          ? structuredClone(x)
          : x;
  const root = copyOf(v);
  const pending: Array<[Json, Json]> = [[v, root]];
  for (let pair = pending.pop(); pair; pair = pending.pop()) {
    const [from, to] = pair;
    if (Array.isArray(from)) {
      const out = to as Json[];
      from.forEach((item, i) => {
        const c = copyOf(item);
        out[i] = c;
        if (c !== item) pending.push([item, c]);
      });
    } else if (isPlainObject(from)) {
      const out = to as Record<string, Json>;
      for (const [k, item] of Object.entries(from)) {
        const c = copyOf(item);
        // defineProperty: a "__proto__" key is copied as the own key it is, not turned into a prototype.
        Object.defineProperty(out, k, { value: c, enumerable: true, writable: true, configurable: true });
        if (c !== item) pending.push([item, c]);
      }
    }
  }
  return root as T;
}
