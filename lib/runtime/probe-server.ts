// Small HTTP servers for /healthz, /readyz and /metrics, bound to "host:port" strings as in the flags.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';

export class BindAddressError extends Error {
  override readonly name = 'BindAddressError';
}

/** ":9440" → all interfaces; "127.0.0.1:0" → loopback, any port; "0" or "" → disabled (undefined). */
export function parseBindAddress(addr: string | undefined): { host: string | undefined; port: number } | undefined {
  if (addr === undefined || addr === '' || addr === '0') return undefined;
  const m = /^(?:\[([^\]]+)\]|([^:]*)):(\d{1,5})$/.exec(addr);
  if (!m) throw new BindAddressError(`bind address ${JSON.stringify(addr)} must look like "host:port" or ":port"`);
  const port = Number(m[3]);
  if (port > 65535) throw new BindAddressError(`bind address ${JSON.stringify(addr)}: port must be <= 65535`);
  const host = m[1] ?? m[2];
  return { host: host || undefined, port };
}

export interface RouteResponse {
  status: number;
  contentType: string;
  /** A stream is piped (a large body is never held whole). */
  body: string | Buffer | Readable;
  headers?: Record<string, string>;
}

/** `subpath` is what follows the route's path ("" for the path itself); `query` its query string. */
export type Route = (
  req: http.IncomingMessage,
  at: { subpath: string; query: URLSearchParams },
) => Promise<RouteResponse>;

export class ProbeServer {
  private server: http.Server | undefined;

  /** `subtrees`: routes that also answer every path below them (/healthz/ping for /healthz), as Go's "/x/" patterns. */
  constructor(
    private readonly routes: Record<string, Route>,
    private readonly subtrees: readonly string[] = [],
  ) {}

  private find(path: string): { route: Route; subpath: string } | undefined {
    const exact = this.routes[path];
    if (exact) return { route: exact, subpath: '' };
    for (const base of this.subtrees) {
      const route = this.routes[base];
      if (route && path.startsWith(`${base}/`)) return { route, subpath: path.slice(base.length) };
    }
    return undefined;
  }

  async listen(addr: { host: string | undefined; port: number }): Promise<string> {
    const server = http.createServer((req, res) => {
      const url = new URL(req.url ?? '/', 'http://probe');
      const found = this.find(url.pathname);
      if (!found) {
        res.writeHead(404, { 'Content-Type': 'text/plain; charset=utf-8' }).end('404 page not found\n');
        return;
      }
      found.route(req, { subpath: found.subpath, query: url.searchParams }).then(
        (r) => {
          res.writeHead(r.status, { 'Content-Type': r.contentType, 'X-Content-Type-Options': 'nosniff', ...r.headers });
          if (r.body instanceof Readable) r.body.pipe(res);
          else res.end(r.body);
        },
        (err: unknown) =>
          res
            .writeHead(500, { 'Content-Type': 'text/plain' })
            .end(`${err instanceof Error ? err.message : String(err)}\n`),
      );
    });
    server.keepAliveTimeout = 5_000;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(addr.port, addr.host, () => {
        server.off('error', reject);
        resolve();
      });
    });
    this.server = server;
    const a = server.address() as AddressInfo;
    return a.family === 'IPv6' ? `[${a.address}]:${a.port}` : `${a.address}:${a.port}`;
  }

  async close(): Promise<void> {
    const s = this.server;
    if (!s) return;
    this.server = undefined;
    s.closeAllConnections();
    await new Promise<void>((resolve) => s.close(() => resolve()));
  }
}
