// Builds and caches the Compute clients: one set per credentials fingerprint, rebuilt when the credentials
// Secret changes, instead of the reference's fresh service per reconcile. All sets share one client-side
// rate limiter (per project); each set has one instance-existence finder per (project, zone), which lists the
// cluster's instances in a resync burst so that steady-state checks cost about one list per resync.
import { GoogleAuth, PassThroughClient, type gaxios } from 'google-auth-library';
import { authClientFor } from './auth-client.js';
import {
  afterCalls,
  ClientsByCredentials,
  isLoopbackUrl,
  ListingSnapshot,
  RegionalRateLimiter,
  type Clock,
  type CloudRateLimits,
  type WriteFence,
  type OutboundHttp,
} from '../../lib/index.js';
import type { ComputeApi, Instance } from './compute-api.js';
import { slimInstance } from './instance-view.js';
import { preloadComputeDescriptors, SdkComputeApi } from './sdk-compute-api.js';
import { credentialsFingerprint, type GcpCredentials } from './credentials.js';
import { outboundTransporter } from './outbound-transporter.js';

/** Below GCE's default API rate quotas (reads 20/s per project, writes about 10/s), so other clients keep room. */
export const DEFAULT_GCE_RATE_LIMITS: CloudRateLimits = {
  describe: { qps: 10, burst: 40 },
  mutate: { qps: 4, burst: 20 },
};

/**
 * How long an existence check waits for company before its instances.list goes out. A GCE call takes tens of
 * milliseconds anyway, and a wider window lets a scale-up's checks share a list instead of one each.
 */
export const DEFAULT_GCE_BATCH_WINDOW_MS = 50;

/** How many names one instances.list filter may carry: GCE refuses very long filters. */
export const MAX_NAMES_PER_LIST = 50;

export interface GcpClientFactoryOptions {
  clock: Clock;
  /** Compute API endpoint, e.g. "http://127.0.0.1:8080" (an emulator) or a private endpoint; default Google's. */
  endpoint?: string;
  rateLimits?: CloudRateLimits;
  /** The leader's fence: no mutating call leaves while it is closed (see RegionalRateLimiter). */
  fence?: WriteFence;
  /** Window for coalescing existence checks into one instances.list (default DEFAULT_GCE_BATCH_WINDOW_MS). */
  batchWindowMs?: number;
  /** How long a burst's list of the clusters' instances keeps answering after its last answer (default 10 s; 0 = never list). */
  snapshotReuseMs?: number;
  /** Proxy and trusted CAs for every Google call (token requests included); unset = gaxios's defaults. */
  outbound?: OutboundHttp;
  /** Replaces the SDK implementation (unit tests use a fake ComputeApi). */
  createComputeApi?: (credentials: GcpCredentials | undefined) => ComputeApi;
}

export interface GcpClients {
  /** Inserting or deleting an instance through it forgets what the finder saw of that instance. */
  readonly compute: ComputeApi;
  /**
   * Looks instances up by name in a zone, coalescing concurrent look-ups into one instances.list with a name
   * filter; in a burst, one paged instances.list of every instance of the clusters seen in the zone answers
   * each Machine's next look-up once (ListingSnapshot). undefined = the list did not show it
   * (confirm with getInstance before concluding it is gone).
   */
  findInstance(project: string, zone: string, name: string, signal?: AbortSignal): Promise<Instance | undefined>;
}

/** A GCE list filter matching any of `names` exactly. */
export function nameFilter(names: string[]): string {
  return names.map((n) => `(name = "${n.replace(/["\\]/g, '')}")`).join(' OR ');
}

const CLUSTER_LABEL = /^kubernetes-io-cluster-[a-z0-9_-]+$/;

/** The ownership label keys (kubernetes-io-cluster-<id> = owned) an instance carries. */
export function clusterLabelKeysOf(instance: Instance): string[] {
  return Object.entries(instance.labels ?? {}).flatMap(([k, v]) => (CLUSTER_LABEL.test(k) && v === 'owned' ? [k] : []));
}

/** The filter of a burst's listing: every instance owned by one of the clusters. */
export function clusterFilter(clusterLabelKeys: Iterable<string>): string {
  return [...clusterLabelKeys].map((k) => `(labels.${k} = "owned")`).join(' OR ');
}

/** By name, only what the actuator reads of each (slimInstance): a listing holds every instance of the zone. */
const byName = (found: Instance[]): Map<string, Instance> =>
  new Map(found.flatMap((i) => (i.name ? [[i.name, slimInstance(i)] as const] : [])));

/**
 * The existence finder of one zone. Which clusters to list in a burst is learnt from the instances it has
 * found (their ownership label), so a burst lists what this controller manages in the zone and nothing else.
 */
function zoneFinder(
  compute: ComputeApi,
  project: string,
  zone: string,
  o: GcpClientFactoryOptions,
): ListingSnapshot<Instance> {
  return new ListingSnapshot<Instance>({
    clock: o.clock,
    windowMs: o.batchWindowMs ?? DEFAULT_GCE_BATCH_WINDOW_MS,
    reuseMs: o.snapshotReuseMs,
    maxBatch: MAX_NAMES_PER_LIST,
    // PROVISIONING, STAGING, STOPPING...: about to change, so not worth answering a later check with.
    settled: (i) => i.status === 'RUNNING' || i.status === 'TERMINATED' || i.status === 'SUSPENDED',
    fetch: async (names) => byName(await compute.listInstances(project, zone, nameFilter(names))),
    list: async (labelKeys) => byName(await compute.listInstances(project, zone, clusterFilter(labelKeys))),
    scopesOf: clusterLabelKeysOf,
  });
}

/**
 * The gax auth options: credentials from the Secret, or the environment's (ADC) when there are none. Tokens
 * never travel unencrypted over a network: a plain-http endpoint gets credentials only when it is on this host
 * (an emulator on loopback, which checks them as Google does), and only a Secret's service-account key, as
 * self-signed JWTs that need no token endpoint; never the environment's, and no token exchange is made for it.
 */
export function authOptions(
  endpoint: string | undefined,
  credentials: GcpCredentials | undefined,
  transporter?: gaxios.Gaxios,
): Record<string, unknown> {
  if (endpoint?.startsWith('http://')) {
    if (credentials?.type === 'service_account' && isLoopbackUrl(endpoint))
      return { authClient: authClientFor(credentials, transporter) };
    return { authClient: new PassThroughClient(transporter ? { transporter } : {}) };
  }
  if (transporter) {
    // An auth client of our own, so its token requests (and the Compute calls made through it) use the transporter.
    return credentials
      ? { authClient: authClientFor(credentials, transporter) }
      : { auth: new GoogleAuth({ clientOptions: { transporter } }) };
  }
  if (!credentials) return {};
  return { credentials: credentials.json, projectId: credentials.projectId };
}

interface Entry {
  clients: GcpClients;
  close: () => Promise<void>;
}

export class GcpClientFactory {
  /** One client set per credentials; each credentials source uses one, and stale ones are closed. */
  private readonly entries = new ClientsByCredentials<Entry>((e) => void e.close());
  readonly limiter: RegionalRateLimiter;

  constructor(private readonly opts: GcpClientFactoryOptions) {
    this.limiter = new RegionalRateLimiter(opts.rateLimits ?? DEFAULT_GCE_RATE_LIMITS, opts.clock, opts.fence);
    if (!opts.createComputeApi) preloadComputeDescriptors(opts.endpoint);
  }

  /**
   * The clients for some credentials. `source` names where they came from (the Secret's namespace/name);
   * when its credentials change, the clients built from the old ones are closed.
   */
  get(credentials: GcpCredentials | undefined, source = 'default'): GcpClients {
    return this.entries.get(source, credentialsFingerprint(credentials), () => this.build(credentials)).clients;
  }

  private build(credentials: GcpCredentials | undefined): Entry {
    let compute: ComputeApi;
    let close = async () => {};
    if (this.opts.createComputeApi) {
      compute = this.opts.createComputeApi(credentials);
    } else {
      const agents = this.opts.outbound?.newAgents();
      const sdk = new SdkComputeApi({
        apiEndpoint: this.opts.endpoint,
        auth: authOptions(this.opts.endpoint, credentials, agents && outboundTransporter(agents)),
        limiter: this.limiter,
      });
      compute = sdk;
      close = async () => {
        await sdk.close();
        agents?.destroy();
      };
    }
    const finders = new Map<string, ListingSnapshot<Instance>>();
    const finderFor = (project: string, zone: string): ListingSnapshot<Instance> => {
      const k = `${project}/${zone}`;
      let f = finders.get(k);
      if (!f) {
        f = zoneFinder(compute, project, zone, this.opts);
        finders.set(k, f);
      }
      return f;
    };
    const tracked = afterCalls(compute, {
      insertInstance: (project, zone, instance) => finders.get(`${project}/${zone}`)?.forget(instance.name ?? ''),
      deleteInstance: (project, zone, name) => finders.get(`${project}/${zone}`)?.forget(name),
    });
    return {
      clients: {
        compute: tracked,
        findInstance: (project, zone, name, signal) => finderFor(project, zone).get(name, signal),
      },
      close,
    };
  }

  /** Closes every client's connections. */
  async close(): Promise<void> {
    await Promise.all(this.entries.clear().map((e) => e.close()));
  }
}
