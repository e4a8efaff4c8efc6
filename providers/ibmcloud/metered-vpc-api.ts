// A VpcApi decorator: every call first takes a token from the shared client-side rate limiter (reads and
// writes metered apart), and idempotent calls that fail with a retryable error (429, 5xx, no response) are
// retried with jittered backoff. createInstance is never retried here: a lost reply is settled by the next
// reconcile, which finds the instance by name (or gets 409 and adopts it).
import pRetry from 'p-retry';
import type { ActionClass, RegionalRateLimiter } from '../../lib/index.js';
import { classifyVpcError } from './errors.js';
import { isVpcApiError } from './vpc-api-error.js';
import type { CallOptions, VpcApi } from './vpc-api.js';
import type {
  DedicatedHostFilter,
  ImageFilter,
  InstanceFilter,
  InstancePrototype,
  ResourceGroupFilter,
  ResourceGroupLookup,
  SecurityGroupFilter,
  SubnetFilter,
} from './vpc-types.js';

export interface RetryPolicy {
  /** Retries after the first attempt (default 3). */
  retries: number;
  minTimeoutMs: number;
  maxTimeoutMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = { retries: 3, minTimeoutMs: 200, maxTimeoutMs: 5_000 };

export interface Meter {
  limiter: RegionalRateLimiter;
  /** The rate-limit scope, e.g. the region. */
  scope: string;
  retry: RetryPolicy;
  /** Told when a service refused the bearer token (401): the token was revoked, and a new one is needed. */
  onUnauthorized?: () => void;
}

const retryable = (err: unknown): boolean => {
  const cls = classifyVpcError(err);
  return cls === 'throttled' || cls === 'transient';
};

export class MeteredVpcApi implements VpcApi {
  constructor(
    private readonly inner: VpcApi,
    private readonly meter: Meter,
  ) {}

  get serviceUrl(): string {
    return this.inner.serviceUrl;
  }

  withServiceUrl(serviceUrl: string, scope = this.meter.scope): VpcApi {
    return new MeteredVpcApi(this.inner.withServiceUrl(serviceUrl), { ...this.meter, scope });
  }

  private async once<T>(cls: ActionClass, o: CallOptions | undefined, fn: () => Promise<T>): Promise<T> {
    await this.meter.limiter.acquire(this.meter.scope, cls, o?.signal);
    try {
      return await fn();
    } catch (err) {
      if (isVpcApiError(err) && err.status === 401 && err.service !== 'iam') this.meter.onUnauthorized?.();
      throw err;
    }
  }

  private retried<T>(cls: ActionClass, o: CallOptions | undefined, fn: () => Promise<T>): Promise<T> {
    const { retries, minTimeoutMs, maxTimeoutMs } = this.meter.retry;
    return pRetry(() => this.once(cls, o, fn), {
      retries,
      minTimeout: minTimeoutMs,
      maxTimeout: maxTimeoutMs,
      randomize: true,
      signal: o?.signal,
      shouldRetry: ({ error }) => !o?.signal?.aborted && retryable(error),
    });
  }

  getAccountId(o?: CallOptions): Promise<string> {
    // An IAM token call at most (cached by the authenticator); not a VPC call, so not metered.
    return pRetry(() => this.inner.getAccountId(o), {
      retries: this.meter.retry.retries,
      minTimeout: this.meter.retry.minTimeoutMs,
      maxTimeout: this.meter.retry.maxTimeoutMs,
      randomize: true,
      signal: o?.signal,
      shouldRetry: ({ error }) => !o?.signal?.aborted && retryable(error),
    });
  }

  getRegion = (name: string, o?: CallOptions) => this.retried('describe', o, () => this.inner.getRegion(name, o));
  listInstances = (f: InstanceFilter, o?: CallOptions) => this.retried('describe', o, () => this.inner.listInstances(f, o));
  getInstance = (id: string, o?: CallOptions) => this.retried('describe', o, () => this.inner.getInstance(id, o));
  createInstance = (p: InstancePrototype, o?: CallOptions) => this.once('mutate', o, () => this.inner.createInstance(p, o));
  deleteInstance = (id: string, o?: CallOptions) => this.retried('mutate', o, () => this.inner.deleteInstance(id, o));
  getInstanceProfile = (name: string, o?: CallOptions) => this.retried('describe', o, () => this.inner.getInstanceProfile(name, o));
  listInstanceProfiles = (o?: CallOptions) => this.retried('describe', o, () => this.inner.listInstanceProfiles(o));
  listVpcs = (f?: ResourceGroupFilter, o?: CallOptions) => this.retried('describe', o, () => this.inner.listVpcs(f, o));
  listImages = (f?: ImageFilter, o?: CallOptions) => this.retried('describe', o, () => this.inner.listImages(f, o));
  listSubnets = (f?: SubnetFilter, o?: CallOptions) => this.retried('describe', o, () => this.inner.listSubnets(f, o));
  listSecurityGroups = (f?: SecurityGroupFilter, o?: CallOptions) => this.retried('describe', o, () => this.inner.listSecurityGroups(f, o));
  listDedicatedHosts = (f?: DedicatedHostFilter, o?: CallOptions) => this.retried('describe', o, () => this.inner.listDedicatedHosts(f, o));
  listResourceGroups = (l: ResourceGroupLookup, o?: CallOptions) => this.retried('describe', o, () => this.inner.listResourceGroups(l, o));
  // Attaching the same tags again is a no-op for Global Tagging, so a retry is safe.
  attachTags = (crns: string[], tags: string[], o?: CallOptions) => this.retried('mutate', o, () => this.inner.attachTags(crns, tags, o));
  listAttachedTags = (crn: string, o?: CallOptions) => this.retried('describe', o, () => this.inner.listAttachedTags(crn, o));
}
