// The HTTP front: authentication, impersonation and authorization (the one place every request is checked),
// discovery and the resource routes, dispatched per verb, with the per-verb request counters tests use to
// assert how many calls a controller made.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { forbidden, requestAttributes, type Attributes } from './authz/attributes.js';
import type { Authenticator } from './authz/authenticator.js';
import type { Authorizer } from './authz/authorizer.js';
import { actingUser } from './authz/impersonation.js';
import type { ServiceAccountTokens } from './authz/service-account-tokens.js';
import { coreVersions, groupDoc, groupList, resourceList, versionInfoDoc } from './discovery.js';
import * as E from './errors.js';
import { sendError, sendJson } from './http-util.js';
import { groupVersionDoc, rootDoc } from './openapi.js';
import type { ObjectApi } from './object-api.js';
import type { TypeRegistry } from './registry.js';
import { parseResourcePath } from './request-info.js';
import { boolQueryParam } from './query-params.js';
import type { CommitGate } from './storage/commit-gate.js';
import type { AdmittedWrites } from './webhooks/admitted-writes.js';
import type { HandlerContext } from './handlers/context.js';
import { handleDelete, handleDeleteCollection } from './handlers/delete.js';
import { handleEviction } from './handlers/eviction.js';
import { handlePatch } from './handlers/patch-handler.js';
import { handleGet, handleList } from './handlers/read.js';
import { handleReview } from './handlers/review.js';
import { handleGetScale, handleWriteScale } from './handlers/scale.js';
import { handleTokenRequest } from './handlers/token-request.js';
import type { WatchDeps } from './handlers/watch.js';
import { handleCreate, handleUpdate } from './handlers/write.js';

export interface ServerParts {
  authenticator: Authenticator;
  authorizer: Authorizer;
  serviceAccountTokens: ServiceAccountTokens;
  registry: TypeRegistry;
  api: ObjectApi;
  writes: AdmittedWrites;
  watch: WatchDeps;
  now: () => number;
  maxBodyBytes: number;
  /** host:port clients use, for /api's serverAddressByClientCIDRs. */
  serverAddress: () => string;
  counts: Map<string, number>;
  /** Replies, error replies too, wait here until the state they reflect is durable. */
  commits: CommitGate;
  /** Sees every resource request as it is counted (the RBAC check records who called what). */
  onRequest?: (request: RecordedRequest) => void;
  /** Told about every request refused with 403, with the refusal's message. */
  onForbidden?: (message: string) => void;
}

/** One resource request, as an authorizer would see its attributes. */
export interface RecordedRequest {
  verb: string;
  /** API group; '' for the core group. */
  group: string;
  resource: string;
  subresource?: string;
  namespace?: string;
  /** The object's name, for a request about one object (get, update, delete, a subresource such as an eviction). */
  name?: string;
  userAgent?: string;
  /** The user the request acted as. */
  user?: string;
}

export function createRequestListener(parts: ServerParts): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    handle(parts, req, res).catch((err: unknown) => {
      const status =
        err instanceof E.StatusError ? err : E.internalError(err instanceof Error ? err.message : String(err));
      parts.commits.durable(parts.api.store.currentRv()).then(
        () => sendError(res, status),
        (gateErr: unknown) => sendError(res, E.internalError((gateErr as Error).message)),
      );
    });
  };
}

async function handle(parts: ServerParts, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const requester = parts.authenticator.authenticate(req.headers.authorization);
  if (!requester) {
    req.resume();
    throw E.unauthorized();
  }
  const url = new URL(req.url ?? '/', 'http://localhost');
  const path = url.pathname.length > 1 ? url.pathname.replace(/\/+$/, '') : url.pathname;
  const method = req.method ?? 'GET';
  const isWatch = boolQueryParam(url.searchParams, 'watch') === true;
  // Authorized before routing, as kube-apiserver does: a refused user learns nothing about what exists.
  const attributes: Attributes = { ...requestAttributes(method, path, url.searchParams, isWatch), user: requester };
  try {
    attributes.user = actingUser(parts.authorizer, requester, req.headersDistinct);
    const decision = parts.authorizer.authorize(attributes);
    if (!decision.allowed) throw forbidden(attributes, decision.reason);
  } catch (err) {
    if (err instanceof E.StatusError && err.code === 403) parts.onForbidden?.(err.message);
    req.resume();
    throw err;
  }
  if (serveNonResource(parts, method, path, res)) return;
  if (!attributes.resourceRequest) throw E.notFoundPath();
  const info = parseResourcePath(path);
  if (!info) throw E.notFoundPath();
  const type = parts.registry.lookup(info.group, info.version, info.resource);
  if (!type) throw E.notFoundPath();
  if (info.namespace && !type.namespaced) throw E.notFoundPath();
  const ctx: HandlerContext = {
    req,
    res,
    query: url.searchParams,
    type,
    version: info.version,
    namespace: info.namespace,
    name: info.name,
    subresource: info.subresource,
    api: parts.api,
    writes: parts.writes,
    now: parts.now,
    maxBodyBytes: parts.maxBodyBytes,
    watch: parts.watch,
    commits: parts.commits,
    user: attributes.user,
    authorizer: parts.authorizer,
    serviceAccountTokens: parts.serviceAccountTokens,
  };
  const sub = info.subresource;
  const verb = attributes.verb;
  const counterKey = `${verb} ${type.plural}${sub ? `/${sub}` : ''}`;
  parts.counts.set(counterKey, (parts.counts.get(counterKey) ?? 0) + 1);
  parts.onRequest?.({
    verb,
    group: type.group,
    resource: type.plural,
    subresource: sub,
    namespace: info.namespace,
    name: info.name,
    userAgent: req.headers['user-agent'],
    user: attributes.user.username,
  });
  await dispatch(ctx, method, isWatch);
}

async function dispatch(ctx: HandlerContext, method: string, watch: boolean): Promise<void> {
  if (ctx.type.review) return handleReview(ctx);
  const sub = ctx.subresource;
  if (ctx.name === undefined) {
    if (method === 'GET') return handleList(ctx);
    if (method === 'POST') return handleCreate(ctx);
    if (method === 'DELETE') return handleDeleteCollection(ctx);
    throw E.methodNotAllowed();
  }
  if (sub === undefined || sub === 'status') {
    if (sub === 'status' && !ctx.type.versions.find((v) => v.name === ctx.version)?.statusSubresource)
      throw E.notFoundPath();
    switch (method) {
      case 'GET':
        return watch && sub === undefined ? handleList(ctx) : handleGet(ctx);
      case 'PUT':
        return handleUpdate(ctx);
      case 'PATCH':
        return handlePatch(ctx);
      case 'DELETE':
        if (sub === undefined) return handleDelete(ctx);
    }
    throw E.methodNotAllowed();
  }
  if (sub === 'scale') {
    if (method === 'GET') return handleGetScale(ctx);
    if (method === 'PUT' || method === 'PATCH') return handleWriteScale(ctx, method);
    throw E.methodNotAllowed();
  }
  if (sub === 'eviction' && ctx.type.extraSubresources.includes('eviction')) {
    if (method === 'POST') return handleEviction(ctx);
    throw E.methodNotAllowed();
  }
  if (sub === 'token' && ctx.type.extraSubresources.includes('token')) {
    if (method === 'POST') return handleTokenRequest(ctx);
    throw E.methodNotAllowed();
  }
  if (sub === 'finalize' && ctx.type.group === '' && ctx.type.plural === 'namespaces') {
    if (method === 'PUT') return handleUpdate(ctx);
    throw E.methodNotAllowed();
  }
  throw E.notFoundPath();
}

/** Discovery, version and health endpoints; true when the request was one of them. */
function serveNonResource(parts: ServerParts, method: string, path: string, res: ServerResponse): boolean {
  const reg = parts.registry;
  let body: unknown;
  if (path === '/version') body = versionInfoDoc();
  else if (path === '/api') body = coreVersions(parts.serverAddress());
  else if (path === '/apis') body = groupList(reg);
  else if (path === '/healthz' || path === '/livez' || path === '/readyz') {
    res.writeHead(200, { 'Content-Type': 'text/plain; charset=utf-8' });
    res.end('ok');
    return true;
  } else if (path === '/openapi/v3') {
    body = rootDoc(reg);
  } else if (path.startsWith('/openapi/v3/')) {
    const m = /^\/openapi\/v3\/(?:api\/(v1)|apis\/([^/]+)\/([^/]+))$/.exec(path);
    body = m ? (m[1] ? groupVersionDoc(reg, '', m[1]) : groupVersionDoc(reg, m[2] ?? '', m[3] ?? '')) : undefined;
    if (body === undefined) throw E.notFoundPath();
  } else if (path.startsWith('/openapi/')) {
    // OpenAPI v2 is not served: kubectl uses v3 when the server has it.
    throw E.notFoundPath();
  } else {
    const m = /^\/(?:api\/(v1)|apis\/([^/]+)(?:\/([^/]+))?)$/.exec(path);
    if (!m) return false;
    body = m[1] ? resourceList(reg, '', m[1]) : m[3] ? resourceList(reg, m[2] ?? '', m[3]) : groupDoc(reg, m[2] ?? '');
    if (body === undefined) throw E.notFoundPath();
  }
  if (method !== 'GET') throw E.methodNotAllowed();
  sendJson(res, 200, body);
  return true;
}
