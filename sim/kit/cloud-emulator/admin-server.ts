// The emulators' admin endpoint: a small loopback HTTP server, apart from the cloud API, through which a person
// or a test changes what the emulated cloud is like while it runs (the credentials it knows, and more to come).
// Each emulator lists its routes; the server only matches them, reads JSON and answers JSON. No cloud has such
// an endpoint, so it never shares a port with the cloud API a client is pointed at.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { readBodyWithinLimit } from './http-envelope.js';
import { closeServer, listenOnLoopback, LOOPBACK_HOST } from './loopback-server.js';

export type AdminMethod = 'GET' | 'POST' | 'PUT' | 'DELETE';

export interface AdminReply {
  status: number;
  body?: unknown;
}

/** One route: a method and an exact path ("/credentials"); `handle` gets the parsed JSON body (undefined when empty). */
export interface AdminRoute {
  method: AdminMethod;
  path: string;
  /** One line for the index GET / answers. */
  summary: string;
  handle(body: unknown): AdminReply | Promise<AdminReply>;
}

/** A request the admin endpoint refuses: answered with its status and `{"error": message}`. */
export class AdminRequestError extends Error {
  override readonly name = 'AdminRequestError';
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** The JSON object a route expects, or an AdminRequestError naming what is wrong. */
export function adminObject(body: unknown): Record<string, unknown> {
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw new AdminRequestError(400, 'the request body must be a JSON object');
  return body as Record<string, unknown>;
}

/** A non-empty string field of an admin request body, or an AdminRequestError naming the field. */
export function adminString(body: Record<string, unknown>, field: string): string {
  const v = body[field];
  if (typeof v !== 'string' || v === '') throw new AdminRequestError(400, `${field} must be a non-empty string`);
  return v;
}

export interface AdminServer {
  /** "http://127.0.0.1:<port>". */
  readonly url: string;
  stop(): Promise<void>;
}

export interface AdminServerOptions {
  routes: readonly AdminRoute[];
  /** 0 (default) = any free port. */
  port?: number;
  /** Default 64 KiB: admin requests are small. */
  maxBodyBytes?: number;
}

const sendJson = (res: ServerResponse, status: number, body: unknown): void => {
  const text = body === undefined ? '' : JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
};

/** Serves `routes` on 127.0.0.1 (GET / lists them); a route registered twice is a programming error. */
export async function startAdminServer(o: AdminServerOptions): Promise<AdminServer> {
  const seen = new Set<string>();
  for (const r of o.routes) {
    const key = `${r.method} ${r.path}`;
    if (seen.has(key)) throw new Error(`admin route ${key} is registered twice`);
    seen.add(key);
  }
  const maxBody = o.maxBodyBytes ?? 64 * 1024;

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = new URL(req.url ?? '/', 'http://localhost').pathname.replace(/(.)\/$/, '$1');
    const method = req.method ?? 'GET';
    const text = await readBodyWithinLimit(req, maxBody);
    if (text === undefined) return sendJson(res, 413, { error: `the request body exceeds ${maxBody} bytes` });
    if (path === '/' && method === 'GET')
      return sendJson(res, 200, {
        routes: o.routes.map((r) => ({ method: r.method, path: r.path, summary: r.summary })),
      });
    const onPath = o.routes.filter((r) => r.path === path);
    const route = onPath.find((r) => r.method === method);
    if (!route) {
      if (onPath.length === 0) return sendJson(res, 404, { error: `no admin route ${path}; GET / lists them` });
      res.setHeader('allow', onPath.map((r) => r.method).join(', '));
      return sendJson(res, 405, { error: `${method} is not allowed on ${path}` });
    }
    let body: unknown;
    if (text.trim() !== '') {
      try {
        body = JSON.parse(text);
      } catch (err) {
        return sendJson(res, 400, { error: `the request body is not JSON: ${(err as Error).message}` });
      }
    }
    try {
      const reply = await route.handle(body);
      sendJson(res, reply.status, reply.body);
    } catch (err) {
      if (err instanceof AdminRequestError) return sendJson(res, err.status, { error: err.message });
      sendJson(res, 500, { error: err instanceof Error ? err.message : String(err) });
    }
  }

  const server: Server = createServer((req, res) => void handle(req, res));
  const port = await listenOnLoopback(server, o.port ?? 0);
  return { url: `http://${LOOPBACK_HOST}:${port}`, stop: () => closeServer(server) };
}

/** What a cloud's known credentials look like to the admin endpoint. */
export interface CredentialsAdmin {
  /** Adds (or replaces) the credential the body describes; returns what may be shown of it (never a secret). */
  add(body: Record<string, unknown>): Record<string, unknown>;
  /** Forgets the credential the body names; false when it was not known. */
  revoke(body: Record<string, unknown>): boolean;
  /** What may be shown of every known credential (ids, never secrets). */
  list(): Record<string, unknown>[];
}

/** GET, POST and DELETE /credentials, the same shape on every emulator; the body's fields are the cloud's. */
export function credentialsAdminRoutes(c: CredentialsAdmin, describe: { add: string; revoke: string }): AdminRoute[] {
  return [
    {
      method: 'GET',
      path: '/credentials',
      summary: 'the credentials this emulator accepts (ids only)',
      handle: () => ({ status: 200, body: { items: c.list() } }),
    },
    {
      method: 'POST',
      path: '/credentials',
      summary: `accept a credential: ${describe.add}`,
      handle: (b) => ({ status: 201, body: c.add(adminObject(b)) }),
    },
    {
      method: 'DELETE',
      path: '/credentials',
      summary: `stop accepting a credential: ${describe.revoke}`,
      handle: (b) => {
        if (!c.revoke(adminObject(b))) throw new AdminRequestError(404, 'no such credential is known');
        return { status: 200, body: { revoked: true } };
      },
    },
  ];
}

/** One admin request (JSON in, JSON out), as a test or a script sends it; resolves with the status and body. */
export async function callAdmin(
  adminUrl: string,
  method: AdminMethod,
  path: string,
  body?: unknown,
): Promise<{ status: number; body: unknown }> {
  const r = await fetch(`${adminUrl}${path}`, {
    method,
    headers: { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await r.text();
  return { status: r.status, body: text === '' ? undefined : (JSON.parse(text) as unknown) };
}
