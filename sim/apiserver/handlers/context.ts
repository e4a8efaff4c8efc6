// What every resource handler receives: the parsed request and the server's parts.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { parse as parseYaml } from 'yaml';
import * as E from '../errors.js';
import { mediaType, parseJsonBody, readBody, sendJsonText } from '../http-util.js';
import { duplicateJsonFields } from '../json-duplicate-fields.js';
import { checkValueDepth } from '../json-depth.js';
import type { Authorizer } from '../authz/authorizer.js';
import type { ServiceAccountTokens } from '../authz/service-account-tokens.js';
import type { UserInfo } from '../authz/user.js';
import type { ObjectApi, WriteOpts } from '../object-api.js';
import { decodeProtobufObject } from '../protobuf.js';
import type { ResourceType } from '../resource-type.js';
import type { CommitGate } from '../storage/commit-gate.js';
import type { AdmittedWrites } from '../webhooks/admitted-writes.js';
import type { WatchDeps } from './watch.js';

export interface HandlerContext {
  req: IncomingMessage;
  res: ServerResponse;
  query: URLSearchParams;
  type: ResourceType;
  version: string;
  /** '' for cluster-scoped requests and for namespaced lists across all namespaces. */
  namespace: string;
  name?: string;
  subresource?: string;
  api: ObjectApi;
  /** The write path of API requests: ObjectApi with dynamic admission (webhooks) around it. */
  writes: AdmittedWrites;
  now: () => number;
  maxBodyBytes: number;
  watch: WatchDeps;
  /** Replies wait here until what they reflect is durable. */
  commits: CommitGate;
  /** Whom the request acts as (after impersonation); it was authorized before reaching a handler. */
  user: UserInfo;
  /** For the access reviews, which ask the same authorizer the request path does. */
  authorizer: Authorizer;
  serviceAccountTokens: ServiceAccountTokens;
}

/**
 * Sends a JSON reply once every change it can reflect is durable. The body is serialised first, from
 * state no newer than the store's current resourceVersion, and that is what must be durable: an
 * acknowledged write, or an object or resourceVersion a reader saw, can then never be lost by a crash.
 */
export async function reply(ctx: HandlerContext, code: number, body: unknown): Promise<void> {
  await replyText(ctx, code, JSON.stringify(body));
}

export async function replyText(ctx: HandlerContext, code: number, text: string): Promise<void> {
  await ctx.commits.durable(ctx.api.store.currentRv());
  sendJsonText(ctx.res, code, text);
}

const bodyTypes = ['application/json', 'application/yaml', 'application/apply-patch+yaml'];
const ProtobufType = 'application/vnd.kubernetes.protobuf';

/**
 * Reads a JSON (or YAML) request body with the size limit. With `opts` (a write), the fields a JSON body
 * gives twice are noted there for fieldValidation.
 */
export async function readObjectBody(ctx: HandlerContext, opts?: WriteOpts): Promise<unknown> {
  const ct = mediaType(ctx.req.headers['content-type']);
  if (ct !== '' && ct !== ProtobufType && !bodyTypes.includes(ct)) throw E.unsupportedMediaType(ct, bodyTypes);
  const buf = await readBody(ctx.req, ctx.maxBodyBytes);
  if (ct === ProtobufType) return decodeProtobufObject(buf, bodyTypes);
  if (ct === 'application/yaml' || ct === 'application/apply-patch+yaml') {
    return parseYamlBody(buf);
  }
  return parseJsonBodyFor(buf, opts);
}

/** parseJsonBody, noting the body's duplicate fields in `opts` when given. */
export function parseJsonBodyFor(buf: Buffer, opts: WriteOpts | undefined): unknown {
  const value = parseJsonBody(buf);
  if (opts && opts.fieldValidation !== 'Ignore') {
    const duplicates = duplicateJsonFields(buf.toString('utf8'));
    if (duplicates.length > 0) opts.duplicateFields = duplicates;
  }
  return value;
}

/** A YAML body, held to the same nesting limit as JSON (a parser that overflows its stack is a 400 too). */
export function parseYamlBody(buf: Buffer): unknown {
  let value: unknown;
  try {
    value = parseYaml(buf.toString('utf8')) as unknown;
  } catch (err) {
    throw E.badRequest(`error decoding YAML: ${(err as Error).message}`);
  }
  checkValueDepth(value);
  return value;
}

/** The write options of a request: dryRun and fieldValidation from the query, and a place for warnings. */
export function writeOptions(query: URLSearchParams): WriteOpts {
  const fv = query.get('fieldValidation');
  if (fv !== null && fv !== 'Strict' && fv !== 'Warn' && fv !== 'Ignore') {
    throw E.badRequest(`fieldValidation parameter unsupported: ${fv}; valid values are Ignore, Warn, Strict`);
  }
  return { dryRun: isDryRun(query), fieldValidation: fv ?? 'Warn', warnings: [] };
}

/** Sends accumulated warnings as Warning headers (kubectl prints them). */
export function setWarnings(ctx: HandlerContext, opts: WriteOpts): void {
  const w = boundedWarnings(opts.warnings ?? []);
  if (w.length > 0)
    ctx.res.setHeader(
      'Warning',
      w.map((m) => `299 - ${JSON.stringify(m)}`),
    );
}

/** kube-apiserver's bounds on one response's warnings, in characters. */
const WarningsTotalLimit = 4 * 1024;
const WarningItemLimit = 256;

/**
 * The warnings a response carries, bounded as kube-apiserver bounds them so that a body with thousands of
 * unknown or duplicate fields cannot produce a header no client accepts: repeats once; past 4 KiB in all,
 * each cut to 256 characters, and what still does not fit left out.
 */
export function boundedWarnings(warnings: readonly string[]): string[] {
  const unique = [...new Set(warnings)];
  const total = (list: readonly string[]) => list.reduce((n, m) => n + [...m].length, 0);
  if (total(unique) <= WarningsTotalLimit) return unique;
  const out: string[] = [];
  let used = 0;
  for (const m of unique) {
    const chars = [...m];
    const item = chars.length > WarningItemLimit ? chars.slice(0, WarningItemLimit).join('') : m;
    const size = Math.min(chars.length, WarningItemLimit);
    if (used + size > WarningsTotalLimit) break;
    out.push(item);
    used += size;
  }
  return out;
}

/** Runs a write and sends the warnings it gathered, on success and on failure alike (kube sends both). */
export async function withWarnings<T>(ctx: HandlerContext, opts: WriteOpts, write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } finally {
    setWarnings(ctx, opts);
  }
}

/** dryRun=All, the only value kube accepts. */
export function isDryRun(query: URLSearchParams): boolean {
  const values = query.getAll('dryRun');
  for (const v of values) {
    if (v !== 'All') throw E.badRequest(`Invalid value: ${JSON.stringify(values)}: valid values are: [All]`);
  }
  return values.length > 0;
}
