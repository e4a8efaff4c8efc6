// How a request body becomes an object of the request's type, as kube's decoder leaves it before admission:
// apiVersion and kind checked against the URL's (400 otherwise), a create's object placed in the request's
// namespace, string maps checked, and the fields its kind does not have (a custom resource's: those its
// schema prunes) taken out for fieldValidation; a custom resource also gets its schema's defaults.
import * as E from './errors.js';
import { cloneJson } from './json.js';
import { shapeOf, withoutUnknownFields } from './known-fields.js';
import { apiVersionFor, versionInfo, type ResourceType } from './resource-type.js';
import { applyDefaults, pruneNonNullableNullsWithoutDefaults, pruneReporting } from './schema/index.js';
import { checkStringMaps } from './string-maps.js';
import { isObj } from './strategy.js';
import type { Obj, WriteOpts } from './write-options.js';

/** The body as an object of `type` in `version`; a body without metadata is given an empty one. */
export function decodeBody(type: ResourceType, version: string, body: unknown): Obj {
  if (!isObj(body)) {
    if (body !== null && typeof body === 'object' && !Array.isArray(body) && !('metadata' in body)) {
      return decodeBody(type, version, { ...body, metadata: {} });
    }
    throw E.badRequest(`Object '${type.kind}' is not a JSON object with metadata`);
  }
  const expected = apiVersionFor(type.group, version);
  if (body.apiVersion !== undefined && body.apiVersion !== expected) {
    throw E.badRequest(
      `the API version in the data (${String(body.apiVersion)}) does not match the expected API version (${expected})`,
    );
  }
  if (body.kind !== undefined && body.kind !== type.kind) {
    throw E.badRequest(`the kind in the data (${String(body.kind)}) does not match the expected kind (${type.kind})`);
  }
  const obj = cloneJson(body);
  obj.apiVersion = expected;
  obj.kind = type.kind;
  return obj;
}

/**
 * The body of a create, decoded and placed in the request's namespace: what mutating admission sees
 * (no uid yet, and no name when the client asked for a generated one).
 */
export function decodeNewBody(type: ResourceType, version: string, namespace: string, body: unknown): Obj {
  const obj = decodeBody(type, version, body);
  const m = obj.metadata;
  if (type.namespaced) {
    if (m.namespace && namespace && m.namespace !== namespace) {
      throw E.badRequest('the namespace of the provided object does not match the namespace sent on the request');
    }
    m.namespace = namespace || m.namespace;
    if (!m.namespace) throw E.badRequest('the server could not find the requested resource');
  } else {
    delete m.namespace;
  }
  return obj;
}

/**
 * An incoming object as kube's decoder would leave it: string maps checked (400 otherwise) and the fields
 * its kind does not have taken out (ObjectMeta's first, then those a custom resource's schema prunes), their
 * paths returned for fieldValidation (see reportUnknownFields). kube finds them while decoding the request,
 * so before any admission webhook is called.
 */
export function knownFields(
  type: ResourceType,
  version: string,
  incoming: Obj,
  opts: WriteOpts,
): { object: Obj; unknown: string[] } {
  let object = checkStringMaps(type, version, incoming, { patched: opts.patched === true });
  const unknown: string[] = [];
  const shape = shapeOf(type);
  if (shape) {
    const known = withoutUnknownFields(object, shape);
    object = known.value as Obj;
    unknown.push(...known.unknown);
  }
  const schema = type.custom ? versionInfo(type, version)?.schema : undefined;
  if (schema) {
    const pruned = pruneReporting(object, schema);
    if (isObj(pruned.object)) object = pruned.object;
    unknown.push(...pruned.pruned);
    // kube's decoder of a custom resource defaults it as well, so mutating webhooks already see the schema's
    // defaults (and are free to change them); the pruned copy is this request's own to change.
    pruneNonNullableNullsWithoutDefaults(object, schema);
    applyDefaults(object, schema);
  }
  return { object, unknown };
}

/**
 * fieldValidation, as kube applies it while decoding: Strict fails with every duplicate and unknown field in
 * one message, Warn (the default) reports each as a warning, Ignore drops them silently.
 */
export function reportUnknownFields(
  type: ResourceType,
  version: string,
  unknown: readonly string[],
  opts: WriteOpts,
): void {
  const problems = [
    ...(opts.duplicateFields ?? []).map((f) => `duplicate field "${f}"`),
    ...unknown.map((f) => `unknown field "${f}"`),
  ];
  if (problems.length > 0 && opts.fieldValidation === 'Strict') {
    const strict = `strict decoding error: ${problems.join(', ')}`;
    throw E.badRequest(
      opts.patched ? strict : `${type.kind} in version "${version}" cannot be handled as a ${type.kind}: ${strict}`,
    );
  }
  if (opts.fieldValidation !== 'Ignore') opts.warnings?.push(...problems);
}
