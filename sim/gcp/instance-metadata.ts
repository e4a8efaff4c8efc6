// The GCE metadata server of one emulated instance: /computeMetadata/v1/... answered only to requests carrying
// "Metadata-Flavor: Google" and never to a proxied one (X-Forwarded-For), with Metadata-Flavor and an ETag on
// every answer. instance/preempted is "FALSE" until GCE begins preempting the instance, then "TRUE".
// ?wait_for_change=true holds the request until the value's ETag differs from last_etag (at once when it
// already does) or timeout_sec passes, then answers with the current value, as the real server does.
import { createHash } from 'node:crypto';
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import type { GceState } from './gce-state.js';
import type { GceInstance } from './model.js';

const PREFIX = '/computeMetadata/v1/';
/** The real server caps a hanging GET at an hour. */
const MAX_WAIT_SEC = 3_600;

/** The request handler of the metadata server of the instance `find` returns (undefined once it is gone). */
export function gceMetadataHandler(state: GceState, find: () => GceInstance | undefined): RequestListener {
  return (req, res) => {
    const inst = find();
    // A stopped or deleted instance runs no guest: nothing answers.
    if (!inst || inst.deleting || state.status(inst) === 'TERMINATED') {
      req.socket.destroy();
      return;
    }
    if (req.headers['x-forwarded-for'] !== undefined || req.headers['metadata-flavor'] !== 'Google') {
      return reply(
        res,
        403,
        'Your client does not have permission to get URL from this server. Missing Metadata-Flavor:Google header.',
      );
    }
    if (req.method !== 'GET') return reply(res, 405, 'Method Not Allowed');
    const url = new URL(req.url ?? '/', 'http://metadata.google.internal');
    if (!url.pathname.startsWith(PREFIX)) return reply(res, 404, 'Not Found');
    const key = url.pathname.slice(PREFIX.length).replace(/\/$/, '');
    const read = (): string | undefined => {
      const now = find();
      return now ? valueOf(state, now, key) : undefined;
    };
    const value = read();
    if (value === undefined) return reply(res, 404, 'Not Found');
    if (url.searchParams.get('wait_for_change') !== 'true') return reply(res, 200, value);
    const timeoutSec = Number(url.searchParams.get('timeout_sec') ?? MAX_WAIT_SEC);
    if (!Number.isInteger(timeoutSec) || timeoutSec < 1)
      return reply(res, 400, 'Bad Request: timeout_sec must be a positive integer');
    waitForChange(
      state,
      req,
      res,
      read,
      url.searchParams.get('last_etag') ?? etagOf(value),
      Math.min(timeoutSec, MAX_WAIT_SEC),
    );
  };
}

function waitForChange(
  state: GceState,
  req: IncomingMessage,
  res: ServerResponse,
  read: () => string | undefined,
  lastEtag: string,
  timeoutSec: number,
): void {
  let done = false;
  const finish = (): void => {
    if (done) return;
    done = true;
    unsubscribe();
    timer.cancel();
    const value = read();
    if (value === undefined) req.socket.destroy();
    else reply(res, 200, value);
  };
  const unsubscribe = state.onChange(() => {
    const value = read();
    if (value === undefined || etagOf(value) !== lastEtag) finish();
  });
  const timer = state.clock.setTimeout(finish, timeoutSec * 1000);
  res.on('close', () => {
    done = true;
    unsubscribe();
    timer.cancel();
  });
  const now = read();
  if (now === undefined || etagOf(now) !== lastEtag) finish();
}

function valueOf(state: GceState, inst: GceInstance, key: string): string | undefined {
  switch (key) {
    case 'instance/preempted':
      return inst.preemption && inst.preemption.noticeAt <= state.clock.now() ? 'TRUE' : 'FALSE';
    case 'instance/id':
      return String(inst.resource.id);
    case 'instance/name':
    case 'instance/hostname':
      return key === 'instance/name' ? inst.name : `${inst.name}.${inst.zone}.c.${inst.project}.internal`;
    case 'instance/zone':
      return `projects/${state.world.projects.find((p) => p.name === inst.project)?.id ?? inst.project}/zones/${inst.zone}`;
    case 'project/project-id':
      return inst.project;
    default:
      return undefined;
  }
}

export function etagOf(value: string): string {
  return createHash('sha256').update(value).digest('hex').slice(0, 16);
}

function reply(res: ServerResponse, status: number, body: string): void {
  const headers: Record<string, string | number> = {
    'metadata-flavor': 'Google',
    'content-type': status === 200 ? 'application/text' : 'text/html; charset=UTF-8',
    'content-length': Buffer.byteLength(body),
    server: 'Metadata Server for VM',
  };
  if (status === 200) headers.etag = etagOf(body);
  res.writeHead(status, headers);
  res.end(body);
}
