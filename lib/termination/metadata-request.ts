// One HTTP request to an instance metadata service, as every cloud's notice reader makes it: bounded in time
// (the service is local to the instance and answers within milliseconds, so a slow answer means it is not
// there), aborted with the caller's signal, the body read in full. Failures become MetadataServiceError.
import { linkedAbort } from '../base/linked-abort.js';
import { RealClock } from '../base/real-clock.js';
import { MetadataServiceError } from './termination-notice.js';

export interface MetadataRequest {
  /** The service's base URL, e.g. "http://169.254.169.254"; the path is appended to it. */
  base: string;
  path: string;
  method?: 'GET' | 'PUT';
  headers?: Record<string, string>;
  /** The caller's signal (the handler stopping). */
  signal: AbortSignal;
  /** Gives up after this long; default 5 s. */
  timeoutMs?: number;
}

export interface MetadataResponse {
  status: number;
  body: string;
  headers: Headers;
}

const DEFAULT_TIMEOUT_MS = 5_000;

/** Resolves with any HTTP answer; rejects only when there was none (refused, reset, timed out) or on abort. */
export async function metadataRequest(req: MetadataRequest): Promise<MetadataResponse> {
  const url = metadataUrl(req.base, req.path);
  // Not AbortSignal.any(): with the handler's stop signal, which lives as long as the process, each poll would
  // leave an entry behind for good (see linked-abort.ts).
  const timeoutMs = req.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const link = linkedAbort(req.signal, {
    clock: new RealClock(),
    ms: timeoutMs,
    reason: () => new DOMException(`no answer within ${timeoutMs} ms`, 'TimeoutError'),
  });
  try {
    const res = await fetch(url, {
      method: req.method ?? 'GET',
      headers: req.headers,
      signal: link.signal,
      redirect: 'manual',
    });
    const body = await res.text();
    return { status: res.status, body, headers: res.headers };
  } catch (err) {
    if (req.signal.aborted) throw req.signal.reason;
    throw new MetadataServiceError(req.path, undefined, `no answer from ${url.origin}: ${(err as Error).message}`);
  } finally {
    link.release();
  }
}

/** base + path, keeping any path of the base (as the SDKs do with an endpoint override); path may carry a query. */
export function metadataUrl(base: string, path: string): URL {
  const url = new URL(base);
  const q = path.indexOf('?');
  url.pathname = url.pathname.replace(/\/+$/, '') + (q < 0 ? path : path.slice(0, q));
  url.search = q < 0 ? '' : path.slice(q);
  return url;
}
