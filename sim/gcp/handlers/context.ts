// What a route handler gets: the live state, the path parameters, the query, the parsed JSON body and a signal
// that aborts when the client goes away or the emulator stops.
import { invalidField, requiredField } from '../api-error.js';
import type { GceState } from '../gce-state.js';

export interface RequestContext {
  state: GceState;
  params: Record<string, string>;
  query: URLSearchParams;
  /** The parsed JSON body; undefined when the request had none. */
  body: unknown;
  signal: AbortSignal;
}

/** Returns the JSON to answer with (200). Throws GceApiError for GCE error answers. */
export type Handler = (ctx: RequestContext) => unknown;

export function param(ctx: RequestContext, name: string): string {
  const v = ctx.params[name];
  if (v === undefined) throw new Error(`route is missing path parameter ${name}`);
  return v;
}

/** The body as a JSON object, or GCE's 400 when it is missing or not an object. */
export function bodyObject(ctx: RequestContext, field = 'resource'): Record<string, unknown> {
  const b = ctx.body;
  if (b === undefined || b === null || b === '') throw requiredField(field);
  if (typeof b !== 'object' || Array.isArray(b)) throw invalidField(field, b, 'Expected a JSON object.');
  return b as Record<string, unknown>;
}

/** A boolean query parameter ("true"/"false", any case); `fallback` when absent. */
export function queryBool(ctx: RequestContext, name: string, fallback: boolean): boolean {
  const v = ctx.query.get(name);
  if (v === null || v === '') return fallback;
  if (/^true$/i.test(v)) return true;
  if (/^false$/i.test(v)) return false;
  throw invalidField(name, v, 'Must be true or false.');
}
