// One HTTP request → one Query-protocol call: parse and check the form body, pick the service by Version,
// run the fault knobs, apply the action, and answer in that service's XML (or lose the reply on purpose).
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from '../../lib/index.js';
import { readBodyOrRefuse, runEmulatedCall, withUnexpectedFailureReply } from '../kit/index.js';
import { ACTIONS } from './action-tables.js';
import { Ec2ApiError } from './api-error.js';
import type { Ec2State } from './ec2-state.js';
import type { AccessKeyStore } from './access-keys.js';
import { checkAuth } from './request-auth.js';
import { QueryParams } from './query-params.js';
import { actionKey, errorXml, SERVICE_BY_VERSION, successXml, type ServiceName } from './wire.js';
import { renderXml } from './xml.js';

export interface RequestHandlerOptions {
  state: Ec2State;
  region: string;
  maxBodyBytes: number;
  /** The account's long-term keys: every signed call is checked against their secrets. */
  accessKeys: AccessKeyStore;
  /** Aborted when the emulator stops: calls still waiting out a latency end without applying. */
  shutdown: AbortSignal;
  log?: Logger;
}

export function createRequestHandler(o: RequestHandlerOptions): (req: IncomingMessage, res: ServerResponse) => void {
  const st = o.state;
  const knobs = st.knobs;
  const log = o.log;
  const maxBody = o.maxBodyBytes;
  const shutdown = o.shutdown;
  const region = o.region;

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const requestId = randomUUID();
    const fail = (service: ServiceName, status: number, code: string, message: string) =>
      send(res, service, status, errorXml(service, status, code, message, requestId), requestId);

    if (req.method !== 'POST' && req.method !== 'GET') {
      req.resume();
      fail('ec2', 405, 'UnsupportedHttpVerb', `The HTTP verb ${req.method ?? ''} is not supported; use POST or GET`);
      return;
    }
    const body = await readBodyOrRefuse(
      req,
      res,
      maxBody,
      () => fail('ec2', 413, 'RequestEntityTooLarge', `The request body exceeds ${maxBody} bytes`),
      { knobs },
    );
    if (body === undefined) return;
    const contentType = req.headers['content-type'] ?? '';
    if (body.length > 0 && contentType !== '' && !contentType.startsWith('application/x-www-form-urlencoded')) {
      fail(
        'ec2',
        400,
        'MalformedQueryString',
        `Unsupported content type '${contentType}': the Query protocol expects application/x-www-form-urlencoded`,
      );
      return;
    }
    const url = new URL(req.url ?? '/', 'http://localhost');
    const raw = `${url.search.slice(1)}&${body}`;
    if (/%(?![0-9A-Fa-f]{2})/.test(raw)) {
      fail('ec2', 400, 'MalformedQueryString', 'The query string contains an invalid percent-encoding');
      return;
    }
    const params = QueryParams.fromSearchParams(new URLSearchParams(raw));
    const action = params.get('Action');
    const version = params.get('Version');
    if (!action) {
      fail('ec2', 400, 'MissingAction', 'The request must contain the parameter Action');
      return;
    }
    if (!version) {
      fail('ec2', 400, 'MissingParameter', 'The request must contain the parameter Version');
      return;
    }
    const service = SERVICE_BY_VERSION[version];
    if (!service) {
      fail(
        'ec2',
        400,
        'NoSuchVersion',
        `The requested version (${version}) of service is not supported by this emulator`,
      );
      return;
    }
    const handler = ACTIONS[service][action];
    if (!handler) {
      fail(service, 400, 'InvalidAction', `The action ${action} is not valid for this web service.`);
      return;
    }
    // AssumeRoleWithWebIdentity is unsigned on AWS: the web identity token is the credential.
    const authError =
      service === 'sts'
        ? undefined
        : checkAuth(
            { method: req.method ?? 'POST', url: req.url ?? '/', rawHeaders: req.rawHeaders, body },
            req.headers['x-amz-security-token'],
            { region, service, keys: o.accessKeys, sessions: st.sessions },
          );
    if (authError) {
      fail(service, authError.status, authError.code, authError.message);
      return;
    }

    const key = actionKey(service, action);
    await runEmulatedCall({
      knobs,
      action: key,
      res,
      signal: shutdown,
      apply: () => {
        st.advance();
        return handler({ params, state: st });
      },
      reply: (result) => {
        send(res, service, 200, successXml(service, action, renderXml(result), requestId), requestId);
        log?.debug('ec2 emulator call', { action: key, status: 200 }, 4);
      },
      replyFault: (fault) => {
        if (fault.kind !== 'lost-reply')
          log?.debug(
            'ec2 emulator call',
            { action: key, status: fault.status, code: fault.code, fault: fault.kind },
            4,
          );
        fail(service, fault.status, fault.code, fault.message);
      },
      replyApiError: (err) => {
        if (!(err instanceof Ec2ApiError)) return false;
        log?.debug('ec2 emulator call', { action: key, status: err.status, code: err.code }, 4);
        fail(service, err.status, err.code, err.message);
        return true;
      },
    });
  }

  return withUnexpectedFailureReply(handle, {
    log,
    emulator: 'ec2',
    answer500: (res) =>
      send(res, 'ec2', 500, errorXml('ec2', 500, 'InternalError', 'An internal error has occurred', randomUUID()), ''),
  });
}

function send(res: ServerResponse, service: ServiceName, status: number, xml: string, requestId: string): void {
  res.writeHead(status, {
    'content-type': 'text/xml;charset=UTF-8',
    'content-length': Buffer.byteLength(xml),
    'x-amzn-requestid': requestId,
    server: service === 'ec2' ? 'AmazonEC2' : 'AmazonELB',
  });
  res.end(xml);
}
