// GET of one object and of collections (label/field selectors, limit/continue, server-side printing).
import type { KubeObject } from '../../../lib/apis/meta.js';
import * as E from '../errors.js';
import { boolQueryParam } from '../query-params.js';
import { columnsFor, includeObjectParam, jsonEncoder, present, tableEncoder, wantsTable } from '../encoding.js';
import { apiVersionFor, storageKeyOf } from '../resource-type.js';
import { buildFilter } from '../selectors.js';
import { toTable } from '../table.js';
import { reply, replyText, type HandlerContext } from './context.js';
import { serveWatch } from './watch.js';

export async function handleGet(ctx: HandlerContext): Promise<void> {
  const obj = ctx.api.get(ctx.type, ctx.namespace, ctx.name ?? '');
  if (wantsTable(ctx.req)) {
    await reply(
      ctx,
      200,
      toTable([present(ctx.type, ctx.version, obj)], columnsFor(ctx.type, ctx.version), {
        now: ctx.now(),
        includeObject: includeObjectParam(ctx.query.get('includeObject')),
        listMeta: { resourceVersion: obj.metadata.resourceVersion },
      }),
    );
    return;
  }
  await reply(ctx, 200, present(ctx.type, ctx.version, obj));
}

interface ContinueToken {
  rv: number;
  start: string;
}

function encodeContinue(t: ContinueToken): string {
  return Buffer.from(JSON.stringify({ v: 'meta.k8s.io/v1', rv: t.rv, start: t.start })).toString('base64url');
}

function decodeContinue(s: string): ContinueToken {
  try {
    const t = JSON.parse(Buffer.from(s, 'base64url').toString('utf8')) as Partial<ContinueToken>;
    if (typeof t.rv === 'number' && typeof t.start === 'string') return { rv: t.rv, start: t.start };
  } catch {
    // fall through to the 400 below
  }
  throw E.badRequest('continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)');
}

const keyOf = (o: KubeObject) => `${o.metadata.namespace ?? ''}/${o.metadata.name ?? ''}`;

/**
 * Whether `o` comes before the continue token's start in the store's order: by namespace, then by name.
 * Comparing the joined "namespace/name" text instead would misplace namespace "a" against "a-b", since
 * '/' sorts after '-' and '.'. Neither part can hold a '/', so the start splits at its first one.
 */
function startOf(start: string): { ns: string; name: string } {
  const cut = start.indexOf('/');
  return cut < 0 ? { ns: '', name: start } : { ns: start.slice(0, cut), name: start.slice(cut + 1) };
}

function before(o: KubeObject, start: { ns: string; name: string }): boolean {
  const ns = o.metadata.namespace ?? '';
  return ns !== start.ns ? ns < start.ns : (o.metadata.name ?? '') < start.name;
}

/** GET of a collection, or a watch when ?watch is set. */
export async function handleList(ctx: HandlerContext): Promise<void> {
  const { type, query } = ctx;
  if (!type.namespaced && ctx.namespace) throw E.notFoundPath();
  let filter = buildFilter(type, query.get('labelSelector'), query.get('fieldSelector'));
  const namespace = type.namespaced && ctx.namespace ? ctx.namespace : undefined;
  const table = wantsTable(ctx.req);
  if (boolQueryParam(query, 'watch') === true) {
    if (ctx.name !== undefined) {
      const inner = filter;
      const name = ctx.name;
      filter = inner ? (o) => o.metadata.name === name && inner(o) : (o) => o.metadata.name === name;
    }
    const encoder = table
      ? tableEncoder(type, ctx.version, includeObjectParam(query.get('includeObject')), ctx.now)
      : jsonEncoder(type, ctx.version);
    serveWatch(ctx.req, ctx.res, { type, version: ctx.version, namespace, filter, encoder, query }, ctx.watch);
    return;
  }
  const store = ctx.api.store;
  const all = store.list(storageKeyOf(type), namespace);
  let items = filter ? all.filter(filter) : all;
  const cont = query.get('continue');
  let listRv = store.currentRv();
  if (cont) {
    const token = decodeContinue(cont);
    listRv = token.rv;
    const start = startOf(token.start);
    let lo = 0;
    let hi = items.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const item = items[mid];
      if (item && before(item, start)) lo = mid + 1;
      else hi = mid;
    }
    items = items.slice(lo);
  }
  const limitParam = query.get('limit');
  const limit = limitParam && /^\d+$/.test(limitParam) ? Number(limitParam) : 0;
  const metadata: { resourceVersion: string; continue?: string; remainingItemCount?: number } = {
    resourceVersion: String(listRv),
  };
  if (limit > 0 && items.length > limit) {
    const next = items[limit];
    const remaining = items.length - limit;
    items = items.slice(0, limit);
    if (next) metadata.continue = encodeContinue({ rv: listRv, start: keyOf(next) });
    if (!filter) metadata.remainingItemCount = remaining;
  }
  if (table) {
    await reply(
      ctx,
      200,
      toTable(
        items.map((o) => present(type, ctx.version, o)),
        columnsFor(type, ctx.version),
        {
          now: ctx.now(),
          includeObject: includeObjectParam(query.get('includeObject')),
          listMeta: metadata,
        },
      ),
    );
    return;
  }
  // Each stored object is serialised as is; no copy of the collection is made.
  const apiVersion = apiVersionFor(type.group, ctx.version);
  const parts = items.map((o) => JSON.stringify(present(type, ctx.version, o)));
  const head = JSON.stringify({ kind: type.listKind, apiVersion, metadata });
  await replyText(ctx, 200, `${head.slice(0, -1)},"items":[${parts.join(',')}]}`);
}
