// One HTTP request → one compute/v1 call (or a batch of them at /batch/compute/v1, or a token service call):
// check the bearer token when asked to, route by method and path, run the fault knobs, apply the call, and
// answer in GCE's JSON (or lose the reply on purpose).
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from '../../lib/index.js';
import { readBodyOrRefuse, runEmulatedCall, withUnexpectedFailureReply } from '../kit/index.js';
import { GceApiError } from './api-error.js';
import { BATCH_PATH, parseBatchRequest, renderBatchResponse, type BatchedReply, type BatchedRequest } from './batch.js';
import type { GceState } from './gce-state.js';
import { matchRoute } from './routes.js';
import type { TokenService } from './token-service.js';
import { domainOf, errorBody } from './wire.js';

export interface RequestHandlerOptions {
  state: GceState;
  tokens: TokenService;
  /** Compute calls must carry a bearer token the token service issued and that has not expired. */
  requireAuth?: boolean;
  maxBodyBytes: number;
  /** Aborted when the emulator stops: calls still waiting out a latency end without applying. */
  shutdown: AbortSignal;
  log?: Logger;
}

interface Reply {
  status: number;
  body: unknown;
}

export function createRequestHandler(o: RequestHandlerOptions): (req: IncomingMessage, res: ServerResponse) => void {
  const st = o.state;
  const knobs = st.knobs;
  const tokens = o.tokens;
  const maxBody = o.maxBodyBytes;

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const method = req.method ?? 'GET';
    const body = await readBodyOrRefuse(
      req,
      res,
      maxBody,
      () => sendJson(res, 413, errorBody(413, 'requestTooLarge', `The request body exceeds ${maxBody} bytes`)),
      { knobs },
    );
    if (body === undefined) return;
    if (tokens.handles(method, url.pathname)) {
      const reply = tokens.handle(url.pathname, req.headers.authorization, body);
      sendJson(res, reply.status, reply.body);
      return;
    }
    if (o.requireAuth && !tokens.validToken(req.headers.authorization)) {
      sendJson(
        res,
        401,
        errorBody(
          401,
          'authError',
          'Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential.',
        ),
      );
      return;
    }
    if (url.pathname.replace(/\/$/, '') === BATCH_PATH) {
      await handleBatch(method, req.headers['content-type'], body, res);
      return;
    }
    const reply = await answer(method, url, body, res);
    if (reply) sendJson(res, reply.status, reply.body);
  }

  /** Each inner call goes through the same routes, knobs and counters as when it is sent on its own. */
  async function handleBatch(
    method: string,
    contentType: string | undefined,
    body: string,
    res: ServerResponse,
  ): Promise<void> {
    if (method !== 'POST') {
      sendJson(
        res,
        405,
        errorBody(405, 'httpMethodNotAllowed', `The HTTP method ${method} is not allowed for ${BATCH_PATH}.`),
      );
      return;
    }
    let requests: BatchedRequest[];
    try {
      requests = parseBatchRequest(contentType, body);
    } catch (err) {
      if (!(err instanceof GceApiError)) throw err;
      sendJson(res, err.status, errorBody(err.status, err.reason, err.message, err.domain));
      return;
    }
    const replies: BatchedReply[] = [];
    for (const r of requests) {
      const reply = await answer(r.method, new URL(r.target, 'http://localhost'), r.body, res);
      // The knobs dropped the connection (a lost reply): the whole batch answer is lost with it.
      if (!reply) return;
      replies.push({ contentId: r.contentId, ...reply });
    }
    const out = renderBatchResponse(replies);
    res.writeHead(200, {
      'content-type': out.contentType,
      'content-length': Buffer.byteLength(out.body),
      vary: 'Origin, X-Origin, Referer',
      server: 'ESF',
    });
    res.end(out.body);
  }

  /** The status and JSON answering one API call; undefined when no answer is to be sent (connection gone). */
  async function answer(method: string, url: URL, body: string, res: ServerResponse): Promise<Reply | undefined> {
    const fail = (status: number, reason: string, message: string, domain = 'global'): Reply => ({
      status,
      body: errorBody(status, reason, message, domain),
    });
    let segments: string[];
    try {
      segments = url.pathname.slice(1).replace(/\/$/, '').split('/').map(decodeURIComponent);
    } catch {
      return fail(400, 'badRequest', 'The request path contains an invalid percent-encoding');
    }
    const match = matchRoute(method, segments);
    if (!match) return fail(404, 'notFound', `The requested URL ${url.pathname} was not found on this server.`);
    if ('methodNotAllowed' in match)
      return fail(405, 'httpMethodNotAllowed', `The HTTP method ${method} is not allowed for ${url.pathname}.`);
    let parsed: unknown;
    if (body.length > 0) {
      try {
        parsed = JSON.parse(body);
      } catch (err) {
        return fail(400, 'parseError', `Invalid JSON payload received. ${(err as Error).message}`);
      }
    }

    const action = match.route.action;
    const abort = new AbortController();
    const onGone = () => abort.abort();
    res.on('close', onGone);
    o.shutdown.addEventListener('abort', onGone, { once: true });
    let reply: Reply | undefined;
    try {
      await runEmulatedCall({
        knobs,
        action,
        res,
        signal: abort.signal,
        apply: () => {
          st.advance();
          return match.route.handler({
            state: st,
            params: match.params,
            query: url.searchParams,
            body: parsed,
            signal: abort.signal,
          });
        },
        reply: (result) => {
          reply = { status: 200, body: result };
        },
        replyFault: (fault) => {
          reply = fail(fault.status, fault.code, fault.message, domainOf(fault.code));
        },
        replyApiError: (err) => {
          if (!(err instanceof GceApiError)) return false;
          reply = fail(err.status, err.reason, err.message, err.domain);
          return true;
        },
      });
    } finally {
      res.off('close', onGone);
      o.shutdown.removeEventListener('abort', onGone);
    }
    return reply;
  }

  return withUnexpectedFailureReply(handle, {
    log: o.log,
    emulator: 'gce',
    answer500: (res) => sendJson(res, 500, errorBody(500, 'internalError', 'Internal Error')),
  });
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json; charset=UTF-8',
    'content-length': Buffer.byteLength(text),
    vary: 'Origin, X-Origin, Referer',
    server: 'ESF',
  });
  res.end(text);
}
