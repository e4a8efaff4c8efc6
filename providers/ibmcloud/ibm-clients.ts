// Builds and caches the IBM Cloud clients: one IAM-authenticated client per API key, reused for as long as the
// key is (its token is fetched once and refreshed only near expiry), and one regional view of it per region,
// whose endpoint is looked up once (GET /regions/{name}) unless an endpoint override is set. The reference
// does all of that (a token request and a region GET) on every Exists, Create, Update and MachineSet
// reconcile. All clients share one client-side rate limiter; each regional view has one instance look-up per
// VPC (by id or name; in a resync burst, one paged list of the VPC answers every Machine's next check once), and the
// instance profiles are cached for the scale-from-zero catalog and the actuator alike.
import {
  afterCalls,
  ClientsByCredentials,
  INSTANCE_TYPE_CACHE_TTL_MS,
  InvalidMachineConfigurationError,
  ListingSnapshot,
  PromiseCache,
  RegionalRateLimiter,
  RefreshingCache,
  type Clock,
  type CloudRateLimits,
  type WriteFence,
  type OutboundAgents,
  type OutboundHttp,
} from '../../lib/index.js';
import { apiKeyFingerprint } from './credentials.js';
import { slimInstance } from './instance-view.js';
import { classifyVpcError } from './errors.js';
import { DEFAULT_RETRY_POLICY, MeteredVpcApi, type RetryPolicy } from './metered-vpc-api.js';
import { PROVIDER_SPEC_PATH } from './provider-spec.js';
import { DEFAULT_IBM_RATE_LIMITS } from './rate-limiter.js';
import { createVpcClient, DEFAULT_VPC_URL, type VpcApi, type VpcClientOptions } from './vpc-api.js';
import type { InstanceProfile, VpcInstance } from './vpc-types.js';

export interface IbmEndpoints {
  /** VPC base URL for every region (a private endpoint or an emulator); unset = the region's public endpoint. */
  vpc?: string;
  iam?: string;
  resourceManager?: string;
  globalTagging?: string;
}

export interface IbmClientFactoryOptions {
  clock: Clock;
  endpoints?: IbmEndpoints;
  rateLimits?: CloudRateLimits;
  /** The leader's fence: no mutating call leaves while it is closed (see RegionalRateLimiter). */
  fence?: WriteFence;
  retry?: Partial<RetryPolicy>;
  /** Window for coalescing instance look-ups into one list per VPC (default 5 ms). */
  batchWindowMs?: number;
  /** How long a burst's list of the VPC may answer a Machine's next look-up (default 10 s; 0 = never). */
  snapshotReuseMs?: number;
  /** How long the instance-profile list is kept (default 24 h). */
  profileCacheTtlMs?: number;
  /** Per-request timeout. */
  timeoutMs?: number;
  /** Proxy and trusted CAs for every IBM Cloud call (IAM included); unset = direct, Node's CAs. */
  outbound?: OutboundHttp;
  /** Replaces the SDK client (unit tests). */
  createVpcApi?: (opts: VpcClientOptions) => VpcApi;
}

/** A look-up key for the batched instance finder. */
export type InstanceKey = { id: string } | { name: string };

export interface IbmClients {
  /** Identifies the API key (a fingerprint) and region, for caches keyed by client. */
  readonly key: string;
  readonly region: string;
  /**
   * Rate-limited, retrying VPC client at the region's endpoint. Creating or deleting an instance through it
   * forgets what findInstance saw of that instance.
   */
  readonly vpc: VpcApi;
  /** The account of the API key (IAM token claim), fetched once. */
  accountId(signal?: AbortSignal): Promise<string>;
  /**
   * Looks an instance up in a VPC by id (GET) or name (the list's name filter); in a burst, one paged list of
   * the VPC answers each Machine's next look-up once (ListingSnapshot). undefined = the VPC does not hold it
   * (by id: GET answered 404; by name: the name filter showed none). `current` rejects an earlier
   * list's view the caller knows to be outdated (see ListingSnapshot.get).
   */
  findInstance(
    vpcName: string,
    key: InstanceKey,
    signal?: AbortSignal,
    current?: (i: VpcInstance) => boolean,
  ): Promise<VpcInstance | undefined>;
  /** Every instance profile of the region, cached. */
  profiles(signal?: AbortSignal): Promise<InstanceProfile[]>;
}

const keyString = (k: InstanceKey): string => ('id' in k ? `id:${k.id}` : `name:${k.name}`);

/** Looks each key up on its own (GET by id, the name filter by name); a key the VPC does not hold is left out. */
async function fetchInstanceKeys(vpc: VpcApi, vpcName: string, keys: string[]): Promise<Map<string, VpcInstance>> {
  const found = new Map<string, VpcInstance>();
  await Promise.all(
    keys.map(async (key) => {
      const [kind, value = ''] = [key.slice(0, key.indexOf(':')), key.slice(key.indexOf(':') + 1)];
      if (kind === 'name') {
        const named = (await vpc.listInstances({ name: value, vpcName }))[0];
        if (named) found.set(key, slimInstance(named));
        return;
      }
      try {
        found.set(key, slimInstance(await vpc.getInstance(value)));
      } catch (err) {
        if (classifyVpcError(err) !== 'notFound') throw err;
      }
    }),
  );
  return found;
}

/** The instance profiles of a region change as rarely as any cloud's instance types. */
export const PROFILE_CACHE_TTL_MS = INSTANCE_TYPE_CACHE_TTL_MS;

interface Account {
  base: MeteredVpcApi;
  /** The key's account id (one entry), and its clients per region: looked up once; a failed look-up is tried again. */
  accountId: PromiseCache<string>;
  regions: PromiseCache<IbmClients>;
}

export class IbmClientFactory {
  /** One account's clients per API key; each credentials source uses one, and those of rotated keys are dropped. */
  private readonly accounts = new ClientsByCredentials<Account>();
  readonly limiter: RegionalRateLimiter;
  private readonly retry: RetryPolicy;
  /** Shared by every key's clients: they are never closed one by one, and idle connections do not hold the process. */
  private readonly agents?: OutboundAgents;

  constructor(private readonly o: IbmClientFactoryOptions) {
    this.agents = o.outbound?.newAgents();
    this.limiter = new RegionalRateLimiter(o.rateLimits ?? DEFAULT_IBM_RATE_LIMITS, o.clock, o.fence);
    this.retry = { ...DEFAULT_RETRY_POLICY, ...o.retry };
  }

  /**
   * The clients for an API key in a region. `source` names where the key came from (the Secret's
   * namespace/name); when that Secret's key changes, the clients of the old key are dropped.
   */
  async get(apiKey: string, region: string, source: string, signal?: AbortSignal): Promise<IbmClients> {
    const fp = apiKeyFingerprint(apiKey);
    const account = this.accounts.get(source, fp, () => {
      // A revoked token stays cached until it expires: on a 401, drop the client so the next call gets a new token.
      const fresh: Account = {
        base: this.build(apiKey, () => this.accounts.drop(fp, fresh)),
        accountId: new PromiseCache(this.o.clock, Infinity),
        regions: new PromiseCache(this.o.clock, Infinity),
      };
      return fresh;
    });
    return account.regions.get(region, () => this.regional(account, fp, region, signal));
  }

  private build(apiKey: string, onUnauthorized: () => void): MeteredVpcApi {
    const e = this.o.endpoints ?? {};
    const opts: VpcClientOptions = {
      apiKey,
      serviceUrl: e.vpc ?? DEFAULT_VPC_URL,
      iamUrl: e.iam,
      resourceManagerUrl: e.resourceManager,
      globalTaggingUrl: e.globalTagging,
      timeoutMs: this.o.timeoutMs,
      agents: this.agents,
    };
    const inner = this.o.createVpcApi ? this.o.createVpcApi(opts) : createVpcClient(opts);
    return new MeteredVpcApi(inner, {
      limiter: this.limiter,
      scope: 'global',
      retry: this.retry,
      clock: this.o.clock,
      onUnauthorized,
    });
  }

  private async regional(account: Account, fp: string, region: string, signal?: AbortSignal): Promise<IbmClients> {
    let endpoint = this.o.endpoints?.vpc;
    if (!endpoint) {
      try {
        endpoint = (await account.base.getRegion(region, { signal })).endpoint;
      } catch (err) {
        if (classifyVpcError(err) === 'notFound') {
          throw new InvalidMachineConfigurationError(
            `${PROVIDER_SPEC_PATH}.region: Invalid value: ${JSON.stringify(region)}: IBM Cloud VPC has no such region`,
            {
              field: `${PROVIDER_SPEC_PATH}.region`,
              cause: err,
            },
          );
        }
        throw err;
      }
    }
    // Shares the key's authenticator, and so its token; metered in the region's buckets.
    const vpc = account.base.withServiceUrl(endpoint, region);
    const accountId = (signal?: AbortSignal): Promise<string> =>
      account.accountId.get('', () => vpc.getAccountId({ signal }));
    const finders = new Map<string, ListingSnapshot<VpcInstance>>();
    const finderFor = (vpcName: string): ListingSnapshot<VpcInstance> => {
      let f = finders.get(vpcName);
      if (!f) {
        f = new ListingSnapshot<VpcInstance>({
          clock: this.o.clock,
          windowMs: this.o.batchWindowMs ?? 5,
          reuseMs: this.o.snapshotReuseMs,
          maxBatch: 1_000,
          admit: () => this.limiter.whenAvailable('global', 'describe'),
          // Outside a burst, each key on its own: GET by id (404 = not there), the name filter of the VPC's list.
          fetch: (keys) => fetchInstanceKeys(vpc, vpcName, keys),
          fetchesOneByOne: true,
          // In a burst, every instance of the VPC, all pages: one list answers look-ups by id and by name.
          list: async () => {
            const found = new Map<string, VpcInstance>();
            for (const full of await vpc.listInstances({ vpcName })) {
              const i = slimInstance(full);
              found.set(keyString({ id: i.id }), i);
              found.set(keyString({ name: i.name }), i);
            }
            return found;
          },
        });
        finders.set(vpcName, f);
      }
      return f;
    };
    // The prototype does not name the VPC the way look-ups do, so a created name is forgotten in every VPC.
    const tracked = afterCalls(vpc, {
      createInstance: (prototype) => {
        for (const f of finders.values()) f.forget(keyString({ name: prototype.name }));
      },
      deleteInstance: (id) => {
        for (const f of finders.values()) f.forgetMatching((_k, i) => i.id === id);
      },
    });
    // A failed look-up is not cached and not papered over with an older list: the caller sees the error.
    const profileCache = new RefreshingCache<InstanceProfile[]>(
      this.o.clock,
      this.o.profileCacheTtlMs ?? PROFILE_CACHE_TTL_MS,
      { serveStale: () => false },
    );
    const profiles = (signal?: AbortSignal): Promise<InstanceProfile[]> =>
      profileCache.get('all', () => vpc.listInstanceProfiles({ signal }));
    return {
      key: `${fp}/${region}`,
      region,
      vpc: tracked,
      accountId,
      findInstance: (vpcName, key, signal, current) => finderFor(vpcName).get(keyString(key), signal, current),
      profiles,
    };
  }
}
