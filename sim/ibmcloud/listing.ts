// VPC collection paging: `limit` 1–100 (default 50) and an opaque `start` token naming the first item of the
// next page by its sequence number, so inserts and deletes between pages neither repeat nor skip survivors.
import { badParameter } from './api-error.js';

export const DEFAULT_LIMIT = 50;
export const MAX_LIMIT = 100;

function encodeStart(collection: string, seq: number): string {
  return Buffer.from(`${collection}:${seq}`).toString('base64url');
}

function decodeStart(collection: string, token: string): number {
  const [c, s] = Buffer.from(token, 'base64url').toString('utf8').split(':');
  const seq = Number(s);
  if (c !== collection || !Number.isInteger(seq) || seq < 0) {
    throw badParameter('start', `The value of start is not a valid pagination token for ${collection}: ${token}`);
  }
  return seq;
}

export function readLimit(query: URLSearchParams): number {
  const raw = query.get('limit');
  if (raw === null) return DEFAULT_LIMIT;
  const n = Number(raw);
  if (!/^\d+$/.test(raw) || n < 1 || n > MAX_LIMIT) {
    throw badParameter('limit', `The value of limit must be an integer from 1 to ${MAX_LIMIT}, got "${raw}".`);
  }
  return n;
}

/**
 * One page of `items` (already filtered) as a VPC collection body: first, limit, next (when more remain),
 * total_count and the items under `key`. `url` is the collection URL with the caller's filters.
 */
export function page<T extends { seq: number }, R>(
  items: readonly T[],
  query: URLSearchParams,
  opts: { key: string; url: string; render: (item: T) => R },
): Record<string, unknown> {
  const limit = readLimit(query);
  const startRaw = query.get('start');
  const from = startRaw === null || startRaw === '' ? 0 : decodeStart(opts.key, startRaw);
  const sorted = [...items].sort((a, b) => a.seq - b.seq);
  const rest = sorted.filter((i) => i.seq >= from);
  const pageItems = rest.slice(0, limit);
  const after = rest[limit];

  const link = (start?: string) => {
    const u = new URL(opts.url);
    for (const [k, v] of query)
      if (k !== 'start' && k !== 'limit' && k !== 'version' && k !== 'generation') u.searchParams.set(k, v);
    u.searchParams.set('limit', String(limit));
    if (start !== undefined) u.searchParams.set('start', start);
    return u.toString();
  };
  return {
    first: { href: link() },
    limit,
    ...(after ? { next: { href: link(encodeStart(opts.key, after.seq)) } } : {}),
    total_count: sorted.length,
    [opts.key]: pageItems.map(opts.render),
  };
}
