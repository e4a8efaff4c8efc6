// maxResults / pageToken / nextPageToken as GCE pages its lists: opaque tokens that only fit the listing they
// came from, and maxResults in [0, 500] (0 or absent = 500).
import { invalidField } from './api-error.js';

export const MAX_PAGE_SIZE = 500;

export function readMaxResults(raw: string | null): number {
  if (raw === null || raw === '') return MAX_PAGE_SIZE;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 0 || n > MAX_PAGE_SIZE) {
    throw invalidField('maxResults', raw, `Must be an integer between 0 and ${MAX_PAGE_SIZE}.`);
  }
  return n === 0 ? MAX_PAGE_SIZE : n;
}

function encodeToken(listing: string, offset: number): string {
  return Buffer.from(JSON.stringify({ l: listing, o: offset })).toString('base64url');
}

function decodeToken(listing: string, token: string | null): number {
  if (token === null || token === '') return 0;
  try {
    const v = JSON.parse(Buffer.from(token, 'base64url').toString('utf8')) as { l?: unknown; o?: unknown };
    if (v.l === listing && typeof v.o === 'number' && Number.isInteger(v.o) && v.o >= 0) return v.o;
  } catch {
    // reported below
  }
  throw invalidField('pageToken', token, 'The page token is invalid for this listing.');
}

/** One page by offset; `listing` identifies the query (path + filter) the token belongs to. */
export function page<T>(
  all: readonly T[],
  listing: string,
  query: URLSearchParams,
): { items: T[]; nextPageToken?: string } {
  const size = readMaxResults(query.get('maxResults'));
  const start = decodeToken(listing, query.get('pageToken'));
  const items = all.slice(start, start + size);
  const end = start + items.length;
  return end < all.length ? { items, nextPageToken: encodeToken(listing, end) } : { items };
}
