// Builds and caches the SDK clients: one set per (region, credentials fingerprint), rebuilt when the
// credentials Secret changes, instead of the reference's fresh session (and temp file) per reconcile.
// All clients share one rate limiter; each set has its own DescribeInstances batcher.
import { EC2Client, type Instance } from '@aws-sdk/client-ec2';
import { ElasticLoadBalancingClient } from '@aws-sdk/client-elastic-load-balancing';
import { ElasticLoadBalancingV2Client } from '@aws-sdk/client-elastic-load-balancing-v2';
import { ConfiguredRetryStrategy } from '@smithy/util-retry';
import {
  ClientsByCredentials,
  RegionalRateLimiter,
  afterCalls,
  type Clock,
  type CloudRateLimits,
  type WriteFence,
  type OutboundHttp,
} from '../../lib/index.js';
import { fromTokenFile } from '@aws-sdk/credential-provider-web-identity';
import {
  credentialsFingerprint,
  isWebIdentity,
  type AwsCredentialSource,
  type AwsCredentials,
  type AwsWebIdentity,
} from './credentials.js';
import { SdkEc2Api, type Ec2Api } from './ec2-api.js';
import { classifyEc2Error, ec2ErrorCode } from './errors.js';
import { InstanceCache } from './instance-cache.js';
import { meterAttempts } from './metered-attempts.js';
import { CLUSTER_TAG_PREFIX, NAME_TAG } from './instances.js';
import { withLookupCache } from './lookup-cache.js';
import { DEFAULT_EC2_RATE_LIMITS } from './rate-limiter.js';

export interface AwsEndpoints {
  ec2?: string;
  elb?: string;
  elbv2?: string;
  /** STS, for web identity credentials; default the region's STS endpoint. */
  sts?: string;
}

export interface AwsClientFactoryOptions {
  clock: Clock;
  /** One endpoint for EC2, ELB and ELBv2 (an emulator, a private or FIPS endpoint); per-service ones win. */
  endpoint?: string;
  endpoints?: AwsEndpoints;
  /** Used when a providerSpec names no credentials Secret; unset = the SDK default chain (env, IMDS role). */
  defaultCredentials?: AwsCredentials;
  rateLimits?: CloudRateLimits;
  /** The leader's fence: no mutating call leaves while it is closed (see RegionalRateLimiter). */
  fence?: WriteFence;
  /** SDK attempts per call (default 3); the controller's own backoff does the rest. */
  maxAttempts?: number;
  /** Delay before SDK retry n (tests make it tiny); default: the SDK's jittered exponential backoff. */
  retryDelayMs?: (attempt: number) => number;
  requestTimeoutMs?: number;
  /** Window for coalescing DescribeInstances by id or Name (default 20 ms: long enough for the workers of a resync to meet). */
  batchWindowMs?: number;
  /** How long a burst's listing of the cluster's instances keeps answering after its last answer (default 10 s; 0 = never list). */
  instanceReuseMs?: number;
  /** How long AMI/subnet/security-group/zone/VPC/DHCP look-ups are reused (default 60 s). */
  lookupCacheTtlMs?: number;
  /** Proxy and trusted CAs for every AWS call; unset = direct, Node's CAs. */
  outbound?: OutboundHttp;
  /** Replaces the SDK implementation (unit tests use a fake Ec2Api). */
  createEc2Api?: (region: string, credentials: AwsCredentialSource | undefined) => Ec2Api;
}

export interface AwsClients {
  readonly region: string;
  readonly ec2: Ec2Api;
  /** DescribeInstances by id or Name tag, coalesced across callers and briefly reused; undefined = EC2 does not know the id. */
  readonly instances: InstanceCache;
}

const MAX_IDS_PER_DESCRIBE = 1000;

/** Every instance state but terminated: what a listing of the cluster's instances asks EC2 for. */
const LISTED_STATES = ['pending', 'running', 'shutting-down', 'stopping', 'stopped'];

/** Describes ids; an unknown id fails the whole EC2 call, so drop the ids EC2 names and ask again for the rest. */
export async function describeInstancesById(ec2: Ec2Api, ids: string[]): Promise<Map<string, Instance>> {
  const found = new Map<string, Instance>();
  if (ids.length === 0) return found;
  try {
    for (const i of await ec2.describeInstances({ instanceIds: ids })) if (i.InstanceId) found.set(i.InstanceId, i);
    return found;
  } catch (err) {
    const code = ec2ErrorCode(err);
    if (classifyEc2Error(err) !== 'notFound' && code !== 'InvalidInstanceID.Malformed') throw err;
    if (ids.length === 1) return found;
    const text = err instanceof Error ? err.message : '';
    const named = ids.filter((id) => text.includes(id));
    if (named.length > 0 && named.length < ids.length)
      return describeInstancesById(
        ec2,
        ids.filter((id) => !named.includes(id)),
      );
    if (named.length === ids.length) return found;
    const half = Math.ceil(ids.length / 2);
    const [a, b] = await Promise.all([
      describeInstancesById(ec2, ids.slice(0, half)),
      describeInstancesById(ec2, ids.slice(half)),
    ]);
    return new Map([...a, ...b]);
  }
}

interface Entry {
  clients: AwsClients;
  destroy: () => void;
}

export class AwsClientFactory {
  /** One client set per (region, credentials); each (region, credentials source) uses one, and stale ones are dropped. */
  private readonly entries = new ClientsByCredentials<Entry>((e) => e.destroy());
  readonly limiter: RegionalRateLimiter;

  constructor(private readonly opts: AwsClientFactoryOptions) {
    this.limiter = new RegionalRateLimiter(opts.rateLimits ?? DEFAULT_EC2_RATE_LIMITS, opts.clock, opts.fence);
  }

  /**
   * The clients for a region and credentials. `source` names where the credentials came from (e.g. the
   * Secret's namespace/name); when its credentials change, the clients built from the old ones are dropped.
   */
  get(region: string, credentials: AwsCredentialSource | undefined, source = 'default'): AwsClients {
    const creds = credentials ?? this.opts.defaultCredentials;
    return this.entries.get(`${region}|${source}`, `${region}|${credentialsFingerprint(creds)}`, () =>
      this.build(region, creds),
    ).clients;
  }

  private build(region: string, credentials: AwsCredentialSource | undefined): Entry {
    let ec2: Ec2Api;
    let destroy = () => {};
    if (this.opts.createEc2Api) {
      ec2 = this.opts.createEc2Api(region, credentials);
    } else {
      const delay = this.opts.retryDelayMs;
      // The SDK's own handler neither proxies nor reads a CA bundle: it gets agents that do. One pair per client
      // set, since destroying a client destroys its agents.
      const agents = this.opts.outbound?.newAgents();
      const requestHandler = {
        requestTimeout: this.opts.requestTimeoutMs ?? 30_000,
        connectionTimeout: 5_000,
        throwOnRequestTimeout: true,
        ...(agents ? { httpAgent: agents.http, httpsAgent: agents.https } : {}),
      };
      const common = {
        region,
        credentials:
          credentials && isWebIdentity(credentials)
            ? this.webIdentity(region, credentials, requestHandler)
            : credentials,
        maxAttempts: delay ? undefined : (this.opts.maxAttempts ?? 3),
        // Standard, not adaptive: the pacing after RequestLimitExceeded is the shared limiter's (every attempt
        // passes it, see meterAttempts), one rate per region and class for all client sets. The SDK's adaptive
        // mode would pace each client on its own estimate, below the rate EC2 admits.
        retryMode: delay ? undefined : 'standard',
        retryStrategy: delay ? new ConfiguredRetryStrategy(this.opts.maxAttempts ?? 3, delay) : undefined,
        requestHandler,
      };
      const ep = { ...this.opts.endpoints };
      const ec2Client = new EC2Client({ ...common, endpoint: ep.ec2 ?? this.opts.endpoint });
      const elb = new ElasticLoadBalancingClient({ ...common, endpoint: ep.elb ?? this.opts.endpoint });
      const elbv2 = new ElasticLoadBalancingV2Client({ ...common, endpoint: ep.elbv2 ?? this.opts.endpoint });
      meterAttempts(ec2Client.middlewareStack, this.limiter, region);
      meterAttempts(elb.middlewareStack, this.limiter, region);
      meterAttempts(elbv2.middlewareStack, this.limiter, region);
      ec2 = new SdkEc2Api({ region, ec2: ec2Client, elb, elbv2 });
      destroy = () => {
        ec2Client.destroy();
        elb.destroy();
        elbv2.destroy();
        agents?.destroy();
      };
    }
    const api = ec2;
    const instances = new InstanceCache({
      clock: this.opts.clock,
      windowMs: this.opts.batchWindowMs ?? 20,
      maxIds: MAX_IDS_PER_DESCRIBE,
      reuseMs: this.opts.instanceReuseMs,
      describeByIds: (ids) => describeInstancesById(api, ids),
      listByTagKeys: async (tagKeys) => {
        const all = await api.describeInstances({
          // EC2 lists a terminated instance for about an hour: after a scale-down of thousands, a listing of
          // them all would mostly be parsed to be thrown away. A Machine whose instance is not listed is
          // described by its id, so leaving them out answers nobody wrongly.
          filters: [
            { Name: 'tag-key', Values: tagKeys },
            { Name: 'instance-state-name', Values: LISTED_STATES },
          ],
          maxResults: MAX_IDS_PER_DESCRIBE,
        });
        return new Map(all.flatMap((i) => (i.InstanceId ? [[i.InstanceId, i] as const] : [])));
      },
      // Only the SDK-backed API meets our limiter; an injected one (tests) is not held back by it.
      admit: this.opts.createEc2Api ? undefined : () => this.limiter.whenAvailable(region, 'describe'),
      describeByNames: (clusterId, names) =>
        api.describeInstances({
          filters: [
            { Name: `tag:${NAME_TAG}`, Values: names },
            { Name: `tag:${CLUSTER_TAG_PREFIX}${clusterId}`, Values: ['owned'] },
          ],
        }),
    });
    // Whoever terminates or tags an instance must not be served the view from before.
    ec2 = afterCalls(withLookupCache(ec2, this.opts.clock, this.opts.lookupCacheTtlMs), {
      terminateInstances: (ids) => instances.forget(ids),
      createTags: (id) => instances.forget([id]),
    });
    return { clients: { region, ec2, instances }, destroy };
  }

  /**
   * The SDK's own web identity provider: it reads the token file and calls STS AssumeRoleWithWebIdentity (through
   * the same proxy and CAs as EC2), and the client renews the credentials before they expire (the SDK refreshes
   * credentials that expire within five minutes), re-reading the token the kubelet rotates.
   */
  private webIdentity(region: string, w: AwsWebIdentity, requestHandler: object) {
    return fromTokenFile({
      roleArn: w.roleArn,
      webIdentityTokenFile: w.webIdentityTokenFile,
      // A stable name tells the role's CloudTrail entries apart from other users of the role.
      roleSessionName: w.roleSessionName ?? 'machine-api-provider-aws',
      clientConfig: {
        region,
        endpoint: this.opts.endpoints?.sts ?? this.opts.endpoint,
        requestHandler,
        maxAttempts: this.opts.maxAttempts ?? 3,
      },
    });
  }

  /** Closes every client's connections. */
  destroy(): void {
    for (const e of this.entries.clear()) e.destroy();
  }
}
