// Raw HTTP to the API server with the kubeconfig's credentials: plain node:http(s) with keep-alive, a
// client-side QPS limit, Status bodies turned into ApiError, and network failures left as plain errors.
// Idle kept-alive connections are let go after ClientIdleTimeoutMs, before a server closes them, and a
// request that a reused connection failed before its reply arrived is sent again on another connection
// when that is provably safe (replay-safety.ts).
import http from 'node:http';
import https from 'node:https';
import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import { TLSSocket } from 'node:tls';
import type { KubeConfig } from '@kubernetes/client-node';
import type { Status } from '../apis/meta.js';
import type { Clock } from '../base/clock.js';
import { ClientIdleTimeoutMs } from '../base/http-keep-alive.js';
import { RealClock } from '../base/real-clock.js';
import type { TokenBucket } from '../base/token-bucket.js';
import { abortError } from '../base/real-clock.js';
import { linkedAbort } from '../base/linked-abort.js';
import { ApiError } from './errors.js';
import type { RequestMetrics } from './rest-client-metrics.js';
import { isReplaySafe } from './replay-safety.js';
import type { WriteFence } from './write-fence.js';

export interface TransportOptions {
  userAgent?: string;
  limiter?: TokenBucket;
  /** Deadline of a non-watch request (limiter wait excluded); default 60 s. A hung server never hangs a caller forever. */
  requestTimeoutMs?: number;
  clock?: Clock;
  /** Asked right before every write is sent; when it throws, the write never leaves this process. */
  writeFence?: WriteFence;
  /** Told the status and duration of every request (client-go's rest_client_* metrics). */
  metrics?: RequestMetrics;
  /** How long an idle kept-alive connection is kept for reuse; default ClientIdleTimeoutMs (30 s). */
  idleConnectionTimeoutMs?: number;
}

export class RequestTimeoutError extends Error {
  override readonly name = 'RequestTimeoutError';
}

/**
 * A connection kept alive from an earlier request failed this one before its reply arrived: most often
 * the server closed it as idle just as the request went out. Its message is the plain connection error's.
 */
class ReusedConnectionError extends Error {}

/** The error codes of a connection the other end closed or reset. */
const ConnectionClosedCodes = new Set(['ECONNRESET', 'EPIPE']);

export interface RequestSpec {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  path: string;
  body?: unknown;
  contentType?: string;
  signal?: AbortSignal;
}

export class HttpTransport {
  private readonly server: URL;
  private agent: http.Agent | undefined;

  constructor(
    private readonly kubeConfig: KubeConfig,
    private readonly opts: TransportOptions = {},
  ) {
    const cluster = kubeConfig.getCurrentCluster();
    if (!cluster) throw new Error('kubeconfig has no current cluster');
    this.server = new URL(cluster.server);
  }

  /** Sends a request and returns the parsed JSON body (undefined when empty); rejects with ApiError on HTTP >= 400. */
  async request(spec: RequestSpec): Promise<unknown> {
    spec.signal?.throwIfAborted();
    const clock = this.opts.clock ?? new RealClock();
    const started = clock.now();
    await this.opts.limiter?.wait(spec.signal);
    const timeoutMs = this.opts.requestTimeoutMs ?? 60_000;
    const deadline = linkedAbort(spec.signal, {
      clock,
      ms: timeoutMs,
      reason: () => new RequestTimeoutError(`${spec.method} ${spec.path}: no answer within ${timeoutMs} ms`),
    });
    const signal = deadline.signal;
    let res: IncomingMessage;
    let text: string;
    try {
      res = await this.send({ ...spec, signal });
      text = await readBody(res, signal);
    } catch (err) {
      this.observe(spec.method, '<error>', started, clock);
      throw err;
    } finally {
      deadline.release();
    }
    this.observe(spec.method, String(res.statusCode ?? 0), started, clock);
    if ((res.statusCode ?? 0) >= 400) throw apiErrorFrom(res, text);
    if (!text) return undefined;
    try {
      return JSON.parse(text);
    } catch (err) {
      throw new Error(`${spec.method} ${spec.path}: response is not JSON (${res.statusCode})`, { cause: err });
    }
  }

  /** Opens a streaming GET (a watch); rejects with ApiError when the server answers >= 400. */
  async stream(path: string, signal: AbortSignal): Promise<IncomingMessage> {
    signal.throwIfAborted();
    const clock = this.opts.clock ?? new RealClock();
    const started = clock.now();
    await this.opts.limiter?.wait(signal);
    let res: IncomingMessage;
    try {
      res = await this.send({ method: 'GET', path, signal });
    } catch (err) {
      this.observe('GET', '<error>', started, clock);
      throw err;
    }
    // A watch's duration is its time to the response headers; the stream itself runs for minutes.
    this.observe('GET', String(res.statusCode ?? 0), started, clock);
    if ((res.statusCode ?? 0) >= 400) throw apiErrorFrom(res, await readBody(res, signal));
    return res;
  }

  /**
   * Sends the request; when a reused keep-alive connection fails it before its reply arrives and the
   * request is safe to replay, sends it again (each failed connection is destroyed, and one that was just
   * opened ends the replays, so this stops).
   */
  private async send(spec: RequestSpec): Promise<IncomingMessage> {
    for (;;) {
      try {
        return await this.sendOnce(spec);
      } catch (err) {
        if (!(err instanceof ReusedConnectionError) || !isReplaySafe(spec) || spec.signal?.aborted) throw err;
      }
    }
  }

  private async sendOnce(spec: RequestSpec): Promise<IncomingMessage> {
    const options: https.RequestOptions = {};
    await this.kubeConfig.applyToHTTPSOptions(options);
    const agent = this.sharedAgent(options.agent);
    const url = new URL(this.server.pathname.replace(/\/$/, '') + spec.path, this.server);
    const headers: Record<string, string> = { Accept: 'application/json' };
    for (const [k, v] of Object.entries(options.headers ?? {})) {
      if (typeof v === 'string' || typeof v === 'number') headers[k] = String(v);
    }
    if (this.opts.userAgent) headers['User-Agent'] = this.opts.userAgent;
    let payload: string | undefined;
    if (spec.body !== undefined) {
      payload = JSON.stringify(spec.body);
      headers['Content-Type'] = spec.contentType ?? 'application/json';
      headers['Content-Length'] = String(Buffer.byteLength(payload));
    }
    const mod = url.protocol === 'https:' ? https : http;
    const fence = spec.method === 'GET' ? undefined : this.opts.writeFence;
    // Checked after the last await before the request is made, and again below once its connection can
    // carry it: opening a connection takes a while, and a process paused meanwhile (SIGSTOP, a long GC)
    // must not send on resume a write it decided to send while it still led.
    fence?.check(spec.method, url.pathname);
    return new Promise<IncomingMessage>((resolve, reject) => {
      let refused = false;
      const req = mod.request(
        url,
        { method: spec.method, headers, agent, auth: options.auth, signal: spec.signal },
        resolve,
      );
      req.on('error', (err: NodeJS.ErrnoException) => {
        if (refused) return;
        if (spec.signal?.aborted) {
          reject(abortError(spec.signal));
          return;
        }
        // Rejected only when no reply has started (the promise is settled by then otherwise).
        const reused = req.reusedSocket && ConnectionClosedCodes.has(err.code ?? '');
        const message = `${spec.method} ${url.pathname}: ${err.message}`;
        reject(reused ? new ReusedConnectionError(message, { cause: err }) : new Error(message, { cause: err }));
      });
      if (!fence) {
        req.end(payload);
        return;
      }
      // Nothing is written before end(): the check and the write happen in one synchronous stretch.
      req.once('socket', (socket) =>
        whenConnected(socket, () => {
          try {
            fence.check(spec.method, url.pathname);
          } catch (err) {
            refused = true;
            req.destroy();
            reject(err instanceof Error ? err : new Error(String(err)));
            return;
          }
          req.end(payload);
        }),
      );
    });
  }

  /** One keep-alive agent per client, built from the TLS settings of the first agent the kubeconfig makes. */
  private sharedAgent(fromConfig: http.Agent | boolean | undefined): http.Agent | undefined {
    if (this.agent) return this.agent;
    if (!(fromConfig instanceof http.Agent)) return undefined;
    // `timeout` closes a connection idle that long in the pool; one carrying a request is left alone.
    const idle = this.opts.idleConnectionTimeoutMs ?? ClientIdleTimeoutMs;
    if (fromConfig.constructor === https.Agent) {
      this.agent = new https.Agent({
        ...(fromConfig as https.Agent).options,
        keepAlive: true,
        timeout: idle,
      });
    } else if (fromConfig.constructor === http.Agent) {
      this.agent = new http.Agent({ keepAlive: true, timeout: idle });
    } else {
      this.agent = fromConfig; // a proxy agent: keep it as configured
    }
    return this.agent;
  }

  private observe(method: string, code: string, started: number, clock: Clock): void {
    this.opts.metrics?.observe({ method, host: this.server.host, code, seconds: (clock.now() - started) / 1000 });
  }

  /** Closes idle keep-alive sockets. */
  close(): void {
    this.agent?.destroy();
    this.agent = undefined;
  }
}

/** Calls `go` once the socket can carry bytes to the server: TCP connected and, for TLS, handshaken. */
function whenConnected(socket: Socket, go: () => void): void {
  if (socket instanceof TLSSocket) {
    // 'unknown' while the handshake runs, null before the connection is up.
    const protocol = socket.getProtocol();
    if (protocol !== null && protocol !== 'unknown') go();
    else socket.once('secureConnect', go);
  } else if (socket.connecting) {
    socket.once('connect', go);
  } else {
    go();
  }
}

function readBody(res: IncomingMessage, signal?: AbortSignal): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    res.on('data', (c: Buffer) => chunks.push(c));
    res.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    res.on('error', (err) => reject(signal?.aborted ? abortError(signal) : err));
    res.on('aborted', () => reject(signal?.aborted ? abortError(signal) : new Error('response aborted')));
  });
}

const reasons: Record<number, string> = {
  400: 'BadRequest',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'NotFound',
  405: 'MethodNotAllowed',
  409: 'Conflict',
  410: 'Expired',
  415: 'UnsupportedMediaType',
  422: 'Invalid',
  429: 'TooManyRequests',
  500: 'InternalError',
  503: 'ServiceUnavailable',
  504: 'Timeout',
};

/** The server's Status when it sent one, else a Status built from the HTTP code and text. */
export function apiErrorFrom(res: IncomingMessage, text: string): ApiError {
  const code = res.statusCode ?? 0;
  let status: Status | undefined;
  try {
    const parsed = JSON.parse(text) as Status;
    if (parsed && typeof parsed === 'object' && parsed.kind === 'Status') status = parsed;
  } catch {
    // not JSON: fall through to a synthesized Status
  }
  status ??= {
    kind: 'Status',
    apiVersion: 'v1',
    status: 'Failure',
    code,
    reason: reasons[code] ?? 'Unknown',
    message: text.slice(0, 512) || res.statusMessage || `HTTP ${code}`,
  };
  const retryAfter = Number(res.headers['retry-after']);
  if (Number.isFinite(retryAfter) && status.details?.retryAfterSeconds === undefined) {
    status = { ...status, details: { ...status.details, retryAfterSeconds: retryAfter } };
  }
  return new ApiError(code, status);
}
