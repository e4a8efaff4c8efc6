// A local IBM Cloud VPC endpoint (with the IAM token service, Resource Manager and Global Tagging beside it)
// speaking the real REST/JSON protocol, so ibm-cloud-sdk-core clients run against it unmodified with only
// their URLs changed. Every VPC call needs a valid IAM bearer token and version/generation parameters, as on
// IBM Cloud. Listens on loopback only.
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import {
  credentialsAdminRoutes,
  DEFAULT_EMULATOR_MAX_BODY_BYTES,
  emulatorStopper,
  knobsFromOptions,
  listenOnLoopback,
  LOOPBACK_HOST,
  loadRegionalSnapshot,
  persistWorld,
  readBodyOrRefuse,
  runEmulatedCall,
  withUnexpectedFailureReply,
  capacityAdminRoutes,
  type CloudEmulatorHandle,
  type CloudEmulatorOptions,
  type OutOfBandLifecycle,
  type StateSnapshotFile,
} from '../kit/index.js';
import type { VpcInstance } from '../../providers/ibmcloud/vpc-types.js';
import { iamErrorBody, IbmApiError, serverFaultFor, throttleFaultFor, vpcErrorBody } from './api-error.js';
import { defaultWorld } from './default-world.js';
import type { Handler, HandlerReply } from './handlers/context.js';
import { IamTokens } from './iam.js';
import { instanceViewOf } from './instance-view.js';
import type { IbmWorld, InstanceRec } from './model.js';
import { renderInstance, type RenderContext } from './render.js';
import { IAM_TOKEN_ACTION, matchRoute, type ServiceKind } from './routes.js';
import { DEFAULT_TIMINGS, VpcState, type InstanceTimings } from './vpc-state.js';

export const DEFAULT_API_KEY = 'emulator-apikey-7f3c9a1e5b2d4c6a8e0f';

export interface IbmVpcEmulatorOptions extends CloudEmulatorOptions<IbmWorld, InstanceTimings> {
  /** Default "us-south" (zones us-south-1..3). One emulator serves one region. */
  region?: string;
  /** The infrastructure name: resource names, the resource group name, and every providerID. Default "test-cluster". */
  clusterId?: string;
  /** The account in IAM tokens (account.bss) and CRNs. */
  accountId?: string;
  /** The account's API key the IAM token service accepts (default DEFAULT_API_KEY, the sample Secret's). */
  apiKey?: string;
  /** More API keys the account has, accepted beside `apiKey`. */
  moreApiKeys?: readonly string[];
  /** expires_in of issued tokens. Default 3600. */
  tokenTtlSeconds?: number;
  /** Wall-clock seconds for token iat/exp (the SDK checks them against Date.now(), not a fake clock). */
  tokenNowSeconds?: () => number;
}

/** instances() returns every instance as the API would return it; terminateOutOfBand deletes as if done in the console. */
export interface IbmVpcEmulator
  extends CloudEmulatorHandle<IbmWorld, VpcInstance, InstanceTimings>, OutOfBandLifecycle<[id: string]> {
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
  instance(id: string): VpcInstance | undefined;
  /** Puts an instance into `failed` (e.g. a host failure). */
  failOutOfBand(id: string, reason?: { code: string; message: string }): void;
  /**
   * Most instances the account may hold (undefined: no limit). A create beyond it answers 400 over_quota,
   * as VPC does when an account quota is reached; instances already there keep running.
   */
  setInstanceQuota(limit: number | undefined): void;
  /**
   * Makes creates of this profile fail with 400 insufficient_capacity in the zone ("*" = every zone), or with
   * true gives the capacity back. A zone's setting wins over every zone's.
   */
  setCapacity(profile: string, zone: string, available: boolean): void;
  /** Invalidates every token issued so far: the next calls get 401 until the client fetches a new token. */
  revokeTokens(): void;
  /** The IAM token service accepts this API key from now on. */
  addApiKey(apiKey: string): void;
  /**
   * The IAM token service refuses this API key from now on (400 BXNIM0415E); tokens issued for it stay valid
   * until they expire, as on IAM. False when the key was not known.
   */
  deleteApiKey(apiKey: string): boolean;
}

const STATE_FILE = 'ibm-vpc-emulator-state.json';
const VERSION_RE = /^\d{4}-\d{2}-\d{2}$/;

export async function startIbmVpcEmulator(opts: IbmVpcEmulatorOptions = {}): Promise<IbmVpcEmulator> {
  const knobs = knobsFromOptions(opts, {
    classify: classifyAction,
    throttleFault: throttleFaultFor,
    serverFault: serverFaultFor,
  });

  const region = opts.region ?? opts.world?.region ?? 'us-south';
  let file: StateSnapshotFile<IbmWorld> | undefined;
  let world: IbmWorld | undefined;
  if (opts.dataDir) ({ file, world } = loadRegionalSnapshot<IbmWorld>(opts.dataDir, STATE_FILE, region));
  world ??= opts.world
    ? structuredClone(opts.world)
    : defaultWorld({ region, clusterId: opts.clusterId, accountId: opts.accountId, seed: opts.seed });
  const st = new VpcState(world, knobs, { ...DEFAULT_TIMINGS, ...opts.timings });
  if (file) persistWorld(st, file);
  st.advance();

  let root = '';
  const apiKey = opts.apiKey ?? DEFAULT_API_KEY;
  const ttl = opts.tokenTtlSeconds ?? 3600;
  if (!Number.isInteger(ttl) || ttl < 1) throw new RangeError(`tokenTtlSeconds must be a positive integer, got ${ttl}`);
  const tokens = new IamTokens(
    st.world,
    [apiKey, ...(opts.moreApiKeys ?? [])],
    opts.tokenNowSeconds ?? (() => Math.floor(Date.now() / 1000)),
    ttl,
    () => root,
  );
  const render = (): RenderContext => ({ world: st.world, base: `${root}/v1` });

  const log = opts.logger;
  const maxBody = opts.maxBodyBytes ?? DEFAULT_EMULATOR_MAX_BODY_BYTES;
  const server: Server = createServer(
    withUnexpectedFailureReply(handle, {
      log,
      emulator: 'ibm vpc',
      answer500: (res) =>
        sendError(res, 'vpc', 500, 'internal_error', 'An internal error occurred in the emulator.', randomUUID()),
    }),
  );

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
      sendError(
        res,
        match.service,
        405,
        'method_not_allowed',
        `${method} is not allowed on ${url.pathname}; use ${match.allowed.join(', ')}`,
        trace,
      );
      return;
    }
    const service: ServiceKind = match.kind === 'iam' ? 'iam' : match.service;
    const action = match.kind === 'iam' ? IAM_TOKEN_ACTION : match.route.action;

    const raw = await readBodyOrRefuse(
      req,
      res,
      maxBody,
      () => sendError(res, service, 413, 'request_too_large', `The request body exceeds ${maxBody} bytes.`, trace),
      { knobs, action },
    );
    if (raw === undefined) return;

    await runEmulatedCall({
      knobs,
      action,
      res,
      apply: () =>
        match.kind === 'iam' ? issueToken(req, raw) : serve(req, url, match.route.handler, match.params, service, raw),
      reply: (reply) => sendJson(res, reply.status, reply.body, trace),
      replyFault: (fault) =>
        sendError(
          res,
          service,
          fault.status,
          fault.code,
          fault.message,
          trace,
          fault.kind === 'throttle' ? { 'retry-after': '1' } : {},
        ),
      replyApiError: (err) => {
        if (!(err instanceof IbmApiError)) return false;
        sendError(res, service, err.status, err.code, err.message, trace, {}, err.target);
        return true;
      },
    });
  }

  function issueToken(req: IncomingMessage, raw: string): HandlerReply {
    const ct = req.headers['content-type'] ?? '';
    if (!ct.startsWith('application/x-www-form-urlencoded')) {
      throw new IbmApiError(
        400,
        'BXNIM0109E',
        `Unsupported content type '${ct}': the token service expects application/x-www-form-urlencoded.`,
      );
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
      if (version === null)
        throw new IbmApiError(400, 'missing_version', 'The version query parameter is required (YYYY-MM-DD).', {
          name: 'version',
          type: 'parameter',
        });
      if (!VERSION_RE.test(version))
        throw new IbmApiError(
          400,
          'invalid_version',
          `The version query parameter must be a date YYYY-MM-DD, got "${version}".`,
          { name: 'version', type: 'parameter' },
        );
      const generation = url.searchParams.get('generation');
      if (generation !== '2')
        throw new IbmApiError(
          400,
          'invalid_generation',
          `The generation query parameter must be 2, got "${generation ?? ''}".`,
          { name: 'generation', type: 'parameter' },
        );
    }
    let body: unknown;
    if (req.method === 'POST') {
      const ct = req.headers['content-type'] ?? '';
      if (!ct.startsWith('application/json'))
        throw new IbmApiError(415, 'unsupported_media_type', `Content-Type must be application/json, got '${ct}'.`);
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
    const body =
      service === 'iam' ? iamErrorBody(code, message, trace, status) : vpcErrorBody(code, message, trace, target);
    sendJson(res, status, body, trace, headers);
  }

  root = `http://${LOOPBACK_HOST}:${await listenOnLoopback(server, opts.port)}`;

  const requireInstance = (id: string): InstanceRec => {
    st.advance();
    const inst = st.instance(id);
    if (!inst) throw new Error(`no instance ${id} in the emulator`);
    return inst;
  };

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
    failOutOfBand: (
      id,
      reason = { code: 'cannot_start_capacity', message: 'The instance failed: the host it ran on failed.' },
    ) => st.fail(requireInstance(id), reason),
    revokeTokens: () => {
      tokens.revokeAll(knobs.random.hex(64));
      st.changed();
    },
    addApiKey: (k) => tokens.addApiKey(k),
    deleteApiKey: (k) => tokens.deleteApiKey(k),
    adminRoutes: [
      ...credentialsAdminRoutes(tokens, { add: '{"apikey"}', revoke: '{"apikey"}' }),
      ...capacityAdminRoutes({
        typeField: 'profile',
        markets: [],
        setCapacity: (profile, zone, _market, available) => st.capacity.set(profile, zone, available),
      }),
    ],
    setTimings: (t) => {
      st.timings = { ...st.timings, ...t };
    },
    setInstanceQuota: (limit) => {
      if (limit !== undefined && !(Number.isInteger(limit) && limit >= 0))
        throw new RangeError(`setInstanceQuota: limit must be a whole number >= 0, got ${limit}`);
      st.instanceQuota = limit;
    },
    setCapacity: (profile, zone, available) => st.capacity.set(profile, zone, available),
    advance: () => st.advance(),
    stop: emulatorStopper({ server, state: st, snapshot: file }),
  };
}

/** Knob action classes: reads, writes, and the IAM token service. */
export function classifyAction(action: string): string {
  if (action === IAM_TOKEN_ACTION) return 'iam';
  return /^(List|Get)/.test(action) ? 'read' : 'mutate';
}

function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  trace: string,
  headers: Record<string, string> = {},
): void {
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
