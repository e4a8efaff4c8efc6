// POST (create) and PUT (update of an object, its /status, or a namespace's /finalize).
import * as E from '../errors.js';
import { present } from '../encoding.js';
import { cloneJson, isPlainObject } from '../json.js';
import { readObjectBody, reply, setWarnings, writeOptions, type HandlerContext } from './context.js';

export async function handleCreate(ctx: HandlerContext): Promise<void> {
  const opts = writeOptions(ctx.query);
  const body = await readObjectBody(ctx);
  if (ctx.type.namespaced && !ctx.namespace) throw E.notFoundPath();
  const created = ctx.api.create(ctx.type, ctx.version, ctx.namespace, body, opts);
  setWarnings(ctx, opts);
  await reply(ctx, 201, present(ctx.type, ctx.version, created));
}

export async function handleUpdate(ctx: HandlerContext): Promise<void> {
  const opts = writeOptions(ctx.query);
  const body = await readObjectBody(ctx);
  const sub = ctx.subresource;
  if (sub === 'finalize') {
    await reply(ctx, 200, present(ctx.type, ctx.version, finalizeNamespace(ctx, body, opts.dryRun ?? false)));
    return;
  }
  if (sub !== undefined && sub !== 'status') throw E.methodNotAllowed();
  const updated = ctx.api.update(ctx.type, ctx.version, ctx.namespace, ctx.name ?? '', body, sub, opts);
  setWarnings(ctx, opts);
  await reply(ctx, 200, present(ctx.type, ctx.version, updated));
}

/** PUT namespaces/<name>/finalize: only spec.finalizers changes; the namespace goes when none remain. */
function finalizeNamespace(ctx: HandlerContext, body: unknown, dryRun: boolean) {
  const existing = ctx.api.get(ctx.type, '', ctx.name ?? '');
  const spec = isPlainObject(body) && isPlainObject(body.spec) ? body.spec : {};
  const next = cloneJson(existing);
  next.spec = { ...(next.spec as object | undefined), finalizers: Array.isArray(spec.finalizers) ? spec.finalizers : [] };
  return ctx.api.writePatched(ctx.type, ctx.version, existing, next, undefined, { dryRun });
}
