// A VpcApi decorator: every call first takes a token from the shared client-side rate limiter (reads and
// writes metered apart), and idempotent calls that fail with a retryable error (429, 5xx, no response) are
// retried with jittered backoff. A 429 is answered as the VPC asks: its Retry-After is waited out, and by
// every caller of that class of call, not just the one refused (the shared limiter pauses the class and
// lowers its rate to what the VPC admits), so a throttled account gets a pause instead of a retry per worker.
// createInstance is retried only after a 429 (the request was refused before it was acted on); a lost reply
// or a 5xx is settled by the next reconcile, which finds the instance by name (or gets 409 and adopts it).
import {
  RealClock,
  retryCall,
  type ActionClass,
  type Clock,
  type RegionalRateLimiter,
  type RetryCallOptions,
} from '../../lib/index.js';
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
  /** First backoff; it doubles per attempt. */
  minTimeoutMs: number;
  /** Longest wait before a retry, a Retry-After included. */
  maxTimeoutMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = { retries: 3, minTimeoutMs: 200, maxTimeoutMs: 5_000 };

export interface Meter {
  limiter: RegionalRateLimiter;
  /** The rate-limit scope, e.g. the region. */
  scope: string;
  retry: RetryPolicy;
  /** Times backoff and Retry-After pauses (default: the real clock). */
  clock?: Clock;
  /** Told when a service refused the bearer token (401): the token was revoked, and a new one is needed. */
  onUnauthorized?: () => void;
}

const retryable = (err: unknown): boolean => {
  const cls = classifyVpcError(err);
  return cls === 'throttled' || cls === 'transient';
};

/** A 429 means the request was turned away unread: even a non-idempotent call may be sent again. */
const throttled = (err: unknown): boolean => classifyVpcError(err) === 'throttled';

/** The service's Retry-After, spread a little so the callers it held back do not all return at once. */
const askedWaitMs = (err: unknown): number | undefined => {
  const asked = isVpcApiError(err) ? err.retryAfterSeconds : undefined;
  return asked === undefined ? undefined : asked * 1000 * (1 + Math.random() / 4);
};

export class MeteredVpcApi implements VpcApi {
  private readonly clock: Clock;

  constructor(
    private readonly inner: VpcApi,
    private readonly meter: Meter,
  ) {
    this.clock = meter.clock ?? new RealClock();
  }

  get serviceUrl(): string {
    return this.inner.serviceUrl;
  }

  withServiceUrl(serviceUrl: string, scope = this.meter.scope): VpcApi {
    return new MeteredVpcApi(this.inner.withServiceUrl(serviceUrl), { ...this.meter, scope });
  }

  private once<T>(cls: ActionClass, o: CallOptions | undefined, fn: () => Promise<T>): Promise<T> {
    const { limiter, scope } = this.meter;
    return limiter.send(scope, cls, () => this.sent(fn), {
      signal: o?.signal,
      isThrottling: throttled,
      pauseMsOf: (err) => this.pauseMs(err),
    });
  }

  private async sent<T>(fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (err) {
      if (isVpcApiError(err) && err.status === 401 && err.service !== 'iam') this.meter.onUnauthorized?.();
      throw err;
    }
  }

  /**
   * The wait a throttled class pauses for: the VPC's Retry-After when it sent one, else the first backoff,
   * jittered; never more than maxTimeoutMs.
   */
  private pauseMs(err: unknown): number {
    const { minTimeoutMs, maxTimeoutMs } = this.meter.retry;
    return Math.min(maxTimeoutMs, askedWaitMs(err) ?? minTimeoutMs * (1 + Math.random()));
  }

  private retried<T>(
    cls: ActionClass,
    o: CallOptions | undefined,
    fn: () => Promise<T>,
    shouldRetry: (err: unknown) => boolean = retryable,
  ): Promise<T> {
    return retryCall(() => this.once(cls, o, fn), {
      ...this.retryOptions(o),
      retryable: shouldRetry,
      // A 429 already holds the class back (once); other failures wait the backoff here.
      waitMs: (err, backoffMs) => (throttled(err) ? 0 : backoffMs),
    });
  }

  private retryOptions(o: CallOptions | undefined): Omit<RetryCallOptions, 'retryable'> {
    const { retries, minTimeoutMs, maxTimeoutMs } = this.meter.retry;
    return { signal: o?.signal, retries, minTimeoutMs, maxTimeoutMs, clock: this.clock };
  }

  getAccountId(o?: CallOptions): Promise<string> {
    // An IAM token call at most (cached by the authenticator); not a VPC call, so not metered.
    return retryCall(() => this.inner.getAccountId(o), {
      ...this.retryOptions(o),
      retryable,
      waitMs: (err, backoffMs) => askedWaitMs(err) ?? backoffMs,
    });
  }

  getRegion = (name: string, o?: CallOptions) => this.retried('describe', o, () => this.inner.getRegion(name, o));
  listInstances = (f: InstanceFilter, o?: CallOptions) =>
    this.retried('describe', o, () => this.inner.listInstances(f, o));
  getInstance = (id: string, o?: CallOptions) => this.retried('describe', o, () => this.inner.getInstance(id, o));
  createInstance = (p: InstancePrototype, o?: CallOptions) =>
    this.retried('mutate', o, () => this.inner.createInstance(p, o), throttled);
  deleteInstance = (id: string, o?: CallOptions) => this.retried('mutate', o, () => this.inner.deleteInstance(id, o));
  getInstanceProfile = (name: string, o?: CallOptions) =>
    this.retried('describe', o, () => this.inner.getInstanceProfile(name, o));
  listInstanceProfiles = (o?: CallOptions) => this.retried('describe', o, () => this.inner.listInstanceProfiles(o));
  listVpcs = (f?: ResourceGroupFilter, o?: CallOptions) => this.retried('describe', o, () => this.inner.listVpcs(f, o));
  listImages = (f?: ImageFilter, o?: CallOptions) => this.retried('describe', o, () => this.inner.listImages(f, o));
  listSubnets = (f?: SubnetFilter, o?: CallOptions) => this.retried('describe', o, () => this.inner.listSubnets(f, o));
  listSecurityGroups = (f?: SecurityGroupFilter, o?: CallOptions) =>
    this.retried('describe', o, () => this.inner.listSecurityGroups(f, o));
  listDedicatedHosts = (f?: DedicatedHostFilter, o?: CallOptions) =>
    this.retried('describe', o, () => this.inner.listDedicatedHosts(f, o));
  listResourceGroups = (l: ResourceGroupLookup, o?: CallOptions) =>
    this.retried('describe', o, () => this.inner.listResourceGroups(l, o));
  // Attaching the same tags again is a no-op for Global Tagging, so a retry is safe.
  attachTags = (crns: string[], tags: string[], o?: CallOptions) =>
    this.retried('mutate', o, () => this.inner.attachTags(crns, tags, o));
  listAttachedTags = (crn: string, o?: CallOptions) =>
    this.retried('describe', o, () => this.inner.listAttachedTags(crn, o));
}
