// The Manager runs informers, controllers and other runnables: caches and non-leader runnables on every
// replica, leader-only runnables once this process holds the Lease. It serves /healthz, /readyz (ready
// when every cache has synced) and /metrics, and on stop lets in-flight reconciles finish within the
// graceful-shutdown period before it releases the lease.
import { randomUUID } from 'node:crypto';
import { setMaxListeners } from 'node:events';
import { hostname } from 'node:os';
import { Registry } from 'prom-client';
import type { KubeObject } from '../apis/meta.js';
import { createEventRecorder, type AggregatingEventRecorder } from '../client/aggregating-event-recorder.js';
import type { EventRecorder } from '../client/event-recorder.js';
import type { KubeClient } from '../client/kube-client.js';
import type { Resource } from '../client/resources.js';
import type { Clock } from '../base/clock.js';
import { ControllerImpl } from './controller.js';
import { createLogger } from '../base/structured-logger.js';
import { LeaderElector, type LeaderElectionConfig } from './leader-elector.js';
import type { WriteFence } from '../client/write-fence.js';
import type { LeaseWriteFence } from './lease-write-fence.js';
import type { Logger } from '../base/logger.js';
import { serveHealth, type HealthCheck } from './health-endpoints.js';
import { parseBindAddress, ProbeServer } from './probe-server.js';
import { Profiler } from './profiling.js';
import { RealClock } from '../base/real-clock.js';
import { runtimeMetrics } from './runtime-metrics.js';
import { SharedInformer } from './shared-informer.js';
import type { Controller, ControllerManager, ControllerOptions, Informer, Runnable } from './types.js';

export interface ManagerOptions {
  client: KubeClient;
  /**
   * Renews the leader election Lease; default `client`. Give it a client with its own rate limit (as
   * controller-runtime does), so that a mass scale-up queueing thousands of writes behind `client`'s limit
   * never delays a renewal past the renew deadline and costs the lease.
   */
  leaderElectionClient?: KubeClient;
  /** Writes events; default `client`. Its own rate limit keeps events from competing with reconciles. */
  eventClient?: KubeClient;
  /** Restrict caches of namespaced kinds to this namespace. */
  namespace?: string;
  clock?: Clock;
  logger?: Logger;
  /** Metrics go here; default a fresh Registry (never the global one). */
  metrics?: Registry;
  /** Informer resync period; default 10 minutes. */
  syncPeriodMs?: number;
  leaderElection?: LeaderElectionConfig;
  /**
   * The fence of the clients this manager's controllers write through (give the same object to
   * createKubeClient's writeFence). With leader election it is open only while this process provably
   * holds the lease; without, it opens when the manager starts.
   */
  writeFence?: LeaseWriteFence;
  /** e.g. ":9440" or "127.0.0.1:0"; unset = no server. */
  healthAddr?: string;
  /** Unset or "0" = none. */
  metricsAddr?: string;
  /** Where the profiling endpoints (/debug/pprof/profile, /debug/pprof/heap) listen; unset = none. */
  pprofAddr?: string;
  /** How long in-flight work may take to finish after stop; default 30 s. */
  gracefulShutdownMs?: number;
  onLeadershipLost?: () => void;
}

export class LeaderElectionLostError extends Error {
  override readonly name = 'LeaderElectionLostError';
}

export type { HealthCheck } from './health-endpoints.js';

/** The readiness check every manager has: each informer's cache has synced. */
export const CACHES_SYNCED_CHECK = 'caches-synced';
/** The informers' resync period when none is given: controller-runtime's 10 minutes. */
const DEFAULT_SYNC_PERIOD_MS = 600_000;

interface Running {
  runnable: Runnable;
  done: Promise<void>;
}

export class Manager implements ControllerManager {
  readonly client: KubeClient;
  private readonly eventClient: KubeClient;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly metrics: Registry;
  readonly namespace?: string;
  /** The informers' resync period (ManagerOptions.syncPeriodMs, else 10 minutes). */
  readonly syncPeriodMs: number;
  private readonly informers = new Map<string, SharedInformer<KubeObject>>();
  private readonly recorders = new Map<string, AggregatingEventRecorder>();
  private readonly healthChecks = new Map<string, HealthCheck>();
  private readonly readyChecks = new Map<string, HealthCheck>();
  private readonly runnables: Runnable[] = [];
  private readonly running: Running[] = [];
  private readonly cacheRuns: Promise<void>[] = [];
  private readonly cacheStop = new AbortController();
  private readonly runStop = new AbortController();
  private readonly hardStop = new AbortController();
  private readonly identity: string;
  private elector: LeaderElector | undefined;
  private leaderRunnablesStarted = false;
  private started = false;
  private healthServer: ProbeServer | undefined;
  private metricsServer: ProbeServer | undefined;
  private pprofServer: ProbeServer | undefined;
  private pprofAddr: string | undefined;
  private readonly profilesStop = new AbortController();
  private healthAddr: string | undefined;
  private metricsAddr: string | undefined;
  private failure: unknown;
  private wake: (() => void) | undefined;
  private leading: Promise<void> | undefined;

  constructor(private readonly opts: ManagerOptions) {
    if (!opts.client) throw new Error('Manager: client is required');
    this.client = opts.client;
    this.eventClient = opts.eventClient ?? opts.client;
    this.clock = opts.clock ?? new RealClock();
    this.logger = opts.logger ?? createLogger();
    this.metrics = opts.metrics ?? new Registry();
    this.namespace = opts.namespace || undefined;
    this.syncPeriodMs = opts.syncPeriodMs ?? DEFAULT_SYNC_PERIOD_MS;
    // Every controller and informer of this manager waits on these signals: one listener each is expected,
    // not a leak.
    setMaxListeners(0, this.cacheStop.signal, this.runStop.signal, this.hardStop.signal);
    this.identity = opts.leaderElection?.identity || `${hostname()}_${randomUUID()}`;
    const leaderElection = opts.leaderElection;
    if (leaderElection) {
      const leaderStatus = runtimeMetrics(this.metrics).leaderElectionMasterStatus;
      this.elector = new LeaderElector(leaderElection, {
        client: opts.leaderElectionClient ?? this.client,
        clock: this.clock,
        logger: this.logger.child({ component: 'leader-election' }),
        defaultIdentity: this.identity,
        fence: opts.writeFence,
        onLeading: (leading) => leaderStatus.set({ name: leaderElection.id }, leading ? 1 : 0),
      });
    }
    this.readyChecks.set(CACHES_SYNCED_CHECK, () => {
      if (!this.ready) throw new Error('not every informer cache has synced');
    });
    parseBindAddress(opts.healthAddr);
    parseBindAddress(opts.metricsAddr);
    parseBindAddress(opts.pprofAddr);
  }

  /** True once every informer has synced. */
  get writeFence(): WriteFence | undefined {
    return this.opts.writeFence;
  }

  get ready(): boolean {
    return this.started && [...this.informers.values()].every((i) => i.hasSynced());
  }

  isLeader(): boolean {
    return this.elector ? this.elector.isLeader() : this.started;
  }

  /** Adds a named check to /healthz (liveness), also served alone at /healthz/<name>. */
  addHealthzCheck(name: string, check: HealthCheck): void {
    this.healthChecks.set(name, check);
  }

  /** Adds a named check to /readyz, beside "caches-synced"; also served alone at /readyz/<name>. */
  addReadyzCheck(name: string, check: HealthCheck): void {
    this.readyChecks.set(name, check);
  }

  healthAddress(): string | undefined {
    return this.healthAddr;
  }

  metricsAddress(): string | undefined {
    return this.metricsAddr;
  }

  pprofAddress(): string | undefined {
    return this.pprofAddr;
  }

  informer<T extends KubeObject>(resource: Resource<T>): Informer<T> {
    const key = `${resource.group}/${resource.version}/${resource.plural}`;
    let inf = this.informers.get(key);
    if (!inf) {
      inf = new SharedInformer<KubeObject>({
        client: this.client,
        resource,
        namespace: this.namespace,
        resyncPeriodMs: this.syncPeriodMs,
        clock: this.clock,
        logger: this.logger,
      });
      this.informers.set(key, inf);
      if (this.started) this.startInformer(inf);
    }
    return inf as unknown as Informer<T>;
  }

  eventRecorder(component: string): EventRecorder {
    let r = this.recorders.get(component);
    if (!r) {
      r = createEventRecorder({
        client: this.eventClient,
        component,
        clock: this.clock,
        logger: this.logger,
        host: hostname(),
      });
      this.recorders.set(component, r);
    }
    return r;
  }

  addController(opts: ControllerOptions): Controller {
    const c = new ControllerImpl(opts, {
      clock: this.clock,
      logger: this.logger,
      metrics: runtimeMetrics(this.metrics),
      hardStop: this.hardStop.signal,
    });
    this.add(c);
    return c;
  }

  add(runnable: Runnable): void {
    this.runnables.push(runnable);
    if (!this.started || this.runStop.signal.aborted) return;
    if (runnable.needLeaderElection === false || this.leaderRunnablesStarted) this.startRunnable(runnable);
  }

  /** Runs until the signal aborts, then shuts down gracefully. Rejects with LeaderElectionLostError when leadership is lost. */
  async start(signal: AbortSignal): Promise<void> {
    if (this.started) throw new Error('Manager already started');
    this.started = true;
    const log = this.logger;
    const stopped = new Promise<void>((resolve) => {
      this.wake = resolve;
      signal.addEventListener('abort', () => resolve(), { once: true });
      if (signal.aborted) resolve();
    });
    try {
      await this.startServers();
      for (const inf of this.informers.values()) this.startInformer(inf);
      for (const r of this.runnables) if (r.needLeaderElection === false) this.startRunnable(r);
      if (this.elector) {
        this.leading = this.lead(signal).catch((err: unknown) => this.fail(err));
      } else {
        this.opts.writeFence?.openForever();
        this.startLeaderRunnables();
      }
      await stopped;
    } catch (err) {
      this.failure ??= err;
    }
    log.info('stopping manager');
    await this.shutdown();
    if (this.failure instanceof LeaderElectionLostError) this.opts.onLeadershipLost?.();
    if (this.failure !== undefined)
      throw this.failure instanceof Error ? this.failure : new Error('manager failed', { cause: this.failure });
  }

  private async lead(signal: AbortSignal): Promise<void> {
    const elector = this.elector!;
    const acquired = await elector.acquire(this.runStop.signal);
    if (!acquired || signal.aborted) return;
    this.startLeaderRunnables();
    const outcome = await elector.keepRenewing(this.runStop.signal);
    if (outcome === 'lost')
      this.fail(
        new LeaderElectionLostError(
          `leader election lost: lease ${this.opts.leaderElection!.namespace}/${this.opts.leaderElection!.id} not renewed in time`,
        ),
      );
  }

  private startLeaderRunnables(): void {
    if (this.runStop.signal.aborted) return;
    this.leaderRunnablesStarted = true;
    for (const r of this.runnables) if (r.needLeaderElection !== false) this.startRunnable(r);
  }

  private startRunnable(runnable: Runnable): void {
    if (this.running.some((r) => r.runnable === runnable)) return;
    const done = (async () => {
      try {
        await runnable.start(this.runStop.signal);
      } catch (err) {
        if (!this.runStop.signal.aborted) this.fail(err);
        else this.logger.error('runnable failed while stopping', { error: err });
      }
    })();
    this.running.push({ runnable, done });
  }

  private startInformer(inf: SharedInformer<KubeObject>): void {
    this.cacheRuns.push(inf.start(this.cacheStop.signal).catch((err: unknown) => this.fail(err)));
  }

  private fail(err: unknown): void {
    this.failure ??= err;
    this.logger.error('manager stopping after a failure', { error: err });
    this.wake?.();
  }

  private async shutdown(): Promise<void> {
    this.runStop.abort(new Error('manager stopping'));
    // Without the lease another replica may already be reconciling: abort in-flight work at once.
    if (this.failure instanceof LeaderElectionLostError) this.hardStop.abort(this.failure);
    const grace = this.opts.gracefulShutdownMs ?? 30_000;
    const all = Promise.all(this.running.map((r) => r.done)).then(() => true);
    const timer = new AbortController();
    const timedOut = this.clock.sleep(grace, timer.signal).then(
      () => false,
      () => false,
    );
    const finished = await Promise.race([all, timedOut]);
    timer.abort();
    if (!finished) {
      this.logger.error('in-flight work did not finish within the graceful shutdown period; aborting it', {
        gracefulShutdownMs: grace,
      });
      this.hardStop.abort(new Error('graceful shutdown period exceeded'));
    }
    await this.leading;
    if (this.elector && !(this.failure instanceof LeaderElectionLostError)) await this.elector.release();
    this.cacheStop.abort(new Error('manager stopped'));
    await Promise.all(this.cacheRuns);
    await this.flushEvents();
    this.profilesStop.abort();
    await Promise.all([this.healthServer?.close(), this.metricsServer?.close(), this.pprofServer?.close()]);
  }

  /** Gives queued events a moment to reach the API server; never holds shutdown up for long. */
  private async flushEvents(): Promise<void> {
    const timer = new AbortController();
    const flushed = Promise.all([...this.recorders.values()].map((r) => r.flush()));
    await Promise.race([flushed, this.clock.sleep(2_000, timer.signal).catch(() => undefined)]);
    timer.abort();
  }

  private async startServers(): Promise<void> {
    const health = parseBindAddress(this.opts.healthAddr);
    if (health) {
      const log = this.logger.child({ component: 'healthz' });
      const onFailure = (checker: string, err: unknown) =>
        log.debug('healthz check failed', { checker, error: err }, 1);
      this.healthServer = new ProbeServer(
        {
          '/healthz': (_req, at) => serveHealth(this.healthChecks, at.subpath, at.query, onFailure),
          '/readyz': (_req, at) => serveHealth(this.readyChecks, at.subpath, at.query, onFailure),
        },
        ['/healthz', '/readyz'],
      );
      this.healthAddr = await this.healthServer.listen(health);
    }
    const metrics = parseBindAddress(this.opts.metricsAddr);
    if (metrics) {
      this.metricsServer = new ProbeServer({
        '/metrics': async () => ({
          status: 200,
          contentType: this.metrics.contentType,
          body: await this.metrics.metrics(),
        }),
      });
      this.metricsAddr = await this.metricsServer.listen(metrics);
    }
    const pprof = parseBindAddress(this.opts.pprofAddr);
    if (pprof) {
      const profiler = new Profiler(this.clock);
      await profiler.start();
      this.profilesStop.signal.addEventListener('abort', () => profiler.stop(), { once: true });
      this.pprofServer = new ProbeServer(profiler.routes(this.profilesStop.signal));
      this.pprofAddr = await this.pprofServer.listen(pprof);
      this.logger.info('serving profiles', { address: this.pprofAddr });
    }
  }
}
