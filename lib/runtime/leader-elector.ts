// Leader election on a coordination.k8s.io/v1 Lease, with client-go's rules: a lease held by someone
// else is free once we have seen it unchanged for its leaseDurationSeconds (our own clock, never the
// holder's); the leader renews every retryPeriod and has lost when no renewal succeeds within
// renewDeadline; a clean release empties holderIdentity so the next candidate need not wait.
// The renew deadline runs from the start of the last successful renewal, not from when the renewal loop
// next gets to run: a process paused past it (SIGSTOP) has lost when it resumes, and its write fence
// (lease-write-fence.ts) refuses writes from that instant on.
import type { Lease } from '../apis/core.js';
import { isConflict, isNotFound } from '../client/errors.js';
import type { KubeClient } from '../client/kube-client.js';
import { Leases } from '../client/resources.js';
import type { Clock } from '../base/clock.js';
import { retryCall } from './retry-call.js';
import type { LeaseWriteFence } from './lease-write-fence.js';
import type { Logger } from '../base/logger.js';

export interface LeaderElectionConfig {
  /** The Lease name. */
  id: string;
  namespace: string;
  /** Default: hostname_random. */
  identity?: string;
  /** Defaults 15 s / 10 s / 2 s (controller-runtime). */
  leaseDurationMs?: number;
  renewDeadlineMs?: number;
  retryPeriodMs?: number;
}

export class LeaderElectionConfigError extends Error {
  override readonly name = 'LeaderElectionConfigError';
}

const jitterFactor = 1.2;

export class LeaderElector {
  readonly identity: string;
  private readonly leaseDurationMs: number;
  private readonly renewDeadlineMs: number;
  private readonly retryPeriodMs: number;
  private lease: Lease | undefined;
  private observedSpec = '';
  private observedTime = 0;
  private leader = false;
  /** Clock time at the start of the last acquire or renewal the server accepted. */
  private renewedAt = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly config: LeaderElectionConfig,
    private readonly deps: {
      client: KubeClient;
      clock: Clock;
      logger: Logger;
      defaultIdentity: string;
      fence?: LeaseWriteFence;
      /** Told whenever this process starts or stops leading (and, with false, when it becomes a candidate). */
      onLeading?: (leading: boolean) => void;
    },
  ) {
    this.identity = config.identity || deps.defaultIdentity;
    this.leaseDurationMs = config.leaseDurationMs ?? 15_000;
    this.renewDeadlineMs = config.renewDeadlineMs ?? 10_000;
    this.retryPeriodMs = config.retryPeriodMs ?? 2_000;
    if (!config.id) throw new LeaderElectionConfigError('leaderElection.id is required');
    if (!config.namespace) throw new LeaderElectionConfigError('leaderElection.namespace is required');
    if (!(this.leaseDurationMs > this.renewDeadlineMs)) {
      throw new LeaderElectionConfigError(
        `leaderElection: leaseDurationMs (${this.leaseDurationMs}) must be greater than renewDeadlineMs (${this.renewDeadlineMs})`,
      );
    }
    if (!(this.renewDeadlineMs > jitterFactor * this.retryPeriodMs)) {
      throw new LeaderElectionConfigError(
        `leaderElection: renewDeadlineMs (${this.renewDeadlineMs}) must be greater than ${jitterFactor} × retryPeriodMs (${this.retryPeriodMs})`,
      );
    }
  }

  /** Leader, and not yet past the renew deadline by this process's clock (it may have been paused). */
  isLeader(): boolean {
    return this.leader && this.deps.clock.now() < this.renewedAt + this.renewDeadlineMs;
  }

  /** Tries every retryPeriod (with jitter) until this process holds the lease; false if the signal aborted first. */
  async acquire(signal: AbortSignal): Promise<boolean> {
    this.deps.logger.info('attempting to acquire leader lease', {
      lease: `${this.config.namespace}/${this.config.id}`,
      identity: this.identity,
    });
    this.deps.onLeading?.(false);
    while (!signal.aborted) {
      if (await this.tryAcquireOrRenew(signal)) {
        this.leader = true;
        this.deps.onLeading?.(true);
        this.deps.logger.info('successfully acquired lease', {
          lease: `${this.config.namespace}/${this.config.id}`,
          identity: this.identity,
        });
        return true;
      }
      const wait = this.retryPeriodMs * (1 + Math.random() * (jitterFactor - 1));
      if (!(await this.sleep(wait, signal))) break;
    }
    return false;
  }

  /** Renews until the signal aborts ('stopped') or no renewal succeeds within renewDeadline ('lost'). */
  async keepRenewing(signal: AbortSignal): Promise<'stopped' | 'lost'> {
    while (!signal.aborted) {
      const deadline = this.renewedAt + this.renewDeadlineMs;
      let renewed = false;
      while (!signal.aborted && this.deps.clock.now() < deadline) {
        const attempt = new AbortController();
        const timer = this.deps.clock.setTimeout(
          () => attempt.abort(new Error('renew deadline passed')),
          deadline - this.deps.clock.now(),
        );
        try {
          // Not cut short by the stop signal: a renewal the server applies while we give up on it
          // would leave us holding a stale resourceVersion, and the release would then conflict.
          renewed = await this.tryAcquireOrRenew(attempt.signal);
        } finally {
          timer.cancel();
        }
        if (renewed) break;
        const left = deadline - this.deps.clock.now();
        if (left <= 0 || !(await this.sleep(Math.min(this.retryPeriodMs, left), signal))) break;
      }
      if (signal.aborted) return 'stopped';
      if (!renewed) {
        this.leader = false;
        this.deps.onLeading?.(false);
        this.deps.fence?.close();
        this.deps.logger.error('failed to renew lease within the renew deadline; leadership lost', {
          lease: `${this.config.namespace}/${this.config.id}`,
          renewDeadlineMs: this.renewDeadlineMs,
        });
        return 'lost';
      }
      if (!(await this.sleep(this.retryPeriodMs, signal))) return 'stopped';
    }
    return 'stopped';
  }

  /** Gives the lease up (holderIdentity ""), so another candidate can take it at once. */
  async release(signal?: AbortSignal): Promise<void> {
    if (!this.leader || !this.lease) return;
    this.leader = false;
    this.deps.onLeading?.(false);
    this.deps.fence?.close();
    const key = { namespace: this.config.namespace, name: this.config.id };
    const held = this.lease;
    try {
      await retryCall(
        async (attempt) => {
          // Our own last renewal may have landed after we read it: look again and release if it is still ours.
          const current = attempt === 1 ? held : await this.deps.client.get(Leases, key, { signal });
          if (current.spec?.holderIdentity !== this.identity) return;
          const now = microTime(this.deps.clock.now());
          const released: Lease = {
            ...current,
            spec: {
              holderIdentity: '',
              leaseDurationSeconds: 1,
              acquireTime: now,
              renewTime: now,
              leaseTransitions: current.spec?.leaseTransitions ?? 0,
            },
          };
          this.lease = await this.deps.client.update(Leases, released, { signal });
          this.deps.logger.info('released leader lease', { lease: `${key.namespace}/${key.name}` });
        },
        { signal, retryable: isConflict, retries: 2, minTimeoutMs: 0, clock: this.deps.clock },
      );
    } catch (err) {
      this.deps.logger.warn('could not release leader lease', { error: err });
    }
  }

  private async tryAcquireOrRenew(signal: AbortSignal): Promise<boolean> {
    const now = this.deps.clock.now();
    const seconds = Math.max(1, Math.ceil(this.leaseDurationMs / 1000));
    const key = { namespace: this.config.namespace, name: this.config.id };
    let current: Lease;
    try {
      current = await this.deps.client.get(Leases, key, { signal });
    } catch (err) {
      if (!isNotFound(err)) {
        this.deps.logger.debug('error retrieving lease', { error: err }, 2);
        return false;
      }
      try {
        this.lease = await this.deps.client.create(
          Leases,
          {
            apiVersion: 'coordination.k8s.io/v1',
            kind: 'Lease',
            metadata: { name: this.config.id, namespace: this.config.namespace },
            spec: {
              holderIdentity: this.identity,
              leaseDurationSeconds: seconds,
              acquireTime: microTime(now),
              renewTime: microTime(now),
              leaseTransitions: 0,
            },
          },
          { signal },
        );
        this.observe(this.lease, now);
        this.renewed(now);
        return true;
      } catch (createErr) {
        this.deps.logger.debug('error creating lease', { error: createErr }, 2);
        return false;
      }
    }
    this.observe(current, now);
    const spec = current.spec ?? {};
    const holder = spec.holderIdentity ?? '';
    const heldByOther = holder !== '' && holder !== this.identity;
    if (heldByOther && this.observedTime + (spec.leaseDurationSeconds ?? seconds) * 1000 > now) {
      this.leader = false;
      return false;
    }
    const stillMine = holder === this.identity;
    const next: Lease = {
      ...current,
      spec: {
        holderIdentity: this.identity,
        leaseDurationSeconds: seconds,
        acquireTime: stillMine && spec.acquireTime ? spec.acquireTime : microTime(now),
        renewTime: microTime(now),
        leaseTransitions: (spec.leaseTransitions ?? 0) + (stillMine ? 0 : 1),
      },
    };
    try {
      this.lease = await this.deps.client.update(Leases, next, { signal });
      this.observe(this.lease, now);
      this.renewed(now);
      return true;
    } catch (err) {
      this.deps.logger.debug('failed to update lease', { error: err }, 2);
      return false;
    }
  }

  /** `attemptStart`: the renewal began then, so no other replica can have seen it earlier. */
  private renewed(attemptStart: number): void {
    this.renewedAt = attemptStart;
    this.deps.fence?.holdUntil(attemptStart + this.renewDeadlineMs);
  }

  /** The holder's record counts as "seen changing" only when its content differs from what we saw last. */
  private observe(lease: Lease, now: number): void {
    const spec = JSON.stringify(lease.spec ?? {});
    if (spec !== this.observedSpec) {
      this.observedSpec = spec;
      this.observedTime = now;
    }
    this.lease = lease;
  }

  private async sleep(ms: number, signal: AbortSignal): Promise<boolean> {
    try {
      await this.deps.clock.sleep(ms, signal);
      return true;
    } catch {
      return false;
    }
  }
}

/** metav1.MicroTime on the wire: RFC 3339 with six fractional digits. */
export function microTime(ms: number): string {
  return new Date(ms).toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}
