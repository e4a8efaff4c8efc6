// Strategic merge patch (application/strategic-merge-patch+json) for the built-in kinds we serve. Like a JSON
// merge patch, except that the lists Kubernetes tags `patchStrategy:"merge"` are merged element by element
// (by their `patchMergeKey`, or as a set for lists of scalars) instead of replaced, and that the patch may
// carry directives: `$patch: replace|delete|merge`, `$retainKeys`, `$deleteFromPrimitiveList/<field>` and
// `$setElementOrder/<field>` (the elements it lists come first, in its order; the others follow in the order
// they had). Without an order, a merged list keeps the server's order and appends new elements.
import { PatchError } from './patch-error.js';
import { cloneJson, isJsonObject, jsonEqual, setKey } from './json-value.js';
import type { JsonRecord } from './json-value.js';

/** The patch strategy of one field, mirroring the Go struct tags of the Kubernetes API types. */
export interface FieldStrategy {
  /** A list of objects merged by this key (patchStrategy:"merge", patchMergeKey). */
  mergeKey?: string;
  /** A list of scalars merged as a set (patchStrategy:"merge" without a key). */
  mergeSet?: boolean;
  /** For objects and for the elements of object lists: the strategies of their fields. */
  fields?: Record<string, FieldStrategy>;
}

const byName = (fields?: Record<string, FieldStrategy>): FieldStrategy => ({ mergeKey: 'name', fields });

const objectMeta: FieldStrategy = {
  fields: {
    ownerReferences: { mergeKey: 'uid' },
    finalizers: { mergeSet: true },
  },
};

const conditionsByType: FieldStrategy = { mergeKey: 'type' };

const container: Record<string, FieldStrategy> = {
  ports: { mergeKey: 'containerPort' },
  env: byName(),
  volumeMounts: { mergeKey: 'mountPath' },
  volumeDevices: { mergeKey: 'devicePath' },
};

const podSpec: FieldStrategy = {
  fields: {
    volumes: byName(),
    initContainers: byName(container),
    containers: byName(container),
    ephemeralContainers: byName(container),
    imagePullSecrets: byName(),
    hostAliases: { mergeKey: 'ip' },
    topologySpreadConstraints: { mergeKey: 'topologyKey' },
    resourceClaims: byName(),
    schedulingGates: byName(),
  },
};

function kind(fields: Record<string, FieldStrategy>): FieldStrategy {
  return { fields: { metadata: objectMeta, ...fields } };
}

const strategies: Record<string, FieldStrategy> = {
  Node: kind({
    spec: { fields: { podCIDRs: { mergeSet: true } } },
    status: { fields: { conditions: conditionsByType, addresses: { mergeKey: 'type' } } },
  }),
  Pod: kind({
    spec: podSpec,
    status: {
      fields: {
        conditions: conditionsByType,
        podIPs: { mergeKey: 'ip' },
        hostIPs: { mergeKey: 'ip' },
        resourceClaimStatuses: byName(),
      },
    },
  }),
  Namespace: kind({ status: { fields: { conditions: conditionsByType } } }),
  PodDisruptionBudget: kind({ status: { fields: { conditions: conditionsByType } } }),
  Service: kind({ spec: { fields: { ports: { mergeKey: 'port' } } } }),
};

// Every other kind (Secret, ConfigMap, Event, Lease, ...) has no merged lists beyond its metadata's.
const defaultStrategy = kind({});

/** The merge strategies of built-in `kind` (server-side apply merges the same lists by the same keys). */
export function patchStrategyOf(kind: string): FieldStrategy {
  return strategies[kind] ?? defaultStrategy;
}

const deleteFromPrimitiveList = '$deleteFromPrimitiveList/';
const setElementOrder = '$setElementOrder/';

function isDirectiveKey(key: string): boolean {
  return (
    key === '$patch' ||
    key === '$retainKeys' ||
    key.startsWith(deleteFromPrimitiveList) ||
    key.startsWith(setElementOrder)
  );
}

function directiveOf(patch: JsonRecord): 'replace' | 'delete' | 'merge' {
  const d = patch.$patch;
  if (d === undefined || d === 'merge') return 'merge';
  if (d === 'replace' || d === 'delete') return d;
  throw new PatchError(
    400,
    `unknown patch type: ${JSON.stringify(d)} in map: $patch must be "replace", "delete" or "merge"`,
  );
}

function withoutDirectives(patch: JsonRecord): JsonRecord {
  const out: JsonRecord = {};
  for (const [k, v] of Object.entries(patch)) if (!isDirectiveKey(k)) setKey(out, k, cloneJson(v));
  return out;
}

function retainKeysOf(patch: JsonRecord): string[] | undefined {
  const keys = patch.$retainKeys;
  if (keys === undefined) return undefined;
  if (!Array.isArray(keys) || !keys.every((k): k is string => typeof k === 'string')) {
    throw new PatchError(400, 'invalid patch: $retainKeys must be a list of field names');
  }
  for (const k of Object.keys(patch)) {
    if (!isDirectiveKey(k) && !keys.includes(k)) {
      throw new PatchError(422, `invalid patch: field ${JSON.stringify(k)} is set but not listed in $retainKeys`);
    }
  }
  return keys;
}

function removePrimitives(list: unknown, remove: unknown, field: string): unknown {
  if (!Array.isArray(remove))
    throw new PatchError(400, `invalid patch: ${deleteFromPrimitiveList}${field} must be a list`);
  if (!Array.isArray(list)) return list;
  return list.filter((v) => !remove.some((r) => jsonEqual(r, v)));
}

function reorder(list: unknown, order: unknown, strategy: FieldStrategy | undefined, field: string): unknown {
  if (!Array.isArray(order)) throw new PatchError(400, `invalid patch: ${setElementOrder}${field} must be a list`);
  if (!Array.isArray(list)) return list;
  const mergeKey = strategy?.mergeKey;
  const identity = (v: unknown) => (mergeKey !== undefined && isJsonObject(v) ? v[mergeKey] : v);
  const wanted = order.map(identity);
  const listed: unknown[] = [];
  for (const w of wanted) {
    const found = list.find((item) => jsonEqual(identity(item), w));
    if (found !== undefined && !listed.includes(found)) listed.push(found);
  }
  return [...listed, ...list.filter((item) => !listed.includes(item))];
}

/** Merges `patch` into `original`; undefined means the map itself is deleted ($patch: delete). */
function mergeMap(
  original: JsonRecord,
  patch: JsonRecord,
  strategy: FieldStrategy | undefined,
): JsonRecord | undefined {
  const directive = directiveOf(patch);
  if (directive === 'delete') return undefined;
  if (directive === 'replace') return mergeMap({}, withoutDirectives(patch), strategy);

  const result: JsonRecord = cloneJson(original);
  const retain = retainKeysOf(patch);
  if (retain !== undefined) for (const k of Object.keys(result)) if (!retain.includes(k)) delete result[k];

  for (const [key, value] of Object.entries(patch)) {
    if (key.startsWith(deleteFromPrimitiveList)) {
      const field = key.slice(deleteFromPrimitiveList.length);
      if (Object.hasOwn(result, field)) setKey(result, field, removePrimitives(result[field], value, field));
    }
  }
  for (const [key, value] of Object.entries(patch)) {
    if (isDirectiveKey(key)) continue;
    if (value === null) {
      delete result[key];
      continue;
    }
    const fieldStrategy = strategy?.fields?.[key];
    const current = Object.hasOwn(result, key) ? result[key] : undefined;
    const merged = mergeValue(current, value, fieldStrategy, key);
    if (merged === undefined) delete result[key];
    else setKey(result, key, merged);
  }
  for (const [key, order] of Object.entries(patch)) {
    if (!key.startsWith(setElementOrder)) continue;
    const field = key.slice(setElementOrder.length);
    if (Object.hasOwn(result, field))
      setKey(result, field, reorder(result[field], order, strategy?.fields?.[field], field));
  }
  return result;
}

function mergeValue(current: unknown, value: unknown, strategy: FieldStrategy | undefined, key: string): unknown {
  if (isJsonObject(value)) return mergeMap(isJsonObject(current) ? current : {}, value, strategy);
  if (Array.isArray(value)) {
    const currentList = Array.isArray(current) ? current : [];
    if (strategy?.mergeKey !== undefined) return mergeObjectList(currentList, value, strategy.mergeKey, strategy, key);
    if (strategy?.mergeSet === true) return mergeSet(currentList, value);
    return cloneJson(value);
  }
  return value;
}

function mergeSet(current: unknown[], patch: unknown[]): unknown[] {
  const result = cloneJson(current);
  for (const v of patch) if (!result.some((r) => jsonEqual(r, v))) result.push(cloneJson(v));
  return result;
}

function mergeObjectList(
  current: unknown[],
  patch: unknown[],
  mergeKey: string,
  strategy: FieldStrategy,
  field: string,
): unknown[] {
  for (const p of patch) {
    if (!isJsonObject(p))
      throw new PatchError(
        400,
        `invalid patch: ${field} is merged by ${JSON.stringify(mergeKey)}, so its elements must be objects`,
      );
  }
  const elements = patch as JsonRecord[];
  const replaceAll = elements.some((p) => p.$patch === 'replace' && Object.keys(p).length === 1);
  const itemStrategy: FieldStrategy = { fields: strategy.fields };
  let result: unknown[] = replaceAll ? [] : cloneJson(current);

  for (const p of elements) {
    if (replaceAll && p.$patch === 'replace' && Object.keys(p).length === 1) continue;
    const directive = directiveOf(p);
    const hasKey = Object.hasOwn(p, mergeKey);
    if (directive === 'delete') {
      result = result.filter(
        (r) =>
          !(isJsonObject(r) && (hasKey ? jsonEqual(r[mergeKey], p[mergeKey]) : jsonEqual(r, withoutDirectives(p)))),
      );
      continue;
    }
    if (!hasKey) {
      throw new PatchError(
        422,
        `map: ${JSON.stringify(p)} in ${field} does not contain declared merge key: ${mergeKey}`,
      );
    }
    const at = result.findIndex((r) => isJsonObject(r) && jsonEqual(r[mergeKey], p[mergeKey]));
    const base = at >= 0 ? result[at] : undefined;
    const merged = mergeMap(isJsonObject(base) ? base : {}, p, itemStrategy);
    if (at >= 0) {
      if (merged === undefined) result.splice(at, 1);
      else result[at] = merged;
    } else if (merged !== undefined) {
      result.push(merged);
    }
  }
  return result;
}

/**
 * Applies a strategic merge patch to a copy of `target`, using the merge strategies of built-in `kind`
 * (a kind we do not know is patched with ObjectMeta's strategies only). Throws PatchError.
 */
export function applyStrategicMergePatch(target: unknown, patch: unknown, kind: string): unknown {
  if (!isJsonObject(patch)) throw new PatchError(400, 'a strategic merge patch must be a JSON object');
  const strategy = strategies[kind] ?? defaultStrategy;
  return mergeMap(isJsonObject(target) ? target : {}, patch, strategy) ?? {};
}
