// The Google API batch wire format (POST /batch/compute/v1): a multipart/mixed body whose parts are
// `application/http` requests, each answered in a multipart/mixed response by a part carrying the same
// Content-ID prefixed with "response-". gcloud sends one when a command touches several resources
// (`gcloud compute instances create a b c`). Parsing is plain string work: nothing here builds a RegExp
// from the request.
import { randomBytes } from 'node:crypto';
import { STATUS_CODES } from 'node:http';
import { GceApiError } from './api-error.js';

export const BATCH_PATH = '/batch/compute/v1';
/** Google refuses a batch of more calls than this. */
export const MAX_BATCH_CALLS = 1000;

export interface BatchedRequest {
  /** The part's Content-ID without angle brackets, if it had one. */
  contentId?: string;
  method: string;
  /** Path and query of the inner request, e.g. "/compute/v1/projects/p/zones/z/instances". */
  target: string;
  headers: Record<string, string>;
  body: string;
}

export interface BatchedReply {
  contentId?: string;
  status: number;
  body: unknown;
}

const badRequest = (message: string) => new GceApiError(400, 'badRequest', message);

/** The `boundary` parameter of a multipart/mixed content type, or a 400 naming what is wrong. */
export function boundaryOf(contentType: string | undefined): string {
  const [mediaType = '', ...params] = (contentType ?? '').split(';');
  if (mediaType.trim().toLowerCase() !== 'multipart/mixed') {
    throw badRequest(`Content-Type: a batch request must be multipart/mixed, not "${mediaType.trim()}"`);
  }
  for (const p of params) {
    const eq = p.indexOf('=');
    if (eq < 0 || p.slice(0, eq).trim().toLowerCase() !== 'boundary') continue;
    let value = p.slice(eq + 1).trim();
    if (value.length >= 2 && value.startsWith('"') && value.endsWith('"')) value = value.slice(1, -1);
    if (value) return value;
  }
  throw badRequest('Content-Type: a multipart/mixed batch request needs a boundary parameter');
}

/** Splits "headers, blank line, body" (CRLF or LF line ends) into lower-cased headers and the body. */
function splitHead(text: string): { headLines: string[]; body: string } {
  const crlf = text.indexOf('\r\n\r\n');
  const lf = text.indexOf('\n\n');
  let end: number;
  let sep: number;
  if (crlf >= 0 && (lf < 0 || crlf < lf)) [end, sep] = [crlf, 4];
  else if (lf >= 0) [end, sep] = [lf, 2];
  else [end, sep] = [text.length, 0];
  const head = text.slice(0, end);
  return {
    headLines: head.length > 0 ? head.split('\n').map((l) => (l.endsWith('\r') ? l.slice(0, -1) : l)) : [],
    body: text.slice(end + sep),
  };
}

function readHeaders(lines: string[], where: string): Record<string, string> {
  const headers: Record<string, string> = {};
  let last: string | undefined;
  for (const line of lines) {
    // A part that ends right after its headers has no blank line left once the delimiter took its line break.
    if (line === '') continue;
    if ((line.startsWith(' ') || line.startsWith('\t')) && last) {
      headers[last] += ` ${line.trim()}`;
      continue;
    }
    const colon = line.indexOf(':');
    if (colon <= 0) throw badRequest(`${where}: malformed header line "${line}"`);
    last = line.slice(0, colon).trim().toLowerCase();
    headers[last] = line.slice(colon + 1).trim();
  }
  return headers;
}

function stripLineEnd(s: string): string {
  if (s.endsWith('\r\n')) return s.slice(0, -2);
  return s.endsWith('\n') ? s.slice(0, -1) : s;
}

/** The requests of a batch body, in order. */
export function parseBatchRequest(contentType: string | undefined, body: string): BatchedRequest[] {
  const delimiter = `--${boundaryOf(contentType)}`;
  const chunks = body.split(delimiter);
  if (chunks.length < 2) throw badRequest('batch body: no part starts with the boundary given in Content-Type');
  const requests: BatchedRequest[] = [];
  let closed = false;
  for (const [i, raw] of chunks.slice(1).entries()) {
    if (raw.startsWith('--')) {
      closed = true;
      break;
    }
    const where = `batch part ${i + 1}`;
    // The line break before a delimiter belongs to the delimiter; the rest of the delimiter line is padding.
    const firstBreak = raw.indexOf('\n');
    const chunk = stripLineEnd(firstBreak < 0 ? '' : raw.slice(firstBreak + 1));
    const part = splitHead(chunk);
    const partHeaders = readHeaders(part.headLines, where);
    const partType = (partHeaders['content-type'] ?? '').split(';')[0]?.trim().toLowerCase();
    if (partType !== 'application/http')
      throw badRequest(`${where}: Content-Type must be application/http, not "${partType ?? ''}"`);
    const idHeader = partHeaders['content-id'];
    const contentId = idHeader?.startsWith('<') && idHeader.endsWith('>') ? idHeader.slice(1, -1) : idHeader;

    const inner = part.body.replace(/^(\r?\n)+/, '');
    const lineEnd = inner.indexOf('\n');
    const requestLine = (lineEnd < 0 ? inner : inner.slice(0, lineEnd)).trim();
    const [method, target, version] = requestLine.split(' ');
    if (!method || !target || (version !== undefined && !version.startsWith('HTTP/'))) {
      throw badRequest(`${where}: the request line must be "METHOD /path HTTP/1.1", not "${requestLine}"`);
    }
    const rest = splitHead(lineEnd < 0 ? '' : inner.slice(lineEnd + 1));
    const headers = readHeaders(rest.headLines, where);
    requests.push({ contentId, method: method.toUpperCase(), target, headers, body: rest.body.trim() });
    if (requests.length > MAX_BATCH_CALLS)
      throw badRequest(`batch body: at most ${MAX_BATCH_CALLS} calls are allowed in one batch request`);
  }
  if (!closed) throw badRequest(`batch body: the closing boundary "${delimiter}--" is missing`);
  return requests;
}

/** The multipart/mixed answer to a batch: one application/http part per reply, in the order given. */
export function renderBatchResponse(
  replies: BatchedReply[],
  boundary = `batch_${randomBytes(12).toString('hex')}`,
): { contentType: string; body: string } {
  const parts = replies.map((r) => {
    const json = JSON.stringify(r.body);
    return [
      `--${boundary}`,
      'Content-Type: application/http',
      ...(r.contentId !== undefined ? [`Content-ID: <response-${r.contentId}>`] : []),
      '',
      `HTTP/1.1 ${r.status} ${STATUS_CODES[r.status] ?? ''}`,
      'Content-Type: application/json; charset=UTF-8',
      'Vary: Origin, X-Origin, Referer',
      `Content-Length: ${Buffer.byteLength(json)}`,
      '',
      json,
    ].join('\r\n');
  });
  return {
    contentType: `multipart/mixed; boundary=${boundary}`,
    body: `${[...parts, `--${boundary}--`].join('\r\n')}\r\n`,
  };
}
