// Small HTTP servers for /healthz, /readyz and /metrics, bound to "host:port" strings as in the flags.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

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

export type Route = (req: http.IncomingMessage) => Promise<{ status: number; contentType: string; body: string }>;

export class ProbeServer {
  private server: http.Server | undefined;

  constructor(private readonly routes: Record<string, Route>) {}

  async listen(addr: { host: string | undefined; port: number }): Promise<string> {
    const server = http.createServer((req, res) => {
      const path = (req.url ?? '/').split('?')[0] ?? '/';
      const route = this.routes[path];
      if (!route) {
        res.writeHead(404, { 'Content-Type': 'text/plain' }).end('not found\n');
        return;
      }
      route(req).then(
        (r) => res.writeHead(r.status, { 'Content-Type': r.contentType }).end(r.body),
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
