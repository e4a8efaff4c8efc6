// How every cloud client reaches its endpoints: through the cluster's proxy (HTTPS_PROXY / HTTP_PROXY, with
// NO_PROXY's exceptions) and trusting the system CAs plus the cluster's extra CA bundles. One rule for the three
// providers: each hands the agents made here to its SDK (AWS NodeHttpHandler, Google's gaxios, IBM's axios),
// so a proxy or CA setting means the same thing on every cloud. The proxy is chosen per connection, so one
// client may reach a NO_PROXY endpoint directly and another through the proxy. Callers (cmd/) read the
// environment and the CA files; this file only takes their values.
import { Agent as HttpAgent, type AgentOptions, type ClientRequestArgs } from 'node:http';
import { Agent as HttpsAgent, type RequestOptions as HttpsRequestOptions } from 'node:https';
import { connect as netConnect } from 'node:net';
import type { Duplex } from 'node:stream';
import { connect as tlsConnect, rootCertificates, type ConnectionOptions, type TLSSocket } from 'node:tls';
import { NoProxyList } from './no-proxy.js';
import { InvalidProxyUrlError, UntrustedServerCertificateError } from './outbound-http-errors.js';
import { authority, openTunnel, proxyForDisplay } from './proxy-tunnel.js';

/** An extra trusted CA bundle (PEM) and where it came from, e.g. "/etc/pki/ca-trust/extracted/pem/tls-ca-bundle.pem". */
export interface TrustedCaBundle {
  source: string;
  pem: string;
}

export interface OutboundHttpOptions {
  /** HTTPS_PROXY: the proxy for https:// endpoints. */
  httpsProxy?: string;
  /** HTTP_PROXY: the proxy for http:// endpoints. */
  httpProxy?: string;
  /** NO_PROXY: hosts, domains, IPs and CIDRs reached directly. */
  noProxy?: string;
  /** CA bundles trusted on top of the system CAs. */
  trustedCaBundles?: TrustedCaBundle[];
  /** How long a proxy may take to open a tunnel (default 10 s). */
  tunnelTimeoutMs?: number;
  /** Connections kept per host and agent (default 50, as the AWS SDK's own agents). */
  maxSockets?: number;
  /**
   * Also proxy loopback endpoints (localhost, 127.0.0.0/8, ::1). Off, as in Go's net/http, which the
   * reference controllers use: a local endpoint is never sent to a proxy. Tests turn it on to put a local
   * emulator behind a local proxy.
   */
  proxyLoopback?: boolean;
}

const LOOPBACK = new NoProxyList('localhost,127.0.0.0/8,::1');

/** Whether a URL names this host (localhost, 127.0.0.0/8, ::1): traffic to it never leaves the machine. */
export function isLoopbackUrl(url: string): boolean {
  try {
    const u = new URL(url);
    return LOOPBACK.bypasses(u.hostname, Number(u.port) || (u.protocol === 'https:' ? 443 : 80));
  } catch {
    return false;
  }
}

/** An agent pair for one SDK client set; destroying it closes only that client set's connections. */
export interface OutboundAgents {
  readonly http: HttpAgent;
  readonly https: HttpsAgent;
  /** The agent for a URL's protocol. */
  forUrl(url: URL | string): HttpAgent | HttpsAgent;
  destroy(): void;
}

/** OpenSSL verification failures that mean "no trusted CA signed this chain". */
const UNTRUSTED_CODES = new Set([
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'CERT_UNTRUSTED',
  'CERT_SIGNATURE_FAILURE',
]);

function parseProxy(variable: string, value: string | undefined): URL | undefined {
  const text = value?.trim();
  if (!text) return undefined;
  // Go (and curl) take "proxy:3128" to mean http://proxy:3128.
  const withScheme = text.includes('://') ? text : `http://${text}`;
  let url: URL;
  try {
    url = new URL(withScheme);
  } catch {
    // The value may hold a password: say what is wrong, not what it is.
    throw new InvalidProxyUrlError(variable, 'not a URL; expected http(s)://[user:password@]host[:port]');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new InvalidProxyUrlError(
      variable,
      `unsupported proxy scheme "${url.protocol.replace(/:$/, '')}"; expected http or https`,
    );
  }
  if (url.hostname === '') throw new InvalidProxyUrlError(variable, 'the proxy URL has no host');
  return url;
}

type ConnectCallback = (err: Error | null, stream: Duplex) => void;
/** Where and how OutboundHttp.connect opens a connection: node's TLS options plus the target host and port. */
export type OutboundConnectOptions = ConnectionOptions & { host?: string; port?: number | string };

export class OutboundHttp {
  private readonly httpsProxy?: URL;
  private readonly httpProxy?: URL;
  private readonly noProxy: NoProxyList;
  /** The CAs every TLS connection trusts; undefined = Node's defaults (no extra bundle configured). */
  readonly ca?: string[];
  readonly trustSources: readonly string[];

  constructor(private readonly opts: OutboundHttpOptions = {}) {
    this.httpsProxy = parseProxy('HTTPS_PROXY', opts.httpsProxy);
    this.httpProxy = parseProxy('HTTP_PROXY', opts.httpProxy);
    this.noProxy = new NoProxyList(opts.noProxy);
    const bundles = (opts.trustedCaBundles ?? []).filter((b) => b.pem.trim() !== '');
    this.trustSources = bundles.map((b) => b.source);
    // Setting `ca` replaces Node's roots, so they are listed too: the extra bundles add to the system trust.
    this.ca = bundles.length > 0 ? [...rootCertificates, ...bundles.map((b) => b.pem)] : undefined;
  }

  /** The proxy a connection to `url` goes through; undefined = direct. */
  proxyFor(url: URL | string): URL | undefined {
    const u = typeof url === 'string' ? new URL(url) : url;
    const secure = u.protocol === 'https:';
    const port = u.port !== '' ? Number(u.port) : secure ? 443 : 80;
    return this.proxyForHost(secure, u.hostname, port);
  }

  private proxyForHost(secure: boolean, host: string, port: number): URL | undefined {
    const proxy = secure ? this.httpsProxy : this.httpProxy;
    if (!proxy || this.noProxy.bypasses(host, port)) return undefined;
    if (!this.opts.proxyLoopback && LOOPBACK.bypasses(host, port)) return undefined;
    return proxy;
  }

  /** What is configured, without credentials: for a start-up log line. */
  describe(): { httpsProxy?: string; httpProxy?: string; noProxy?: string; trustedCaBundles: readonly string[] } {
    return {
      httpsProxy: this.httpsProxy && proxyForDisplay(this.httpsProxy),
      httpProxy: this.httpProxy && proxyForDisplay(this.httpProxy),
      noProxy: this.opts.noProxy || undefined,
      trustedCaBundles: this.trustSources,
    };
  }

  /** A fresh agent pair (keep-alive) that proxies and verifies as configured. */
  newAgents(): OutboundAgents {
    const base: AgentOptions = { keepAlive: true, maxSockets: this.opts.maxSockets ?? 50 };
    const http = new RoutingHttpAgent(this, base);
    const https = new RoutingHttpsAgent(this, { ...base, ca: this.ca });
    return {
      http,
      https,
      forUrl: (url) => ((typeof url === 'string' ? new URL(url) : url).protocol === 'http:' ? http : https),
      destroy: () => {
        http.destroy();
        https.destroy();
      },
    };
  }

  /** Opens the transport for one connection: direct or through the proxy; TLS verified against `ca`. */
  async connect(options: OutboundConnectOptions, secure: boolean): Promise<Duplex> {
    const host = options.host ?? 'localhost';
    const port = Number(options.port) || (secure ? 443 : 80);
    const proxy = this.proxyForHost(secure, host, port);
    const tunnel = proxy
      ? await openTunnel(proxy, host, port, { ca: this.ca, timeoutMs: this.opts.tunnelTimeoutMs ?? 10_000 })
      : undefined;
    if (!secure) return tunnel ?? netConnect({ host, port });
    const socket = tlsConnect({
      ...options,
      host,
      port,
      ca: this.ca ?? options.ca,
      socket: tunnel,
      servername: options.servername ?? host,
    });
    return this.handshake(socket, authority(host, port));
  }

  private handshake(socket: TLSSocket, server: string): Promise<TLSSocket> {
    return new Promise<TLSSocket>((resolve, reject) => {
      const onError = (err: Error & { code?: string }) => {
        socket.destroy();
        if (err.code && UNTRUSTED_CODES.has(err.code))
          reject(new UntrustedServerCertificateError(server, err.code, this.trustSources, { cause: err }));
        else reject(err);
      };
      socket.once('error', onError);
      socket.once('secureConnect', () => {
        socket.off('error', onError);
        resolve(socket);
      });
    });
  }
}

/** Passes the connection (or the failure to make it) to the callback Node's Agent gave createConnection. */
function handOver(connection: Promise<Duplex>, callback: ConnectCallback | undefined): void {
  connection.then(
    (s) => callback?.(null, s),
    // Node reads only the error when there is one.
    (err: Error) => callback?.(err, undefined as unknown as Duplex),
  );
}

// Node's Agent accepts a connection handed to createConnection's callback (documented for
// agent.createConnection), so the pool and keep-alive stay Node's while the route is chosen per connection.
class RoutingHttpAgent extends HttpAgent {
  constructor(
    private readonly outbound: OutboundHttp,
    opts: AgentOptions,
  ) {
    super(opts);
  }

  override createConnection(options: ClientRequestArgs, callback?: ConnectCallback): undefined {
    handOver(this.outbound.connect(options as OutboundConnectOptions, false), callback);
    return undefined;
  }
}

class RoutingHttpsAgent extends HttpsAgent {
  constructor(
    private readonly outbound: OutboundHttp,
    opts: AgentOptions & { ca?: string[] },
  ) {
    super(opts);
  }

  override createConnection(options: HttpsRequestOptions, callback?: ConnectCallback): undefined {
    handOver(this.outbound.connect(options as OutboundConnectOptions, true), callback);
    return undefined;
  }
}
