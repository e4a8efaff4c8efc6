// One IBM Cloud REST service (VPC, Resource Manager or Global Tagging) on ibm-cloud-sdk-core's BaseService:
// JSON in and out, the service's fixed query parameters on every call, errors mapped to VpcApiError, and
// collection paging that follows `next.href` until the last page. SDK retries stay off: the controller
// retries with backoff, and a retried POST must not be able to create a second instance.
import { BaseService, type AuthenticatorInterface } from 'ibm-cloud-sdk-core';
import type { OutboundAgents } from '../../lib/index.js';
import { toVpcApiError, VpcApiError, type IbmService } from './vpc-api-error.js';

export type QueryValue = string | number | boolean | undefined;

export interface RestCall {
  operation: string;
  method: 'GET' | 'POST' | 'DELETE';
  /** Path below the service URL with {placeholders}, e.g. "/instances/{id}". */
  path: string;
  pathParams?: Record<string, string>;
  query?: Record<string, QueryValue>;
  body?: unknown;
  signal?: AbortSignal;
}

export interface RestServiceOptions {
  service: IbmService;
  serviceUrl: string;
  authenticator: AuthenticatorInterface;
  /** Sent on every call of this service, e.g. VPC's version and generation. */
  fixedQuery?: Record<string, QueryValue>;
  timeoutMs: number;
  /** Proxy- and CA-aware agents (lib's OutboundHttp); unset = axios's defaults. */
  agents?: OutboundAgents;
}

/**
 * The axios settings that route a call through `agents`. `proxy: false` stops axios from applying
 * HTTP(S)_PROXY itself on top: the agents already chose direct or proxied, honouring NO_PROXY.
 */
export function axiosTransport(agents: OutboundAgents | undefined): Record<string, unknown> {
  return agents ? { httpAgent: agents.http, httpsAgent: agents.https, proxy: false } : {};
}

interface SdkResponse {
  result?: unknown;
  status: number;
}

/** Removes undefined values; the SDK would otherwise send "undefined". */
function compact(q: Record<string, QueryValue>): Record<string, string | number | boolean> {
  const out: Record<string, string | number | boolean> = {};
  for (const [k, v] of Object.entries(q)) if (v !== undefined) out[k] = v;
  return out;
}

export class IbmRestService extends BaseService {
  constructor(private readonly opts: RestServiceOptions) {
    super({ authenticator: opts.authenticator, serviceUrl: opts.serviceUrl, ...axiosTransport(opts.agents) });
    this.setServiceUrl(opts.serviceUrl);
    this.disableRetries();
  }

  get serviceUrl(): string {
    return this.opts.serviceUrl;
  }

  async call<T>(c: RestCall): Promise<T> {
    const headers: Record<string, string> = {};
    if (c.method !== 'DELETE') headers.Accept = 'application/json';
    if (c.body !== undefined) headers['Content-Type'] = 'application/json';
    let res: SdkResponse;
    try {
      res = (await this.createRequest({
        options: {
          url: c.path,
          method: c.method,
          path: c.pathParams ?? {},
          qs: compact({ ...this.opts.fixedQuery, ...c.query }),
          body: c.body,
          axiosOptions: { signal: c.signal, timeout: this.opts.timeoutMs },
        },
        defaultOptions: { ...this.baseOptions, serviceUrl: this.opts.serviceUrl, headers },
      })) as SdkResponse;
    } catch (err) {
      if (c.signal?.aborted) throw c.signal.reason;
      throw toVpcApiError(err, this.opts.service, c.operation);
    }
    return res.result as T;
  }

  /**
   * Every item of a paged collection: follows `next.href`'s `start` token until there is no `next`.
   * `limit` is the page size to ask for (omitted for collections that do not page).
   */
  async listAll<T>(c: Omit<RestCall, 'method' | 'body'> & { itemsKey: string; limit?: number }): Promise<T[]> {
    const items: T[] = [];
    const seen = new Set<string>();
    let start: string | undefined;
    for (;;) {
      const page = await this.call<Record<string, unknown>>({
        ...c,
        method: 'GET',
        query: { ...c.query, limit: c.limit, start },
      });
      const got = page?.[c.itemsKey];
      if (!Array.isArray(got)) throw this.malformed(c.operation, `the response has no "${c.itemsKey}" array`);
      items.push(...(got as T[]));
      const next = nextStart(page.next);
      if (next === null) throw this.malformed(c.operation, 'next.href carries no start token');
      if (next === undefined) return items;
      start = next;
      // A server that hands back a token it already gave would otherwise page forever.
      if (seen.has(start)) throw this.malformed(c.operation, `pagination repeated the start token "${start}"`);
      seen.add(start);
    }
  }

  private malformed(operation: string, message: string): VpcApiError {
    return new VpcApiError({ service: this.opts.service, operation, status: 200, code: 'malformed_response', message });
  }
}

/** The `start` query parameter of a collection's `next.href`; undefined on the last page, null when missing. */
export function nextStart(next: unknown): string | undefined | null {
  if (!next || typeof next !== 'object') return undefined;
  const href = (next as { href?: unknown }).href;
  if (typeof href !== 'string' || href === '') return undefined;
  let start: string | null;
  try {
    start = new URL(href).searchParams.get('start');
  } catch {
    start = null;
  }
  return start === null || start === '' ? null : start;
}
