// A local IBM Cloud VPC endpoint (with the IAM token service, Resource Manager and Global Tagging beside it)
// speaking the real REST/JSON protocol, so ibm-cloud-sdk-core clients run against it unmodified with only
// their URLs changed. Every VPC call needs a valid IAM bearer token and version/generation parameters, as on
// IBM Cloud. Listens on loopback only.
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Clock, Logger } from '../../../lib/index.js';
import { dropConnection, EmulatorFault, EmulatorKnobs, type EmulatorKnobsConfig, type InstanceView } from '../../../lib/testing/index.js';
import type { VpcInstance } from '../vpc-types.js';
import { iamErrorBody, IbmApiError, serverFaultFor, throttleFaultFor, vpcErrorBody } from './api-error.js';
import { defaultWorld } from './default-world.js';
import type { Handler, HandlerReply } from './handlers/context.js';
import { IamTokens } from './iam.js';
import { instanceViewOf } from './instance-view.js';
import type { IbmWorld, InstanceRec } from './model.js';
import { WorldFile } from './persistence.js';
import { renderInstance, type RenderContext } from './render.js';
import { IAM_TOKEN_ACTION, matchRoute, type ServiceKind } from './routes.js';
import { DEFAULT_TIMINGS, VpcState, type InstanceTimings } from './vpc-state.js';

export const DEFAULT_API_KEY = 'emulator-apikey-7f3c9a1e5b2d4c6a8e0f';

export interface IbmVpcEmulatorOptions {
  /** Default "us-south" (zones us-south-1..3). One emulator serves one region. */
  region?: string;
  /** The infrastructure name: resource names, the resource group name, and every providerID. Default "test-cluster". */
  clusterId?: string;
  /** The account in IAM tokens (account.bss) and CRNs. */
  accountId?: string;
  /** The only API key the IAM token service accepts. */
  apiKey?: string;
  /** Replaces the default world entirely (deep-copied). */
  world?: IbmWorld;
  clock?: Clock;
  /** Seeds resource ids and probabilistic faults. Default 1. */
  seed?: number;
  timings?: Partial<InstanceTimings>;
  /** Fault knobs applied at start (they can also be changed later through `knobs`). */
  knobs?: EmulatorKnobsConfig;
  /** When set, the world is restored from and saved to this directory. */
  dataDir?: string;
  /** Default 0 (any free port). The host is always 127.0.0.1. */
  port?: number;
  /** Bodies larger than this are refused with 413. Default 1 MiB. */
  maxBodyBytes?: number;
  /** expires_in of issued tokens. Default 3600. */
  tokenTtlSeconds?: number;
  /** Wall-clock seconds for token iat/exp (the SDK checks them against Date.now(), not a fake clock). */
  tokenNowSeconds?: () => number;
  logger?: Logger;
}

export interface IbmVpcEmulator {
  /** The VPC service URL, "http://127.0.0.1:<port>/v1". */
  readonly endpoint: string;
  /** IAM base URL; the token service is <iamEndpoint>/identity/token. */
  readonly iamEndpoint: string;
  readonly resourceManagerEndpoint: string;
  readonly globalTaggingEndpoint: string;
  readonly region: string;
  readonly apiKey: string;
  readonly accountId: string;
  readonly clusterId: string;
  readonly knobs: EmulatorKnobs;
  /** The live world. Mutate only between calls. */
  readonly world: IbmWorld;
  /** Every instance as the API would return it. */
  instances(): VpcInstance[];
  instance(id: string): VpcInstance | undefined;
  instanceView(): InstanceView;
  /** Deletes an instance as if someone did it in the console (no API call counted). */
  terminateOutOfBand(id: string): void;
  stopOutOfBand(id: string): void;
  startOutOfBand(id: string): void;
  /** Puts an instance into `failed` (e.g. a host failure). */
  failOutOfBand(id: string, reason?: { code: string; message: string }): void;
  /** Invalidates every token issued so far: the next calls get 401 until the client fetches a new token. */
  revokeTokens(): void;
  setTimings(timings: Partial<InstanceTimings>): void;
  /** Applies every lifecycle transition already due (useful right after stepping a FakeClock). */
  advance(): void;
  stop(): Promise<void>;
}

const DEFAULT_MAX_BODY = 1024 * 1024;
const VERSION_RE = /^\d{4}-\d{2}-\d{2}$/;

export async function startIbmVpcEmulator(opts: IbmVpcEmulatorOptions = {}): Promise<IbmVpcEmulator> {
  const knobs = new EmulatorKnobs({
    clock: opts.clock,
    seed: opts.seed ?? 1,
    classify: classifyAction,
    throttleFault: throttleFaultFor,
    serverFault: serverFaultFor,
  });
  if (opts.knobs) knobs.configure(opts.knobs);

  const region = opts.region ?? opts.world?.region ?? 'us-south';
  let file: WorldFile | undefined;
  let world: IbmWorld | undefined;
  if (opts.dataDir) {
    file = new WorldFile(opts.dataDir);
    world = file.load();
    if (world && world.region !== region) {
      throw new Error(`dataDir ${opts.dataDir} holds an emulator state for region ${world.region}, not ${region}`);
    }
  }
  world ??= opts.world ? structuredClone(opts.world) : defaultWorld({ region, clusterId: opts.clusterId, accountId: opts.accountId, seed: opts.seed });
  const st = new VpcState(world, knobs, { ...DEFAULT_TIMINGS, ...opts.timings });
  if (file) {
    const f = file;
    f.snapshot = () => st.world;
    st.onPersist = () => f.scheduleSave();
  }
  st.advance();

  let root = '';
  const apiKey = opts.apiKey ?? DEFAULT_API_KEY;
  const ttl = opts.tokenTtlSeconds ?? 3600;
  if (!Number.isInteger(ttl) || ttl < 1) throw new RangeError(`tokenTtlSeconds must be a positive integer, got ${ttl}`);
  const tokens = new IamTokens(st.world, apiKey, opts.tokenNowSeconds ?? (() => Math.floor(Date.now() / 1000)), ttl, () => root);
  const render = (): RenderContext => ({ world: st.world, base: `${root}/v1` });

  const log = opts.logger;
  const maxBody = opts.maxBodyBytes ?? DEFAULT_MAX_BODY;
  const server: Server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      log?.error('ibm vpc emulator: unexpected failure answering a request', { error: String(err) });
      if (!res.headersSent) sendError(res, 'vpc', 500, 'internal_error', 'An internal error occurred in the emulator.', randomUUID());
      else res.destroy();
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const trace = randomUUID();
    const url = new URL(req.url ?? '/', 'http://localhost');
    const method = req.method ?? 'GET';
    const match = matchRoute(method, url.pathname);
    if (match.kind === 'not-found') {
      req.resume();
      sendError(res, match.service, 404, 'not_found', `No such API path: ${method} ${url.pathname}`, trace);
      return;
    }
    if (match.kind === 'method-not-allowed') {
      req.resume();
      sendError(res, match.service, 405, 'method_not_allowed', `${method} is not allowed on ${url.pathname}; use ${match.allowed.join(', ')}`, trace);
      return;
    }
    const service: ServiceKind = match.kind === 'iam' ? 'iam' : match.service;
    const action = match.kind === 'iam' ? IAM_TOKEN_ACTION : match.route.action;

    const raw = await readBody(req, maxBody);
    if (raw === undefined) {
      res.setHeader('connection', 'close');
      sendError(res, service, 413, 'request_too_large', `The request body exceeds ${maxBody} bytes.`, trace);
      res.on('finish', () => req.socket.destroy());
      return;
    }

    try {
      await knobs.before(action);
      const reply = match.kind === 'iam' ? issueToken(req, raw) : serve(req, url, match.route.handler, match.params, service, raw);
      const lost = knobs.afterEffect(action);
      if (lost?.mode === 'drop-connection') {
        dropConnection(res);
        return;
      }
      if (lost) {
        sendError(res, service, lost.fault.status, lost.fault.code, lost.fault.message, trace);
        return;
      }
      sendJson(res, reply.status, reply.body, trace);
    } catch (err) {
      if (err instanceof EmulatorFault) {
        sendError(res, service, err.status, err.code, err.message, trace, err.kind === 'throttle' ? { 'retry-after': '1' } : {});
      } else if (err instanceof IbmApiError) {
        knobs.recordError(action);
        sendError(res, service, err.status, err.code, err.message, trace, {}, err.target);
      } else {
        knobs.recordError(action);
        throw err;
      }
    }
  }

  function issueToken(req: IncomingMessage, raw: string): HandlerReply {
    const ct = req.headers['content-type'] ?? '';
    if (!ct.startsWith('application/x-www-form-urlencoded')) {
      throw new IbmApiError(400, 'BXNIM0109E', `Unsupported content type '${ct}': the token service expects application/x-www-form-urlencoded.`);
    }
    return { status: 200, body: tokens.issue(new URLSearchParams(raw)) };
  }

  function serve(
    req: IncomingMessage,
    url: URL,
    handler: Handler,
    params: Record<string, string>,
    service: ServiceKind,
    raw: string,
  ): HandlerReply {
    const why = tokens.reject(req.headers.authorization);
    if (why !== undefined) throw new IbmApiError(401, 'not_authorized', why, { name: 'Authorization', type: 'header' });
    if (service === 'vpc') {
      const version = url.searchParams.get('version');
      if (version === null) throw new IbmApiError(400, 'missing_version', 'The version query parameter is required (YYYY-MM-DD).', { name: 'version', type: 'parameter' });
      if (!VERSION_RE.test(version)) throw new IbmApiError(400, 'invalid_version', `The version query parameter must be a date YYYY-MM-DD, got "${version}".`, { name: 'version', type: 'parameter' });
      const generation = url.searchParams.get('generation');
      if (generation !== '2') throw new IbmApiError(400, 'invalid_generation', `The generation query parameter must be 2, got "${generation ?? ''}".`, { name: 'generation', type: 'parameter' });
    }
    let body: unknown;
    if (req.method === 'POST') {
      const ct = req.headers['content-type'] ?? '';
      if (!ct.startsWith('application/json')) throw new IbmApiError(415, 'unsupported_media_type', `Content-Type must be application/json, got '${ct}'.`);
      try {
        body = raw === '' ? undefined : JSON.parse(raw);
      } catch {
        throw new IbmApiError(400, 'invalid_body', 'The request body is not valid JSON.');
      }
    }
    st.advance();
    return handler({ st, params, query: url.searchParams, body, render: render() });
  }

  function sendError(
    res: ServerResponse,
    service: ServiceKind,
    status: number,
    code: string,
    message: string,
    trace: string,
    headers: Record<string, string> = {},
    target?: IbmApiError['target'],
  ): void {
    const body = service === 'iam' ? iamErrorBody(code, message, trace, status) : vpcErrorBody(code, message, trace, target);
    sendJson(res, status, body, trace, headers);
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  root = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const requireInstance = (id: string): InstanceRec => {
    st.advance();
    const inst = st.instance(id);
    if (!inst) throw new Error(`no instance ${id} in the emulator`);
    return inst;
  };
  let stopped = false;

  return {
    endpoint: `${root}/v1`,
    iamEndpoint: root,
    resourceManagerEndpoint: root,
    globalTaggingEndpoint: root,
    region: st.world.region,
    apiKey,
    accountId: st.world.accountId,
    clusterId: st.world.clusterId,
    knobs,
    world: st.world,
    instances: () => st.world.instances.map((i) => renderInstance(render(), i)),
    instance: (id) => {
      const i = st.instance(id);
      return i ? renderInstance(render(), i) : undefined;
    },
    instanceView: () => instanceViewOf(st),
    terminateOutOfBand: (id) => st.delete(requireInstance(id)),
    stopOutOfBand: (id) => st.stop(requireInstance(id)),
    startOutOfBand: (id) => st.start(requireInstance(id)),
    failOutOfBand: (id, reason = { code: 'cannot_start_capacity', message: 'The instance failed: the host it ran on failed.' }) =>
      st.fail(requireInstance(id), reason),
    revokeTokens: () => {
      tokens.revokeAll(knobs.random.hex(64));
      st.changed();
    },
    setTimings: (t) => {
      st.timings = { ...st.timings, ...t };
    },
    advance: () => st.advance(),
    stop: async () => {
      if (stopped) return;
      stopped = true;
      st.close();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      file?.saveNow();
    },
  };
}

/** Knob action classes: reads, writes, and the IAM token service. */
export function classifyAction(action: string): string {
  if (action === IAM_TOKEN_ACTION) return 'iam';
  return /^(List|Get)/.test(action) ? 'read' : 'mutate';
}

function sendJson(res: ServerResponse, status: number, body: unknown, trace: string, headers: Record<string, string> = {}): void {
  if (status === 204 || body === undefined) {
    res.writeHead(status, { 'x-request-id': trace, ...headers });
    res.end();
    return;
  }
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
    'x-request-id': trace,
    ...headers,
  });
  res.end(text);
}

/** The body as text, or undefined when it exceeds the limit. */
function readBody(req: IncomingMessage, max: number): Promise<string | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let tooBig = false;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > max) {
        tooBig = true;
        chunks.length = 0;
        return;
      }
      if (!tooBig) chunks.push(c);
    });
    req.on('end', () => resolve(tooBig ? undefined : Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}
