// Maps whose values kube's Go types declare as strings (a ConfigMap's data, a Secret's stringData, every
// object's labels and annotations) or bytes (base64 strings on the wire). kube's JSON decoder refuses any
// other value before anything else looks at the object: a 400 naming the Go field and the JSON type, e.g.
// `ConfigMap in version "v1" cannot be handled as a ConfigMap: json: cannot unmarshal number into Go
// struct field ConfigMap.data of type string`. A null value decodes to the empty string, as in Go. When the
// value came from a patch, kube decodes the patched object instead, and a failure there is a 422 on the field
// "patch" whose value is the patched object.
import * as E from './errors.js';
import { isPlainObject } from './json.js';
import { setKey } from './json-value.js';
import type { ResourceType } from './resource-type.js';

interface StringMap {
  /** Where the map is in the object. */
  path: readonly string[];
  /** The Go struct field as encoding/json names it in its error. */
  goField: string;
  goType: 'string' | '[]uint8';
}

const objectMetaMaps = (kind: string): StringMap[] => [
  { path: ['metadata', 'labels'], goField: `${kind}.metadata.labels`, goType: 'string' },
  { path: ['metadata', 'annotations'], goField: `${kind}.metadata.annotations`, goType: 'string' },
];

const kindMaps: Record<string, StringMap[]> = {
  '/configmaps': [
    { path: ['data'], goField: 'ConfigMap.data', goType: 'string' },
    { path: ['binaryData'], goField: 'ConfigMap.binaryData', goType: '[]uint8' },
  ],
  '/secrets': [
    { path: ['data'], goField: 'Secret.data', goType: '[]uint8' },
    { path: ['stringData'], goField: 'Secret.stringData', goType: 'string' },
  ],
};

function jsonTypeName(v: unknown): string {
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'boolean') return 'bool';
  if (typeof v === 'number') return 'number';
  return typeof v === 'string' ? 'string' : 'object';
}

/**
 * Checks the string maps of an incoming object of `type` at `version`; returns the object with
 * null values as empty strings (unchanged when there are none). Throws kube's 400 for any other value.
 */
export function checkStringMaps<T extends Record<string, unknown>>(
  type: ResourceType,
  version: string,
  obj: T,
  opts: { patched?: boolean } = {},
): T {
  const undecodable = (detail: string): E.StatusError =>
    opts.patched ? undecodablePatch(obj, detail) : undecodableBody(type, version, detail);
  // Custom resources are decoded without Go types; only their metadata is typed.
  const maps = type.custom
    ? objectMetaMaps('ObjectMeta')
    : [...objectMetaMaps('ObjectMeta'), ...(kindMaps[`${type.group}/${type.plural}`] ?? [])];
  return checkMaps(obj, maps, undecodable);
}

function checkMaps<T extends Record<string, unknown>>(
  obj: T,
  maps: StringMap[],
  undecodable: (detail: string) => E.StatusError,
): T {
  let out = obj;
  for (const m of maps) {
    let parent: unknown = out;
    for (const k of m.path.slice(0, -1))
      parent = isPlainObject(parent) && Object.hasOwn(parent, k) ? parent[k] : undefined;
    const key = m.path[m.path.length - 1] ?? '';
    const map = isPlainObject(parent) && Object.hasOwn(parent, key) ? parent[key] : undefined;
    if (map === undefined || map === null) continue;
    if (!isPlainObject(map))
      throw undecodable(
        `json: cannot unmarshal ${jsonTypeName(map)} into Go struct field ${m.goField} of type map[string]${m.goType}`,
      );
    let fixed: Record<string, unknown> | undefined;
    for (const [k, v] of Object.entries(map)) {
      if (typeof v === 'string') continue;
      if (v !== null)
        throw undecodable(
          `json: cannot unmarshal ${jsonTypeName(v)} into Go struct field ${m.goField} of type ${m.goType}`,
        );
      fixed ??= { ...map };
      setKey(fixed, k, '');
    }
    if (fixed) out = withPath(out, m.path, fixed);
  }
  return out;
}

/** A copy of obj with the value at path replaced (the objects along the path are copied). */
function withPath<T extends Record<string, unknown>>(obj: T, path: readonly string[], value: unknown): T {
  const [head, ...rest] = path;
  if (head === undefined) return obj;
  const copy: Record<string, unknown> = { ...obj };
  const child = copy[head];
  setKey(copy, head, rest.length === 0 ? value : withPath(isPlainObject(child) ? child : {}, rest, value));
  return copy as T;
}

function undecodableBody(type: ResourceType, version: string, detail: string): E.StatusError {
  return E.badRequest(`${type.kind} in version "${version}" cannot be handled as a ${type.kind}: ${detail}`);
}

/** kube's error for a patched object its decoder refuses: no kind and no name, the cause on "patch". */
function undecodablePatch(patched: Record<string, unknown>, detail: string): E.StatusError {
  return E.invalid('', '', '', [
    {
      reason: 'FieldValueInvalid',
      field: 'patch',
      message: `Invalid value: ${JSON.stringify(JSON.stringify(patched))}: ${detail}`,
    },
  ]);
}
