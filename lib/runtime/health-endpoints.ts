// /healthz and /readyz as controller-runtime serves them (pkg/healthz): the bare path runs every check and
// answers "ok" (200) or lists them ("[+]name ok", "[-]name failed: reason withheld") with "healthz check
// failed" (500); `?verbose` lists them when all pass too, ending "healthz check passed"; `?exclude=name`
// skips one. /healthz/<name> runs that check alone: "ok", or 500 "internal server error: <reason>"; an
// unknown name is 404. With no checks at all, a "ping" that always passes stands in.
import { posix } from 'node:path';
import { goQuote } from '../base/go-quote.js';

/** Resolves when healthy; throws (with a reason) when not. */
export type HealthCheck = () => void | Promise<void>;

export interface HealthResponse {
  status: number;
  contentType: string;
  body: string;
}

const TEXT = 'text/plain; charset=utf-8';

/**
 * Answers a request below the endpoint: `subpath` is what follows "/healthz" ("" or "/", or "/<name>").
 * `onFailure` hears each failed check's reason, which the response withholds.
 */
export async function serveHealth(
  checks: ReadonlyMap<string, HealthCheck>,
  subpath: string,
  query: URLSearchParams,
  onFailure: (name: string, err: unknown) => void = () => undefined,
): Promise<HealthResponse> {
  const path = posix.normalize(subpath.startsWith('/') ? subpath : `/${subpath}`).replace(/(.)\/$/, '$1');
  if (path === '/') return aggregated(checks, query, onFailure);
  const name = path.slice(1);
  const check = checks.get(name) ?? (checks.size === 0 && name === 'ping' ? ping : undefined);
  if (!check) return { status: 404, contentType: TEXT, body: '404 page not found\n' };
  try {
    await check();
    return { status: 200, contentType: TEXT, body: 'ok' };
  } catch (err) {
    onFailure(name, err);
    return { status: 500, contentType: TEXT, body: `internal server error: ${reason(err)}\n` };
  }
}

const ping: HealthCheck = () => undefined;

async function aggregated(
  checks: ReadonlyMap<string, HealthCheck>,
  query: URLSearchParams,
  onFailure: (name: string, err: unknown) => void,
): Promise<HealthResponse> {
  const excluded = new Set(query.getAll('exclude'));
  const parts: Array<{ name: string; line: string; failed: boolean }> = [];
  for (const [name, check] of checks) {
    if (excluded.delete(name)) {
      parts.push({ name, line: `[+]${name} excluded: ok`, failed: false });
      continue;
    }
    try {
      await check();
      parts.push({ name, line: `[+]${name} ok`, failed: false });
    } catch (err) {
      onFailure(name, err);
      parts.push({ name, line: `[-]${name} failed: reason withheld`, failed: true });
    }
  }
  if (checks.size === 0) parts.push({ name: 'ping', line: '[+]ping ok', failed: false });
  const failed = parts.some((p) => p.failed);
  if (!failed && !query.has('verbose')) return { status: 200, contentType: TEXT, body: 'ok' };
  parts.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  let body = parts.map((p) => `${p.line}\n`).join('');
  if (excluded.size > 0) {
    const names = [...excluded].sort().map(goQuote);
    body += `warn: some health checks cannot be excluded: no matches for ${names.join(',')}\n`;
  }
  body += failed ? 'healthz check failed\n' : 'healthz check passed\n';
  return { status: failed ? 500 : 200, contentType: TEXT, body };
}

function reason(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
