// Request bodies (size-limited) and JSON responses.
import type { IncomingMessage, ServerResponse } from 'node:http';
import * as E from './errors.js';
import { checkJsonTextDepth } from './json-depth.js';

/** Reads the whole body; a body over `limit` bytes is a 413 and the rest is not read. */
export async function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  const declared = Number(req.headers['content-length'] ?? '0');
  if (declared > limit) {
    req.resume();
    throw E.tooLarge(limit);
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    const buf = chunk as Buffer;
    size += buf.length;
    if (size > limit) {
      req.resume();
      throw E.tooLarge(limit);
    }
    chunks.push(buf);
  }
  return Buffer.concat(chunks);
}

/** JSON.parse with kube's 400 for bodies that are not JSON or that nest too deeply. */
export function parseJsonBody(buf: Buffer): unknown {
  const text = buf.toString('utf8');
  if (text.trim() === '') throw E.badRequest('the request body is empty; a JSON object is required');
  checkJsonTextDepth(text);
  try {
    return JSON.parse(text);
  } catch (err) {
    throw E.badRequest(`error decoding body: couldn't get version/kind; json parse error: ${(err as Error).message}`);
  }
}

export function sendJsonText(res: ServerResponse, code: number, text: string): void {
  res.writeHead(code, {
    'Content-Type': 'application/json',
    'Content-Length': Buffer.byteLength(text),
    'Cache-Control': 'no-cache, private',
  });
  res.end(text);
}

export function sendJson(res: ServerResponse, code: number, body: unknown): void {
  sendJsonText(res, code, JSON.stringify(body));
}

export function sendError(res: ServerResponse, err: E.StatusError): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  sendJson(res, err.code, err.toStatus());
}

/** The media type of a Content-Type header without parameters. */
export function mediaType(header: string | undefined): string {
  return (header ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
}
