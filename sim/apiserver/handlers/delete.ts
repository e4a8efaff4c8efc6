// DELETE of one object (finalizers, propagation policy, preconditions, dryRun) and of a collection.
import type { KubeObject } from '../../../lib/apis/meta.js';
import * as E from '../errors.js';
import { boolQueryParam } from '../query-params.js';
import { present } from '../encoding.js';
import { readBody } from '../http-util.js';
import { isPlainObject } from '../json.js';
import { checkJsonTextDepth } from '../json-depth.js';
import type { DeleteOpts, PropagationPolicy } from '../object-api.js';
import { apiVersionFor, storageKeyOf } from '../resource-type.js';
import { buildFilter } from '../selectors.js';
import { isDryRun, reply, setWarnings, withWarnings, type HandlerContext } from './context.js';

const policies = ['Background', 'Foreground', 'Orphan'];

/** DeleteOptions from the body (if any) and the query, as kube merges them. */
export async function readDeleteOptions(ctx: HandlerContext): Promise<DeleteOpts> {
  const buf = await readBody(ctx.req, ctx.maxBodyBytes);
  let body: Record<string, unknown> = {};
  if (buf.length > 0) {
    const text = buf.toString('utf8');
    checkJsonTextDepth(text);
    try {
      const parsed: unknown = JSON.parse(text);
      if (isPlainObject(parsed)) body = parsed;
    } catch (err) {
      throw E.badRequest(`error decoding DeleteOptions: ${(err as Error).message}`);
    }
  }
  const q = ctx.query;
  let policy = (q.get('propagationPolicy') ?? body.propagationPolicy) as string | undefined;
  const orphan =
    boolQueryParam(q, 'orphanDependents') ??
    (typeof body.orphanDependents === 'boolean' ? body.orphanDependents : undefined);
  if (policy === undefined && orphan !== undefined) policy = orphan ? 'Orphan' : 'Background';
  if (policy !== undefined && !policies.includes(policy)) {
    throw E.invalid('DeleteOptions', 'meta.k8s.io', '', [
      {
        reason: 'FieldValueNotSupported',
        message: `Unsupported value: "${policy}": supported values: "Foreground", "Background", "Orphan"`,
        field: 'propagationPolicy',
      },
    ]);
  }
  const dryRun = isDryRun(q) || (Array.isArray(body.dryRun) && body.dryRun.includes('All'));
  const pre = isPlainObject(body.preconditions) ? body.preconditions : undefined;
  return {
    dryRun,
    warnings: [],
    propagationPolicy: policy as PropagationPolicy | undefined,
    preconditions: pre
      ? { uid: pre.uid as string | undefined, resourceVersion: pre.resourceVersion as string | undefined }
      : undefined,
  };
}

function successStatus(ctx: HandlerContext, obj: KubeObject): Record<string, unknown> {
  return {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Success',
    details: {
      name: obj.metadata.name,
      group: ctx.type.group || undefined,
      kind: ctx.type.plural,
      uid: obj.metadata.uid,
    },
  };
}

export async function handleDelete(ctx: HandlerContext): Promise<void> {
  if (ctx.subresource !== undefined) throw E.methodNotAllowed();
  const opts = await readDeleteOptions(ctx);
  const { object, removed } = await withWarnings(ctx, opts, () =>
    ctx.writes.delete(ctx.type, ctx.version, ctx.namespace, ctx.name ?? '', opts),
  );
  if (!removed || ctx.type.returnDeletedObject) await reply(ctx, 200, present(ctx.type, ctx.version, object));
  else await reply(ctx, 200, successStatus(ctx, object));
}

export async function handleDeleteCollection(ctx: HandlerContext): Promise<void> {
  const opts = await readDeleteOptions(ctx);
  opts.warnings = [];
  const filter = buildFilter(ctx.type, ctx.query.get('labelSelector'), ctx.query.get('fieldSelector'));
  const namespace = ctx.type.namespaced && ctx.namespace ? ctx.namespace : undefined;
  const targets = ctx.api.store.list(storageKeyOf(ctx.type), namespace).filter((o) => !filter || filter(o));
  const items: KubeObject[] = [];
  for (const t of targets) {
    try {
      items.push(
        (await ctx.writes.delete(ctx.type, ctx.version, t.metadata.namespace ?? '', t.metadata.name ?? '', opts))
          .object,
      );
    } catch (err) {
      if (!(err instanceof E.StatusError && err.code === 404)) throw err;
    }
  }
  setWarnings(ctx, opts);
  await reply(ctx, 200, {
    kind: ctx.type.listKind,
    apiVersion: apiVersionFor(ctx.type.group, ctx.version),
    metadata: { resourceVersion: String(ctx.api.store.currentRv()) },
    items: items.map((o) => present(ctx.type, ctx.version, o)),
  });
}
