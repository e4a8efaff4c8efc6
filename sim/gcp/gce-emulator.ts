// A local Google Compute Engine endpoint speaking the real compute/v1 REST+JSON API, so @google-cloud/compute
// (REST transport) and gcloud run against it unmodified with only their endpoint changed; it also answers the
// Cloud Resource Manager v3 tag look-up under /v3/, and batches of compute calls at /batch/compute/v1 (what
// gcloud sends for a command naming several instances). Loopback only.
import { createServer, type Server } from 'node:http';
import {
  credentialsAdminRoutes,
  DEFAULT_EMULATOR_MAX_BODY_BYTES,
  emulatorStopper,
  InstanceMetadataListeners,
  knobsFromOptions,
  listenOnLoopback,
  LOOPBACK_HOST,
  persistWorld,
  StateSnapshotFile,
  type CloudEmulatorHandle,
  type CloudEmulatorOptions,
  type LatencySpec,
  type OutOfBandLifecycle,
  capacityAdminRoutes,
  type CapacityMarket,
} from '../kit/index.js';
import { defaultWorld, DEFAULT_PROJECT } from './default-world.js';
import { DEFAULT_TIMINGS, GceState, instanceKey, type GceTimings } from './gce-state.js';
import { addTagValue } from './handlers/resource-manager.js';
import { gceMetadataHandler } from './instance-metadata.js';
import { instanceViewOf } from './instance-view.js';
import type { GceInstance, GceWorld } from './model.js';
import { createRequestHandler } from './request-handler.js';
import { TokenService } from './token-service.js';
import {
  EMULATOR_SERVICE_ACCOUNT_KEY,
  ServiceAccountKeys,
  type ServiceAccountKeyInput,
} from './service-account-keys.js';
import { classifyAction, serverFault, throttleFault, type ThrottleStatus } from './wire.js';

export const API_PREFIX = '/compute/v1/';

export interface GceEmulatorOptions extends CloudEmulatorOptions<GceWorld, GceTimings> {
  /** Projects that exist (default ["test-project"]); `project` is shorthand for one. */
  projects?: string[];
  project?: string;
  /** Zones served (default us-central1-a/b/c); their regions follow from the names. */
  zones?: string[];
  /** Infrastructure name used to seed networks, the "<id>-api" target pool, master instance groups and backend service. */
  clusterId?: string;
  /** PROVISIONING → RUNNING (STAGING from half-way). Default 2000 ms. */
  bootDelayMs?: LatencySpec;
  /** STOPPING → TERMINATED. Default 1000 ms. */
  stopDelayMs?: number;
  /** STOPPING → deleted. Default 1000 ms. */
  deleteDelayMs?: number;
  /** Status of throttling answers: 403 rateLimitExceeded (default) or 429. */
  throttleStatus?: ThrottleStatus;
  /**
   * Compute calls must carry a bearer token the emulator's token service issued, or a self-signed JWT of a known
   * key, not expired (401 otherwise, as GCE answers). Off by default, for clients built without credentials;
   * `npm start` turns it on (the provider signs its calls to a loopback endpoint with the Secret's key).
   */
  requireAuth?: boolean;
  /** Lifetime of the tokens the token service issues (default 3600 s). */
  tokenTtlSeconds?: number;
  /**
   * The project's service-account keys: the token endpoint grants tokens only for JWTs they signed, and
   * self-signed JWTs are accepted as bearer tokens only when they did. Default [EMULATOR_SERVICE_ACCOUNT_KEY],
   * the sample Secret's. Keys can be added and deleted while it runs (addServiceAccountKey, or the admin
   * endpoint's /credentials).
   */
  serviceAccountKeys?: readonly ServiceAccountKeyInput[];
}

/** Where an instance is, when its name alone is ambiguous. */
export interface InstanceLocation {
  project?: string;
  zone?: string;
}

/**
 * instances() returns copies of every instance's resource JSON, deleting ones included until they are gone;
 * stopOutOfBand stops an instance out of band (GCE status TERMINATED).
 */
export interface GceEmulator
  extends
    CloudEmulatorHandle<GceWorld, Record<string, unknown>, GceTimings>,
    OutOfBandLifecycle<[name: string, where?: InstanceLocation]> {
  /** "http://127.0.0.1:<port>". */
  readonly endpoint: string;
  readonly host: string;
  readonly port: number;
  /** The compute API root, "http://127.0.0.1:<port>/compute/v1/" (gcloud's api_endpoint_overrides/compute). */
  readonly apiRoot: string;
  readonly projects: string[];
  readonly zones: string[];
  /** Options for any @google-cloud/compute client; add `authClient: new PassThroughClient()`. */
  clientOptions(): { apiEndpoint: string; port: number; protocol: 'http' };
  instance(name: string, where?: InstanceLocation): Record<string, unknown> | undefined;
  /**
   * Preempts a Spot or preemptible instance as GCE does: its metadata server answers instance/preempted
   * "TRUE" at once, and after timings.preemptionNoticeMs (30 s by default; 0 = at once) the instance is
   * stopped (or deleted, for Spot with instanceTerminationAction DELETE).
   */
  preempt(name: string, where?: InstanceLocation): void;
  /**
   * Makes inserts of this machine type fail in their operation with ZONE_RESOURCE_POOL_EXHAUSTED ("*" = every
   * zone), or with false gives the capacity back. A zone's setting wins over every zone's; a3-highgpu-8g
   * starts stocked out everywhere.
   */
  setStockout(machineType: string, zone?: string, exhausted?: boolean, market?: CapacityMarket | '*'): void;
  /** Sets (or with undefined removes) a region quota limit, e.g. ("us-central1", "CPUS", 24). */
  setQuotaLimit(region: string, metric: string, limit: number | undefined): void;
  setThrottleStatus(status: ThrottleStatus): void;
  /**
   * The instance's own metadata server, "127.0.0.1:<port>": what GCE_METADATA_HOST holds for a program on that
   * instance (the real one is metadata.google.internal).
   */
  metadataHost(name: string, where?: InstanceLocation): Promise<string>;
  /** How many requests the instance's metadata server received. */
  metadataRequestCount(name: string, where?: InstanceLocation): number;
  /** Creates a Resource Manager tag value the CRM endpoint resolves ("<parentId>/<key>/<value>"). */
  addTagValue(parentId: string, key: string, value: string): { tagKey: string; tagValue: string };
  /**
   * The token endpoints (<endpoint>/token for key files, <endpoint>/v1/token for STS, and
   * <endpoint>/v1/projects/-/serviceAccounts/<email>:generateAccessToken) and how often each was called.
   */
  readonly tokens: Pick<TokenService, 'calls' | 'ttlSeconds'>;
  /** Accepts JWTs this key signs from now on (a key file's fields; the public key is derived from private_key). */
  addServiceAccountKey(key: ServiceAccountKeyInput): void;
  /**
   * Refuses JWTs this key signs from now on; tokens already issued for it stay valid until they expire. False
   * when it was not known.
   */
  deleteServiceAccountKey(privateKeyId: string): boolean;
}

const STATE_FILE = 'gce-emulator-state.json';

export async function startGceEmulator(opts: GceEmulatorOptions = {}): Promise<GceEmulator> {
  let throttleStatus: ThrottleStatus = opts.throttleStatus ?? 403;
  const knobs = knobsFromOptions(opts, {
    classify: classifyAction,
    throttleFault: () => throttleFault(throttleStatus),
    serverFault,
  });

  const projects = opts.projects ?? (opts.project ? [opts.project] : undefined);
  let file: StateSnapshotFile<GceWorld> | undefined;
  let world: GceWorld | undefined;
  if (opts.dataDir) {
    file = new StateSnapshotFile<GceWorld>(opts.dataDir, STATE_FILE);
    world = file.load();
    const missing = world && projects?.filter((p) => !world?.projects.some((x) => x.name === p));
    if (missing && missing.length > 0) {
      throw new Error(`dataDir ${opts.dataDir} holds an emulator state without project(s) ${missing.join(', ')}`);
    }
  }
  world ??= opts.world
    ? structuredClone(opts.world)
    : defaultWorld({
        projects: projects ?? [DEFAULT_PROJECT],
        zones: opts.zones,
        clusterId: opts.clusterId,
        now: knobs.clock.now(),
      });
  const timings: GceTimings = { ...DEFAULT_TIMINGS, ...opts.timings };
  if (opts.bootDelayMs !== undefined) timings.bootMs = opts.bootDelayMs;
  if (opts.stopDelayMs !== undefined) timings.stopMs = opts.stopDelayMs;
  if (opts.deleteDelayMs !== undefined) timings.deleteMs = opts.deleteDelayMs;
  const st = new GceState(world, knobs, timings);
  if (file) persistWorld(st, file);
  st.advance();

  const keys = new ServiceAccountKeys(opts.serviceAccountKeys ?? [EMULATOR_SERVICE_ACCOUNT_KEY]);
  const tokens = new TokenService(() => knobs.clock.now(), keys, opts.tokenTtlSeconds);
  // Aborted on stop(), so calls still waiting out an injected latency end instead of applying late.
  const stopping = new AbortController();
  const server: Server = createServer(
    createRequestHandler({
      state: st,
      tokens,
      requireAuth: opts.requireAuth,
      maxBodyBytes: opts.maxBodyBytes ?? DEFAULT_EMULATOR_MAX_BODY_BYTES,
      shutdown: stopping.signal,
      log: opts.logger,
    }),
  );

  const port = await listenOnLoopback(server, opts.port);
  const host = LOOPBACK_HOST;
  const endpoint = `http://${host}:${port}`;

  const find = (name: string, where: InstanceLocation = {}): GceInstance | undefined => {
    const found = st.world.instances.filter(
      (i) =>
        i.name === name &&
        (where.project === undefined || i.project === where.project) &&
        (where.zone === undefined || i.zone === where.zone),
    );
    if (found.length > 1) throw new Error(`instance name ${name} is ambiguous: give its project and zone`);
    return found[0];
  };
  const require = (name: string, where?: InstanceLocation): GceInstance => {
    const inst = find(name, where);
    if (!inst) throw new Error(`no instance ${name} in the emulator`);
    return inst;
  };
  const outOfBand = (change: () => void) => st.outOfBand(change);
  const metadata = new InstanceMetadataListeners();
  const stopEmulator = emulatorStopper({ server, shutdown: stopping, state: st, snapshot: file });
  const metadataKey = (name: string, where?: InstanceLocation): string => {
    const inst = require(name, where);
    return `${instanceKey(inst.project, inst.zone, inst.name)}#${String(inst.resource.id)}`;
  };

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
    tokens,
    addServiceAccountKey: (k) => keys.addKey(k),
    deleteServiceAccountKey: (id) => keys.deleteKey(id),
    adminRoutes: [
      ...credentialsAdminRoutes(keys, {
        add: 'a service-account key file, or {"client_email", "private_key_id", "public_key"}',
        revoke: '{"private_key_id"}',
      }),
      ...capacityAdminRoutes({
        typeField: 'instanceType',
        markets: ['on-demand', 'spot'],
        setCapacity: (type, zone, market, available) => st.capacity.setStockout(type, zone, !available, market),
        interrupt: (name) => outOfBand(() => st.announcePreemption(require(name))),
      }),
    ],
    instances: () => st.world.instances.map((i) => structuredClone(i.resource)),
    instance: (name, where) => {
      const i = find(name, where);
      return i ? structuredClone(i.resource) : undefined;
    },
    instanceView: () => instanceViewOf(st),
    terminateOutOfBand: (name, where) => outOfBand(() => st.deleteInstance(require(name, where))),
    stopOutOfBand: (name, where) => outOfBand(() => st.stopInstance(require(name, where))),
    startOutOfBand: (name, where) => outOfBand(() => st.startInstance(require(name, where))),
    preempt: (name, where) => outOfBand(() => st.announcePreemption(require(name, where))),
    setTimings: (t) => {
      st.timings = { ...st.timings, ...t };
    },
    setStockout: (machineType, zone = '*', exhausted = true, market = '*') =>
      st.capacity.setStockout(machineType, zone, exhausted, market),
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
    metadataHost: (name, where) => {
      const inst = require(name, where);
      // Keyed and followed by the instance's id: a later instance reusing the name gets its own server.
      const key = metadataKey(name, where);
      const id = inst.resource.id;
      return metadata.hostFor(key, () =>
        gceMetadataHandler(st, () => st.world.instances.find((i) => i.resource.id === id)),
      );
    },
    metadataRequestCount: (name, where) => metadata.requestCount(metadataKey(name, where)),
    advance: () => st.advance(),
    stop: async () => {
      await metadata.closeAll();
      await stopEmulator();
    },
  };
}
