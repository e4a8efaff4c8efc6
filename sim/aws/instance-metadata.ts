// The EC2 instance metadata service (IMDS) of one emulated instance, IMDSv2 included: PUT /latest/api/token
// issues a session token for 1–21600 s (X-aws-ec2-metadata-token-ttl-seconds), refused with 403 when the
// request carries X-Forwarded-For (IMDS never serves through a proxy); GETs under /latest/meta-data/ need a
// valid token when the instance requires IMDSv2 (HttpTokens=required) and answer 401 for an unknown or expired
// one. The hop limit: IMDS sends the token reply with an IP TTL of HttpPutResponseHopLimit, so a caller more
// hops away (a container without host networking behind a limit of 1) never receives it. Loopback has no hops,
// so a caller's distance is part of its endpoint (see Ec2Emulator.metadataEndpoint) and the reply is dropped
// the same way: the connection ends without an answer.
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import type { Ec2State } from './ec2-state.js';
import type { Ec2Instance } from './model.js';

export const TOKEN_TTL_HEADER = 'x-aws-ec2-metadata-token-ttl-seconds';
export const TOKEN_HEADER = 'x-aws-ec2-metadata-token';
const MAX_TOKEN_TTL_SECONDS = 21_600;

interface SessionToken {
  instanceId: string;
  expiresAt: number;
}

/** Tokens issued by every instance's IMDS; a token is valid only on the instance that issued it. */
export class ImdsTokens {
  private readonly tokens = new Map<string, SessionToken>();

  constructor(private readonly state: Ec2State) {}

  issue(instanceId: string, ttlSeconds: number): string {
    const now = this.state.clock.now();
    for (const [t, s] of this.tokens) if (s.expiresAt <= now) this.tokens.delete(t);
    const token = `AQAEA${this.state.knobs.random.hex(16)}${this.state.knobs.random.hex(16)}==`;
    this.tokens.set(token, { instanceId, expiresAt: now + ttlSeconds * 1000 });
    return token;
  }

  valid(token: string, instanceId: string): boolean {
    const s = this.tokens.get(token);
    return s !== undefined && s.instanceId === instanceId && s.expiresAt > this.state.clock.now();
  }
}

/** The request handler of `instanceId`'s IMDS as seen by a caller `hops` network hops away (1 = on the host). */
export function imdsHandler(state: Ec2State, tokens: ImdsTokens, instanceId: string, hops: number): RequestListener {
  return (req, res) => {
    const inst = state.instance(instanceId);
    // A terminated instance (or one long gone) has no metadata service: nothing answers.
    if (!inst || inst.state === 'terminated' || inst.state === 'stopped') {
      req.socket.destroy();
      return;
    }
    if (inst.metadataOptions.httpEndpoint === 'disabled') return reply(res, 403, 'Forbidden');
    const path = new URL(req.url ?? '/', 'http://imds').pathname;
    if (req.method === 'PUT' && path === '/latest/api/token') return issueToken(req, res, inst, tokens, hops);
    if (req.method !== 'GET' && req.method !== 'HEAD') return reply(res, 405, 'Method Not Allowed');
    const token = header(req, TOKEN_HEADER);
    if (token !== undefined ? !tokens.valid(token, inst.instanceId) : inst.metadataOptions.httpTokens === 'required') {
      return reply(res, 401, 'Unauthorized');
    }
    const value = metadataValue(state, inst, path);
    if (value === undefined) return reply(res, 404, 'Not Found');
    reply(res, 200, value);
  };
}

function issueToken(
  req: IncomingMessage,
  res: ServerResponse,
  inst: Ec2Instance,
  tokens: ImdsTokens,
  hops: number,
): void {
  if (req.headers['x-forwarded-for'] !== undefined) return reply(res, 403, 'Forbidden');
  const raw = header(req, TOKEN_TTL_HEADER);
  const ttl = Number(raw);
  if (raw === undefined || !Number.isInteger(ttl) || ttl < 1 || ttl > MAX_TOKEN_TTL_SECONDS)
    return reply(res, 400, 'Bad Request');
  if (hops > inst.metadataOptions.httpPutResponseHopLimit) {
    // The reply's IP TTL runs out on the way back: the caller never hears from IMDS.
    req.socket.destroy();
    return;
  }
  res.setHeader(TOKEN_TTL_HEADER, String(ttl));
  reply(res, 200, tokens.issue(inst.instanceId, ttl));
}

/** The documents this emulator serves; undefined = 404 (as IMDS answers for a notice not yet given). */
function metadataValue(state: Ec2State, inst: Ec2Instance, path: string): string | undefined {
  const notice = inst.spotInterruption;
  const now = state.clock.now();
  switch (path.replace(/\/$/, '')) {
    case '/latest/meta-data/instance-id':
      return inst.instanceId;
    case '/latest/meta-data/instance-type':
      return inst.instanceType;
    case '/latest/meta-data/placement/availability-zone':
      return inst.availabilityZone;
    case '/latest/meta-data/placement/region':
      return state.region;
    case '/latest/meta-data/local-ipv4':
      return inst.privateIpAddress;
    case '/latest/meta-data/instance-life-cycle':
      return inst.lifecycle ?? 'on-demand';
    case '/latest/meta-data/spot/instance-action':
      return notice && notice.noticeAt <= now
        ? JSON.stringify({ action: notice.action, time: isoSeconds(notice.reclaimAt) })
        : undefined;
    case '/latest/meta-data/spot/termination-time':
      return notice && notice.noticeAt <= now && notice.action === 'terminate'
        ? isoSeconds(notice.reclaimAt)
        : undefined;
    default:
      return undefined;
  }
}

function header(req: IncomingMessage, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
}

function reply(res: ServerResponse, status: number, body: string): void {
  res.writeHead(status, {
    'content-type': status === 200 ? 'text/plain' : 'text/html',
    'content-length': Buffer.byteLength(body),
    server: 'EC2ws',
  });
  res.end(body);
}

function isoSeconds(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
}
