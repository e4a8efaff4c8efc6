// PATCH: JSON patch, JSON merge patch, strategic merge patch (built-in kinds only; 415 for custom
// resources, as kube-apiserver answers) and apply patch (the full intent merged over the stored
// object; creates the object when it does not exist). A patch result whose metadata.resourceVersion
// differs from the stored one is a 409 Conflict.
import * as E from '../errors.js';
import { present } from '../encoding.js';
import { mediaType, parseJsonBody, readBody } from '../http-util.js';
import { cloneJson } from '../json.js';
import { applyJsonPatch, applyMergePatch, applyStrategicMergePatch, PatchError } from '../patch.js';
import { checkValueDepth } from '../json-depth.js';
import { parseYamlBody, reply, withWarnings, writeOptions, type HandlerContext } from './context.js';

export const JsonPatchType = 'application/json-patch+json';
export const MergePatchType = 'application/merge-patch+json';
export const StrategicMergePatchType = 'application/strategic-merge-patch+json';
export const ApplyPatchType = 'application/apply-patch+yaml';

export function acceptedPatchTypes(custom: boolean): string[] {
  return custom ? [JsonPatchType, MergePatchType, ApplyPatchType] : [JsonPatchType, MergePatchType, StrategicMergePatchType, ApplyPatchType];
}

/** Reads and checks the patch body for the request's content type. */
export async function readPatch(ctx: HandlerContext, allowed: string[]): Promise<{ contentType: string; patch: unknown }> {
  const contentType = mediaType(ctx.req.headers['content-type']);
  if (!allowed.includes(contentType)) throw E.unsupportedMediaType(contentType, allowed);
  const buf = await readBody(ctx.req, ctx.maxBodyBytes);
  if (contentType === ApplyPatchType) return { contentType, patch: parseYamlBody(buf) };
  return { contentType, patch: parseJsonBody(buf) };
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
  const { contentType, patch } = await readPatch(ctx, acceptedPatchTypes(type.custom));
  const name = ctx.name ?? '';
  if (contentType === ApplyPatchType) {
    if (!ctx.query.get('fieldManager')) {
      throw E.invalid('PatchOptions', 'meta.k8s.io', '', [{ reason: 'FieldValueRequired', message: 'Required value: is required for apply patch', field: 'fieldManager' }]);
    }
    const existing = ctx.api.find(type, ctx.namespace, name);
    if (!existing) {
      const intent = patch as { metadata?: { name?: string } } | null;
      if (intent && typeof intent === 'object' && intent.metadata && intent.metadata.name && intent.metadata.name !== name) {
        throw E.badRequest(`the name of the object (${intent.metadata.name}) does not match the name on the URL (${name})`);
      }
      const body = { ...(patch as object), metadata: { ...(intent?.metadata ?? {}), name } };
      const created = await withWarnings(ctx, opts, () => ctx.writes.create(type, version, ctx.namespace, body, opts, ctx.query.get('fieldManager') ?? undefined));
      await reply(ctx, 201, present(type, version, created));
      return;
    }
  }
  // Read and patched again on every attempt: a retry after a concurrent write patches the new object.
  const read = () => {
    const existing = ctx.api.get(type, ctx.namespace, name);
    const patched = applyPatchOfType(contentType, present(type, version, existing), patch, type.kind);
    return { existing, incoming: ctx.api.checkPatched(type, existing, patched) };
  };
  const result = await withWarnings(ctx, opts, () => ctx.writes.update({ type, version, namespace: ctx.namespace, name, subresource: sub, opts, read }));
  await reply(ctx, 200, present(type, version, result));
}
