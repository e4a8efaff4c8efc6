// machine-api-envtest's /metrics: the process's own figures (CPU, heap, RSS: the same defaults every binary
// serves) and the resource requests it answered per client, so a benchmark running the control plane as its own
// process can tell whose requests cost what. Loopback only, and behind the same bearer token as the API: the
// request counts name every client and resource, which is nobody else's business.
import { timingSafeEqual } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { Counter, Registry } from 'prom-client';
import { registerProcessMetrics } from './process-metrics.js';

export const ENVTEST_REQUESTS_METRIC = 'machine_api_envtest_requests_total';

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '::1', '[::1]']);

/** "127.0.0.1:9090" → host and port; a host that is not loopback is refused. */
export function parseLoopbackAddress(addr: string): { host: string; port: number } {
  const i = addr.lastIndexOf(':');
  const host = i < 0 ? '' : addr.slice(0, i);
  const port = Number(addr.slice(i + 1));
  if (!LOOPBACK.has(host) || !Number.isInteger(port) || port < 0 || port > 65535)
    throw new RangeError(`--metrics-bind-address must be a loopback host:port (e.g. 127.0.0.1:9090), got ${addr}`);
  return { host: host.replace(/^\[|\]$/g, ''), port };
}

/** The user agent's product, without version or platform ("machine-api-provider-aws/1.2 (linux)" → its name). */
export function clientOf(userAgent: string | undefined): string {
  return (userAgent ?? '').split(/[/ ]/)[0] || 'unknown';
}

/** What the control plane's onRequest tells about each resource request (the fields counted here). */
export interface CountedRequest {
  verb: string;
  resource: string;
  subresource?: string;
  userAgent?: string;
}

export interface EnvtestMetrics {
  /** Give to the control plane's onRequest. */
  onRequest(request: CountedRequest): void;
  /** Serves /metrics on the address to clients that send `Bearer <token>`; resolves with the bound port. */
  listen(addr: string, token: string): Promise<number>;
  close(): Promise<void>;
}

export function envtestMetrics(): EnvtestMetrics {
  const registry = new Registry();
  registerProcessMetrics(registry);
  const requests = new Counter({
    name: ENVTEST_REQUESTS_METRIC,
    help: 'Resource requests answered, by client (the user agent without its version), verb and resource[/subresource].',
    labelNames: ['client', 'verb', 'resource'],
    registers: [registry],
  });
  const authorized = (header: string | undefined, token: string): boolean => {
    const expected = Buffer.from(`Bearer ${token}`);
    const got = Buffer.from(header ?? '');
    return got.length === expected.length && timingSafeEqual(got, expected);
  };
  let server: Server | undefined;
  return {
    onRequest(r) {
      const resource = r.subresource ? `${r.resource}/${r.subresource}` : r.resource;
      requests.inc({ client: clientOf(r.userAgent), verb: r.verb, resource });
    },
    async listen(addr, token) {
      const { host, port } = parseLoopbackAddress(addr);
      server = createServer((req, res) => {
        if (!authorized(req.headers.authorization, token)) {
          res.writeHead(401).end();
          return;
        }
        if (req.method !== 'GET' || new URL(req.url ?? '/', 'http://x').pathname !== '/metrics') {
          res.writeHead(404).end();
          return;
        }
        registry.metrics().then(
          (text) => res.writeHead(200, { 'Content-Type': registry.contentType }).end(text),
          (err: unknown) => res.writeHead(500).end(String(err)),
        );
      });
      const s = server;
      await new Promise<void>((resolve, reject) => {
        s.once('error', reject);
        s.listen(port, host, () => resolve());
      });
      const a = s.address();
      return typeof a === 'object' && a ? a.port : port;
    },
    close: () =>
      new Promise<void>((resolve) => {
        if (!server) return resolve();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
