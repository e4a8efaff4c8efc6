// Opaque NextToken values: base64url JSON of a position, checked to belong to the same kind of listing.
import { invalidParameterValue } from './api-error.js';

export function encodeToken(kind: string, position: number): string {
  return Buffer.from(JSON.stringify({ k: kind, p: position })).toString('base64url');
}

export function decodeToken(kind: string, token: string | undefined): number | undefined {
  if (token === undefined || token === '') return undefined;
  try {
    const v = JSON.parse(Buffer.from(token, 'base64url').toString('utf8')) as { k?: unknown; p?: unknown };
    if (v.k === kind && typeof v.p === 'number' && Number.isInteger(v.p) && v.p >= 0) return v.p;
  } catch {
    // fall through to the error below
  }
  throw invalidParameterValue(`Invalid value '${token}' for NextToken`);
}

/** Validates MaxResults against EC2's documented range for the action. */
export function readMaxResults(value: number | undefined, min: number, max: number, fallback: number): number {
  if (value === undefined) return fallback;
  if (value < min || value > max) {
    throw invalidParameterValue(
      `Value ( ${value} ) for parameter maxResults is invalid. Expecting a value between ${min} and ${max}.`,
    );
  }
  return value;
}

/** One page of a static list by offset. */
export function pageByOffset<T>(
  all: readonly T[],
  kind: string,
  token: string | undefined,
  pageSize: number,
): { page: T[]; nextToken?: string } {
  const start = decodeToken(kind, token) ?? 0;
  const page = all.slice(start, start + pageSize);
  const end = start + page.length;
  return end < all.length ? { page, nextToken: encodeToken(kind, end) } : { page };
}
