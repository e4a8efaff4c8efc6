// POST (create) and PUT (update of an object, its /status, or a namespace's /finalize).
import * as E from '../errors.js';
import { present } from '../encoding.js';
import { managerFromRequest } from '../field-management/index.js';
import { cloneJson, isPlainObject } from '../json.js';
import { readObjectBody, reply, withWarnings, writeOptions, type HandlerContext } from './context.js';

export async function handleCreate(ctx: HandlerContext): Promise<void> {
  const opts = writeOptions(ctx.query);
  opts.fieldManager = {
    manager: managerFromRequest(ctx.query.get('fieldManager'), ctx.req.headers['user-agent'], 'CreateOptions'),
    operation: 'Update',
  };
  const body = await readObjectBody(ctx, opts);
  if (ctx.type.namespaced && !ctx.namespace) throw E.notFoundPath();
  const created = await withWarnings(ctx, opts, () =>
    ctx.writes.create(ctx.type, ctx.version, ctx.namespace, body, opts, ctx.query.get('fieldManager') ?? undefined),
  );
  await reply(ctx, 201, present(ctx.type, ctx.version, created));
}

export async function handleUpdate(ctx: HandlerContext): Promise<void> {
  const opts = writeOptions(ctx.query);
  const body = await readObjectBody(ctx, opts);
  const sub = ctx.subresource;
  if (sub === 'finalize') {
    await reply(ctx, 200, present(ctx.type, ctx.version, finalizeNamespace(ctx, body, opts.dryRun ?? false)));
    return;
  }
  if (sub !== undefined && sub !== 'status') throw E.methodNotAllowed();
  opts.fieldManager = {
    manager: managerFromRequest(ctx.query.get('fieldManager'), ctx.req.headers['user-agent'], 'UpdateOptions'),
    operation: 'Update',
    ...(sub ? { subresource: sub } : {}),
  };
  const name = ctx.name ?? '';
  const updated = await withWarnings(ctx, opts, () =>
    ctx.writes.update({
      type: ctx.type,
      version: ctx.version,
      namespace: ctx.namespace,
      name,
      subresource: sub,
      opts,
      read: () => ctx.api.checkUpdate(ctx.type, ctx.version, ctx.namespace, name, body),
    }),
  );
  await reply(ctx, 200, present(ctx.type, ctx.version, updated));
}

/** PUT namespaces/<name>/finalize: only spec.finalizers changes; the namespace goes when none remain. */
function finalizeNamespace(ctx: HandlerContext, body: unknown, dryRun: boolean) {
  const existing = ctx.api.get(ctx.type, '', ctx.name ?? '');
  const spec = isPlainObject(body) && isPlainObject(body.spec) ? body.spec : {};
  const next = cloneJson(existing);
  next.spec = {
    ...(next.spec as object | undefined),
    finalizers: Array.isArray(spec.finalizers) ? spec.finalizers : [],
  };
  return ctx.api.writePatched(ctx.type, ctx.version, existing, next, undefined, { dryRun });
}
