// A local Google Compute Engine endpoint speaking the real compute/v1 REST+JSON API, so @google-cloud/compute
// (REST transport) and gcloud run against it unmodified with only their endpoint changed; it also answers the
// Cloud Resource Manager v3 tag look-up under /v3/. Loopback only.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Clock, Logger } from '../../../lib/index.js';
import {
  dropConnection,
  EmulatorFault,
  EmulatorKnobs,
  type EmulatorKnobsConfig,
  type InstanceView,
  type LatencySpec,
} from '../../../lib/testing/index.js';
import { GceApiError } from './api-error.js';
import { defaultWorld, DEFAULT_PROJECT } from './default-world.js';
import { DEFAULT_TIMINGS, GceState, type GceTimings } from './gce-state.js';
import { addTagValue } from './handlers/resource-manager.js';
import { instanceViewOf } from './instance-view.js';
import { instancePath, selfLink } from './links.js';
import type { GceInstance, GceWorld } from './model.js';
import { WorldFile } from './persistence.js';
import { matchRoute } from './routes.js';
import { classifyAction, domainOf, errorBody, serverFault, throttleFault, type ThrottleStatus } from './wire.js';

export const API_PREFIX = '/compute/v1/';

export interface GceEmulatorOptions {
  /** Projects that exist (default ["test-project"]); `project` is shorthand for one. */
  projects?: string[];
  project?: string;
  /** Zones served (default us-central1-a/b/c); their regions follow from the names. */
  zones?: string[];
  /** Infrastructure name used to seed networks, the "<id>-api" target pool, master instance groups and backend service. */
  clusterId?: string;
  /** Replaces the default world entirely (deep-copied). */
  world?: GceWorld;
  clock?: Clock;
  /** Seeds ids, addresses and probabilistic faults. Default 1. */
  seed?: number;
  /** PROVISIONING → RUNNING (STAGING from half-way). Default 2000 ms. */
  bootDelayMs?: LatencySpec;
  /** STOPPING → TERMINATED. Default 1000 ms. */
  stopDelayMs?: number;
  /** STOPPING → deleted. Default 1000 ms. */
  deleteDelayMs?: number;
  /** Other timings (operation wait limit, retention). */
  timings?: Partial<GceTimings>;
  /** Fault knobs applied at start (also changeable later through `knobs`). */
  knobs?: EmulatorKnobsConfig;
  /** Status of throttling answers: 403 rateLimitExceeded (default) or 429. */
  throttleStatus?: ThrottleStatus;
  /** When set, the world is restored from and saved to this directory. */
  dataDir?: string;
  /** Default 0 (any free port). The host is always 127.0.0.1. */
  port?: number;
  /** Bodies larger than this are refused with 413. Default 1 MiB. */
  maxBodyBytes?: number;
  logger?: Logger;
}

/** Where an instance is, when its name alone is ambiguous. */
export interface InstanceLocation {
  project?: string;
  zone?: string;
}

export interface GceEmulator {
  /** "http://127.0.0.1:<port>". */
  readonly endpoint: string;
  readonly host: string;
  readonly port: number;
  /** The compute API root, "http://127.0.0.1:<port>/compute/v1/" (gcloud's api_endpoint_overrides/compute). */
  readonly apiRoot: string;
  readonly projects: string[];
  readonly zones: string[];
  readonly knobs: EmulatorKnobs;
  /** The live world. Mutate only between calls. */
  readonly world: GceWorld;
  /** Options for any @google-cloud/compute client; add `authClient: new PassThroughClient()`. */
  clientOptions(): { apiEndpoint: string; port: number; protocol: 'http' };
  /** Copies of every instance's resource JSON, deleting ones included until they are gone. */
  instances(): Record<string, unknown>[];
  instance(name: string, where?: InstanceLocation): Record<string, unknown> | undefined;
  instanceView(): InstanceView;
  /** Deletes an instance as if someone did it in the console (no API call counted). */
  terminateOutOfBand(name: string, where?: InstanceLocation): void;
  /** Stops an instance out of band (GCE status TERMINATED). */
  stopOutOfBand(name: string, where?: InstanceLocation): void;
  startOutOfBand(name: string, where?: InstanceLocation): void;
  /** Preempts a Spot or preemptible instance: stopped (or deleted, for Spot with instanceTerminationAction DELETE). */
  preempt(name: string, where?: InstanceLocation): void;
  setTimings(timings: Partial<GceTimings>): void;
  /** Makes inserts of this machine type fail in their operation with ZONE_RESOURCE_POOL_EXHAUSTED ("*" = every zone). */
  setStockout(machineType: string, zone?: string, exhausted?: boolean): void;
  /** Sets (or with undefined removes) a region quota limit, e.g. ("us-central1", "CPUS", 24). */
  setQuotaLimit(region: string, metric: string, limit: number | undefined): void;
  setThrottleStatus(status: ThrottleStatus): void;
  /** Creates a Resource Manager tag value the CRM endpoint resolves ("<parentId>/<key>/<value>"). */
  addTagValue(parentId: string, key: string, value: string): { tagKey: string; tagValue: string };
  /** Applies every lifecycle transition already due (useful right after stepping a FakeClock). */
  advance(): void;
  stop(): Promise<void>;
}

const DEFAULT_MAX_BODY = 1024 * 1024;

export async function startGceEmulator(opts: GceEmulatorOptions = {}): Promise<GceEmulator> {
  let throttleStatus: ThrottleStatus = opts.throttleStatus ?? 403;
  const knobs = new EmulatorKnobs({
    clock: opts.clock,
    seed: opts.seed ?? 1,
    classify: classifyAction,
    throttleFault: () => throttleFault(throttleStatus),
    serverFault,
  });
  if (opts.knobs) knobs.configure(opts.knobs);

  const projects = opts.projects ?? (opts.project ? [opts.project] : undefined);
  let file: WorldFile | undefined;
  let world: GceWorld | undefined;
  if (opts.dataDir) {
    // Only called after `st` below exists (on a change or at stop).
    file = new WorldFile(opts.dataDir, () => st.world);
    world = file.load();
    const missing = world && projects?.filter((p) => !world?.projects.some((x) => x.name === p));
    if (missing && missing.length > 0) {
      throw new Error(`dataDir ${opts.dataDir} holds an emulator state without project(s) ${missing.join(', ')}`);
    }
  }
  world ??= opts.world
    ? structuredClone(opts.world)
    : defaultWorld({ projects: projects ?? [DEFAULT_PROJECT], zones: opts.zones, clusterId: opts.clusterId, now: knobs.clock.now() });
  const timings: GceTimings = { ...DEFAULT_TIMINGS, ...opts.timings };
  if (opts.bootDelayMs !== undefined) timings.bootMs = opts.bootDelayMs;
  if (opts.stopDelayMs !== undefined) timings.stopMs = opts.stopDelayMs;
  if (opts.deleteDelayMs !== undefined) timings.deleteMs = opts.deleteDelayMs;
  const st = new GceState(world, knobs, timings);
  if (file) {
    const f = file;
    st.onPersist = () => f.scheduleSave();
  }
  st.advance();

  const log = opts.logger;
  const maxBody = opts.maxBodyBytes ?? DEFAULT_MAX_BODY;
  const stopping = new AbortController();
  const server: Server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      log?.error('gce emulator: unexpected failure answering a request', { error: String(err) });
      if (!res.headersSent) sendJson(res, 500, errorBody(500, 'internalError', 'Internal Error'));
      else res.destroy();
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const fail = (status: number, reason: string, message: string, domain = 'global') =>
      sendJson(res, status, errorBody(status, reason, message, domain));
    const url = new URL(req.url ?? '/', 'http://localhost');
    const method = req.method ?? 'GET';
    const body = await readBody(req, maxBody);
    if (body === undefined) {
      res.setHeader('connection', 'close');
      fail(413, 'requestTooLarge', `The request body exceeds ${maxBody} bytes`);
      res.on('finish', () => req.socket.destroy());
      return;
    }
    let segments: string[];
    try {
      segments = url.pathname.slice(1).replace(/\/$/, '').split('/').map(decodeURIComponent);
    } catch {
      fail(400, 'badRequest', 'The request path contains an invalid percent-encoding');
      return;
    }
    const match = matchRoute(method, segments);
    if (!match) {
      fail(404, 'notFound', `The requested URL ${url.pathname} was not found on this server.`);
      return;
    }
    if ('methodNotAllowed' in match) {
      fail(405, 'httpMethodNotAllowed', `The HTTP method ${method} is not allowed for ${url.pathname}.`);
      return;
    }
    let parsed: unknown;
    if (body.length > 0) {
      try {
        parsed = JSON.parse(body);
      } catch (err) {
        fail(400, 'parseError', `Invalid JSON payload received. ${(err as Error).message}`);
        return;
      }
    }

    const action = match.route.action;
    const abort = new AbortController();
    const onGone = () => abort.abort();
    res.on('close', onGone);
    stopping.signal.addEventListener('abort', onGone, { once: true });
    try {
      await knobs.before(action, abort.signal);
      st.advance();
      const result = await match.route.handler({ state: st, params: match.params, query: url.searchParams, body: parsed, signal: abort.signal });
      const lost = knobs.afterEffect(action);
      if (lost?.mode === 'drop-connection') {
        dropConnection(res);
        return;
      }
      if (lost) {
        fail(lost.fault.status, lost.fault.code, lost.fault.message, domainOf(lost.fault.code));
        return;
      }
      sendJson(res, 200, result);
    } catch (err) {
      if (err instanceof EmulatorFault) {
        fail(err.status, err.code, err.message, domainOf(err.code));
      } else if (err instanceof GceApiError) {
        knobs.recordError(action);
        fail(err.status, err.reason, err.message, err.domain);
      } else if (abort.signal.aborted && !res.writableEnded) {
        res.destroy();
      } else {
        knobs.recordError(action);
        throw err;
      }
    } finally {
      res.off('close', onGone);
      stopping.signal.removeEventListener('abort', onGone);
    }
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  const host = '127.0.0.1';
  const endpoint = `http://${host}:${port}`;

  const find = (name: string, where: InstanceLocation = {}): GceInstance | undefined => {
    const found = st.world.instances.filter(
      (i) => i.name === name && (where.project === undefined || i.project === where.project) && (where.zone === undefined || i.zone === where.zone),
    );
    if (found.length > 1) throw new Error(`instance name ${name} is ambiguous: give its project and zone`);
    return found[0];
  };
  const require = (name: string, where?: InstanceLocation): GceInstance => {
    const inst = find(name, where);
    if (!inst) throw new Error(`no instance ${name} in the emulator`);
    return inst;
  };
  const outOfBand = (fn: () => void) => {
    st.advance();
    fn();
    st.changed();
  };
  let stopped = false;

  return {
    endpoint,
    host,
    port,
    apiRoot: `${endpoint}${API_PREFIX}`,
    projects: st.world.projects.map((p) => p.name),
    zones: st.world.zones.map((z) => z.name),
    knobs,
    world: st.world,
    clientOptions: () => ({ apiEndpoint: host, port, protocol: 'http' }),
    instances: () => st.world.instances.map((i) => structuredClone(i.resource)),
    instance: (name, where) => {
      const i = find(name, where);
      return i ? structuredClone(i.resource) : undefined;
    },
    instanceView: () => instanceViewOf(st),
    terminateOutOfBand: (name, where) => outOfBand(() => st.deleteInstance(require(name, where))),
    stopOutOfBand: (name, where) => outOfBand(() => st.stopInstance(require(name, where))),
    startOutOfBand: (name, where) => outOfBand(() => st.startInstance(require(name, where))),
    preempt: (name, where) =>
      outOfBand(() => {
        const inst = require(name, where);
        const sched = (inst.resource.scheduling ?? {}) as { preemptible?: boolean; provisioningModel?: string; instanceTerminationAction?: string };
        if (sched.preemptible !== true && sched.provisioningModel !== 'SPOT') throw new Error(`instance ${name} is neither Spot nor preemptible`);
        const status = st.status(inst);
        if (inst.deleting || (status !== 'RUNNING' && status !== 'STAGING' && status !== 'PROVISIONING')) {
          throw new Error(`instance ${name} is ${status}${inst.deleting ? ' (deleting)' : ''}, not running`);
        }
        const doneAt =
          sched.instanceTerminationAction === 'DELETE' ? st.deleteInstance(inst) : st.stopInstance(inst, 'Instance was preempted.');
        st.createOperation({
          project: inst.project,
          scope: { kind: 'zone', name: inst.zone },
          operationType: 'compute.instances.preempted',
          targetLink: selfLink(instancePath(inst.project, inst.zone, inst.name)),
          targetId: String(inst.resource.id),
          doneAt,
          statusMessage: 'Instance was preempted.',
        });
      }),
    setTimings: (t) => {
      st.timings = { ...st.timings, ...t };
    },
    setStockout: (machineType, zone = '*', exhausted = true) => st.capacity.setStockout(machineType, zone, exhausted),
    setQuotaLimit: (region, metric, limit) => {
      const r = st.world.regions.find((x) => x.name === region);
      if (!r) throw new Error(`no region ${region} in the emulator`);
      if (limit === undefined) delete r.quotaLimits[metric];
      else r.quotaLimits[metric] = limit;
    },
    setThrottleStatus: (s) => {
      throttleStatus = s;
    },
    addTagValue: (parentId, key, value) => {
      const tv = addTagValue(st, parentId, key, value);
      return { tagKey: tv.parent, tagValue: tv.name };
    },
    advance: () => st.advance(),
    stop: async () => {
      if (stopped) return;
      stopped = true;
      stopping.abort();
      st.close();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      file?.saveNow();
    },
  };
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
