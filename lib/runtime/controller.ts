// A controller: informer events become requests in a rate-limited work queue, and N workers reconcile
// them, never two on the same key. Workers start once every watched informer has synced.
import { randomUUID } from 'node:crypto';
import type { KubeObject } from '../apis/meta.js';
import type { Clock } from '../base/clock.js';
import type { Logger } from '../base/logger.js';
import { linkedAbort } from '../base/linked-abort.js';
import { defaultControllerRateLimiter } from './rate-limiters.js';
import { RateLimitingQueue } from './rate-limiting-queue.js';
import { LowPriority, NormalPriority } from './work-queue.js';
import { decideOutcome } from './reconcile-outcome.js';
import { requestFromKey, requestKey } from './request-key.js';
import type { RuntimeMetrics } from './runtime-metrics.js';
import type { Controller, ControllerOptions, Request, Result, Runnable, WatchSource } from './types.js';

export interface ControllerDeps {
  clock: Clock;
  logger: Logger;
  metrics: RuntimeMetrics;
  /** Aborted when the graceful-shutdown period is over: in-flight reconciles see their signal abort. */
  hardStop?: AbortSignal;
}

export class ControllerImpl implements Controller, Runnable {
  readonly name: string;
  readonly needLeaderElection = true;
  readonly queue: RateLimitingQueue<string>;
  private readonly workers: number;
  private readonly timeoutMs: number;
  private readonly log: Logger;
  private active = 0;
  private started = false;
  /** When each key's last reconcile began; kept only with skipResyncWithinMs. */
  private readonly lastStarted = new Map<string, number>();
  private readonly replaceRequeue: boolean;

  constructor(
    private readonly opts: ControllerOptions,
    private readonly deps: ControllerDeps,
  ) {
    if (!opts.name) throw new Error('controller: name is required');
    if (!opts.reconciler || typeof opts.reconciler.reconcile !== 'function')
      throw new Error(`controller ${opts.name}: reconciler is required`);
    const workers = opts.maxConcurrentReconciles ?? 10;
    if (!Number.isInteger(workers) || workers < 1)
      throw new Error(`controller ${opts.name}: maxConcurrentReconciles must be an integer >= 1, got ${workers}`);
    this.name = opts.name;
    this.workers = workers;
    this.timeoutMs = opts.reconcileTimeoutMs ?? 300_000;
    this.log = deps.logger.child({ controller: opts.name });
    this.queue = new RateLimitingQueue<string>(deps.clock, defaultControllerRateLimiter(deps.clock, opts.rateLimiter), {
      metrics: deps.metrics.queueMetrics<string>(opts.name, deps.clock),
    });
    // A delayed watch event waits in the same slot as a requeue: replacing the one would drop the other.
    this.replaceRequeue = opts.latestResultReplacesRequeue === true && !opts.watches.some((w) => w.delayMs);
    for (const w of opts.watches) this.watch(w);
    const m = deps.metrics;
    for (const result of ['success', 'error', 'requeue', 'requeue_after'])
      m.reconcileTotal.inc({ controller: this.name, result }, 0);
    m.reconcileErrors.inc({ controller: this.name }, 0);
    m.terminalReconcileErrors.inc({ controller: this.name }, 0);
    m.reconcilePanics.inc({ controller: this.name }, 0);
    m.activeWorkers.set({ controller: this.name }, 0);
    m.maxConcurrentReconciles.set({ controller: this.name }, workers);
  }

  enqueue(request: Request): void {
    this.queue.add(requestKey(request));
  }

  enqueueAfter(request: Request, ms: number): void {
    this.queue.addAfter(requestKey(request), ms);
  }

  /** Waits for the caches, runs the workers until the signal aborts, then lets in-flight reconciles finish. */
  async start(signal: AbortSignal): Promise<void> {
    if (this.started) throw new Error(`controller ${this.name} already started`);
    this.started = true;
    const onStop = (): void => this.queue.shutDown();
    signal.addEventListener('abort', onStop, { once: true });
    try {
      await Promise.all(this.opts.watches.map((w) => w.informer.waitForSync(signal)));
    } catch (err) {
      if (signal.aborted) return;
      throw err;
    }
    this.log.info('starting workers', { workers: this.workers });
    await Promise.all(Array.from({ length: this.workers }, () => this.worker(signal)));
    this.log.info('all workers finished');
  }

  private async worker(signal: AbortSignal): Promise<void> {
    while (!signal.aborted) {
      const next = await this.queue.get();
      if (next.shutdown) return;
      if (signal.aborted) {
        this.queue.done(next.item);
        return;
      }
      try {
        await this.reconcileKey(next.item, next.priority);
      } finally {
        this.queue.done(next.item);
      }
    }
  }

  private async reconcileKey(key: string, priority: number): Promise<void> {
    const m = this.deps.metrics;
    const labels = { controller: this.name };
    const reconcileID = randomUUID();
    const request = requestFromKey(key);
    const log = this.log.child({
      key,
      ...(request.namespace ? { namespace: request.namespace } : {}),
      name: request.name,
      reconcileID,
    });
    const reconcileAbort = linkedAbort(this.deps.hardStop, {
      clock: this.deps.clock,
      ms: this.timeoutMs,
      reason: () => new Error(`reconcile timed out after ${this.timeoutMs} ms`),
    });
    const signal = reconcileAbort.signal;
    const started = this.deps.clock.now();
    if (this.opts.skipResyncWithinMs) this.lastStarted.set(key, started);
    this.active++;
    m.activeWorkers.set(labels, this.active);
    let outcome: { ok: true; result: Result | void } | { ok: false; error: unknown };
    try {
      outcome = { ok: true, result: await this.opts.reconciler.reconcile(request, { signal, log, reconcileID }) };
    } catch (error) {
      if (!(error instanceof Error)) m.reconcilePanics.inc(labels);
      outcome = { ok: false, error };
    } finally {
      reconcileAbort.release();
      this.active--;
      m.activeWorkers.set(labels, this.active);
      m.reconcileTime.observe(labels, (this.deps.clock.now() - started) / 1000);
    }
    this.applyOutcome(key, outcome, log, priority);
  }

  /** A requeue or a retry comes back at the priority of the pass that asked for it, as in controller-runtime. */
  private applyOutcome(key: string, outcome: Parameters<typeof decideOutcome>[0], log: Logger, priority: number): void {
    const m = this.deps.metrics;
    const labels = { controller: this.name };
    const decision = decideOutcome(outcome);
    m.reconcileTotal.inc({ ...labels, result: decision.result });
    if (this.replaceRequeue) this.queue.cancelAfter(key);
    switch (decision.action) {
      case 'forget':
        this.queue.forget(key);
        log.debug('reconcile succeeded', {}, 4);
        return;
      case 'forget-and-add-after':
        this.queue.forget(key);
        this.queue.addAfter(key, decision.delayMs, { priority });
        log.debug('reconcile requeued', { requeueAfterMs: decision.delayMs }, 4);
        return;
      case 'add-rate-limited':
        m.reconcileErrors.inc(labels);
        this.queue.addRateLimited(key, priority);
        log.error('Reconciler error', { error: decision.error, requeues: this.queue.numRequeues(key) });
        return;
      case 'drop':
        m.reconcileErrors.inc(labels);
        m.terminalReconcileErrors.inc(labels);
        this.queue.forget(key);
        log.error('Reconciler error (terminal, not retried)', { error: decision.error });
        return;
    }
  }

  private watch(w: WatchSource): void {
    const toRequests = (obj: KubeObject): Request[] => {
      switch (w.enqueue) {
        case 'self':
          return [{ namespace: obj.metadata.namespace || undefined, name: obj.metadata.name ?? '' }];
        case 'owner':
          return ownerRequests(obj, w.ownerKind, w.ownerApiVersion);
        case 'map':
          return w.map(obj);
      }
    };
    const enqueueAll = (obj: KubeObject, old: KubeObject | undefined, priority: number, delayMs = w.delayMs): void => {
      const keys = new Set<string>();
      for (const o of old && old !== obj ? [old, obj] : [obj]) {
        for (const r of toRequests(o)) if (r.name) keys.add(requestKey(r));
      }
      for (const k of keys) {
        if (delayMs) this.queue.addAfter(k, delayMs, { countRetry: false, priority });
        else this.queue.add(k, priority);
      }
    };
    const pass = w.predicate ?? (() => true);
    const delayOf = (event: 'add' | 'update', obj: KubeObject): number | undefined =>
      w.delayMs || w.delayOf?.(event, obj);
    // What nobody changed waits behind what someone did: the informer's first listing and its resyncs.
    w.informer.on('add', (obj) => {
      if (!pass('add', obj)) return;
      enqueueAll(obj, undefined, w.informer.hasSynced() ? NormalPriority : LowPriority, delayOf('add', obj));
    });
    w.informer.on('update', (obj, old) => {
      if (!pass('update', obj, old)) return;
      const resync = old === obj;
      if (resync && this.recentlyReconciled(toRequests(obj))) return;
      enqueueAll(obj, old, resync ? LowPriority : NormalPriority, resync ? w.delayMs : delayOf('update', obj));
    });
    w.informer.on('delete', (obj) => {
      for (const r of toRequests(obj)) this.lastStarted.delete(requestKey(r));
      if (pass('delete', obj)) enqueueAll(obj, undefined, NormalPriority);
    });
  }

  /** Whether every key of a resync's requests was reconciled within skipResyncWithinMs (see ControllerOptions). */
  private recentlyReconciled(requests: Request[]): boolean {
    const within = this.opts.skipResyncWithinMs ?? 0;
    if (within <= 0 || requests.length === 0) return false;
    const now = this.deps.clock.now();
    return requests.every((r) => {
      const at = this.lastStarted.get(requestKey(r));
      return at !== undefined && now - at < within;
    });
  }
}

/** The controller owner of this kind (and API group, when given), in the object's namespace. */
function ownerRequests(obj: KubeObject, kind: string, apiVersion: string | undefined): Request[] {
  const group = (v: string): string => (v.includes('/') ? v.slice(0, v.indexOf('/')) : '');
  const ref = obj.metadata.ownerReferences?.find(
    (o) =>
      o.controller === true &&
      o.kind === kind &&
      (apiVersion === undefined || group(o.apiVersion) === group(apiVersion)),
  );
  return ref ? [{ namespace: obj.metadata.namespace || undefined, name: ref.name }] : [];
}
