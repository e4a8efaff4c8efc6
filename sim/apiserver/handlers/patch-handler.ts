// PATCH: JSON patch, JSON merge patch, strategic merge patch (built-in kinds only; 415 for custom
// resources, as kube-apiserver answers) and apply patch (server-side apply with field ownership, see
// field-management; creates the object when it does not exist). A patch result whose metadata.resourceVersion
// differs from the stored one is a 409 Conflict.
import * as E from '../errors.js';
import { present } from '../encoding.js';
import { mediaType, readBody } from '../http-util.js';
import { cloneJson } from '../json.js';
import { applyJsonPatch, applyMergePatch, applyStrategicMergePatch, PatchError } from '../patch.js';
import { checkValueDepth } from '../json-depth.js';
import {
  applyConfiguration,
  fieldContextFor,
  managerFromRequest,
  type FieldManagerRequest,
} from '../field-management/index.js';
import { isPlainObject } from '../json.js';
import { rfc3339, type Obj, type WriteOpts } from '../object-api.js';
import { boolQueryParam } from '../query-params.js';
import { apiVersionFor } from '../resource-type.js';
import { parseJsonBodyFor, parseYamlBody, reply, withWarnings, writeOptions, type HandlerContext } from './context.js';

export const JsonPatchType = 'application/json-patch+json';
export const MergePatchType = 'application/merge-patch+json';
export const StrategicMergePatchType = 'application/strategic-merge-patch+json';
export const ApplyPatchType = 'application/apply-patch+yaml';

export function acceptedPatchTypes(custom: boolean): string[] {
  return custom
    ? [JsonPatchType, MergePatchType, ApplyPatchType]
    : [JsonPatchType, MergePatchType, StrategicMergePatchType, ApplyPatchType];
}

/**
 * Reads and checks the patch body for the request's content type. With `opts`, the fields a merge patch
 * gives twice in one object are noted there for fieldValidation (a JSON patch is a list of operations).
 */
export async function readPatch(
  ctx: HandlerContext,
  allowed: string[],
  opts?: WriteOpts,
): Promise<{ contentType: string; patch: unknown }> {
  const contentType = mediaType(ctx.req.headers['content-type']);
  if (!allowed.includes(contentType)) throw E.unsupportedMediaType(contentType, allowed);
  const buf = await readBody(ctx.req, ctx.maxBodyBytes);
  if (contentType === ApplyPatchType) return { contentType, patch: parseYamlBody(buf) };
  return { contentType, patch: parseJsonBodyFor(buf, contentType === JsonPatchType ? undefined : opts) };
}

/**
 * Applies a patch of the given type to a copy of target; patch-library errors become Status errors. The
 * result is held to the body nesting limit: a patch within it can still deepen an object past it
 * (a JSON patch adds its value at the end of a path that may already be deep).
 */
export function applyPatchOfType(contentType: string, target: unknown, patch: unknown, kind: string): unknown {
  const result = patchedCopy(contentType, target, patch, kind);
  checkValueDepth(result);
  return result;
}

function patchedCopy(contentType: string, target: unknown, patch: unknown, kind: string): unknown {
  try {
    switch (contentType) {
      case JsonPatchType:
        return applyJsonPatch(cloneJson(target), patch);
      case StrategicMergePatchType:
        return applyStrategicMergePatch(cloneJson(target), patch, kind);
      default:
        return applyMergePatch(cloneJson(target), patch);
    }
  } catch (err) {
    if (err instanceof PatchError) {
      const reason = err.code === 409 ? 'Conflict' : err.code === 422 ? 'Invalid' : 'BadRequest';
      throw new E.StatusError(err.code, reason, err.message);
    }
    throw err;
  }
}

export async function handlePatch(ctx: HandlerContext): Promise<void> {
  const { type, version } = ctx;
  const sub = ctx.subresource;
  if (sub !== undefined && sub !== 'status') throw E.methodNotAllowed();
  const opts = { ...writeOptions(ctx.query), patched: true };
  const { contentType, patch } = await readPatch(ctx, acceptedPatchTypes(type.custom), opts);
  const name = ctx.name ?? '';
  if (contentType === ApplyPatchType) {
    await handleApply(ctx, opts, patch, name);
    return;
  }
  if (ctx.query.has('force')) {
    throw E.invalid('PatchOptions', 'meta.k8s.io', '', [
      { reason: 'FieldValueForbidden', message: 'Forbidden: may not be specified for non-apply patch', field: 'force' },
    ]);
  }
  opts.fieldManager = {
    manager: managerFromRequest(ctx.query.get('fieldManager'), ctx.req.headers['user-agent'], 'PatchOptions'),
    operation: 'Update',
    ...(sub ? { subresource: sub } : {}),
  };
  // Read and patched again on every attempt: a retry after a concurrent write patches the new object.
  const read = () => {
    const existing = ctx.api.get(type, ctx.namespace, name);
    const patched = applyPatchOfType(contentType, present(type, version, existing), patch, type.kind);
    return { existing, incoming: ctx.api.checkPatched(type, existing, patched) };
  };
  const result = await withWarnings(ctx, opts, () =>
    ctx.writes.update({ type, version, namespace: ctx.namespace, name, subresource: sub, opts, read }),
  );
  await reply(ctx, 200, present(type, version, result));
}

/**
 * Server-side apply: the configuration merged over the live object with field ownership (conflicts are
 * 409s unless force=true); creates the object when it does not exist.
 */
async function handleApply(ctx: HandlerContext, opts: WriteOpts, patch: unknown, name: string): Promise<void> {
  const { type, version } = ctx;
  const sub = ctx.subresource === 'status' ? 'status' : undefined;
  const fieldManager = ctx.query.get('fieldManager');
  if (!fieldManager) {
    throw E.invalid('PatchOptions', 'meta.k8s.io', '', [
      { reason: 'FieldValueRequired', message: 'Required value: is required for apply patch', field: 'fieldManager' },
    ]);
  }
  if (!isPlainObject(patch)) throw E.badRequest('error decoding YAML: the applied configuration is not an object');
  const expected = apiVersionFor(type.group, version);
  if (patch.apiVersion !== expected) {
    throw E.badRequest(
      `Incorrect version specified in apply patch. Specified patch version: ${typeof patch.apiVersion === 'string' ? patch.apiVersion : ''}, expected: ${expected}`,
    );
  }
  const req: FieldManagerRequest = {
    manager: managerFromRequest(fieldManager, undefined, 'PatchOptions'),
    operation: 'Apply',
    force: boolQueryParam(ctx.query, 'force') ?? false,
    ...(sub ? { subresource: sub } : {}),
  };
  opts.fieldManager = req;
  const config = knownConfiguration(ctx, patch, opts);
  const fields = () => fieldContextFor(type, version, rfc3339(ctx.now()));
  if (!ctx.api.find(type, ctx.namespace, name)) {
    const meta = isPlainObject(config.metadata) ? config.metadata : {};
    if (typeof meta.name === 'string' && meta.name !== '' && meta.name !== name) {
      throw E.badRequest(`the name of the object (${meta.name}) does not match the name on the URL (${name})`);
    }
    const body = applyConfiguration(req, undefined, { ...config, metadata: { ...meta, name } }, fields());
    const created = await withWarnings(ctx, opts, () =>
      ctx.writes.create(type, version, ctx.namespace, body, opts, fieldManager),
    );
    await reply(ctx, 201, present(type, version, created));
    return;
  }
  const read = () => {
    const existing = ctx.api.get(type, ctx.namespace, name);
    const applied = applyConfiguration(req, present(type, version, existing) as Obj, config, fields());
    checkValueDepth(applied);
    return { existing, incoming: ctx.api.checkPatched(type, existing, applied) };
  };
  const result = await withWarnings(ctx, opts, () =>
    ctx.writes.update({ type, version, namespace: ctx.namespace, name, subresource: sub, opts, read }),
  );
  await reply(ctx, 200, present(type, version, result));
}

/**
 * An apply configuration decoded as a request body is, before anything else looks at it: its unknown
 * fields reported per fieldValidation (so Strict refuses them before any conflict or webhook) and left out
 * of what is applied and owned.
 */
function knownConfiguration(
  ctx: HandlerContext,
  config: Record<string, unknown>,
  opts: WriteOpts,
): Record<string, unknown> {
  const metadata = isPlainObject(config.metadata) ? config.metadata : {};
  const { metadata: known, ...rest } = ctx.api.decodeKnown(ctx.type, ctx.version, { ...config, metadata }, opts, false);
  if (config.metadata === undefined) return rest;
  return { ...rest, metadata: isPlainObject(config.metadata) ? known : config.metadata };
}
