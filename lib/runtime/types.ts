// The controller contract: level-based reconcilers fed by informers through a rate-limited work queue.
// A request says WHICH object to look at, never what happened: a reconciler reads current state.
import type { Registry } from 'prom-client';
import type { KubeObject, LabelSelector } from '../apis/meta.js';
import type { EventRecorder } from '../client/event-recorder.js';
import type { KubeClient, ObjectKey } from '../client/kube-client.js';
import type { WriteFence } from '../client/write-fence.js';
import type { Resource } from '../client/resources.js';
import type { Clock } from '../base/clock.js';
import type { Logger } from '../base/logger.js';

export interface Request {
  namespace?: string;
  name: string;
}

/** What a reconcile asks for when it succeeds. Waiting for an outside event is `requeueAfterMs`, not an error. */
export interface Result {
  requeueAfterMs?: number;
}

/** An error that retrying cannot fix: logged and counted, never requeued. */
export class TerminalError extends Error {
  override readonly name = 'TerminalError';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}

export interface ReconcileContext {
  signal: AbortSignal;
  log: Logger;
  reconcileID: string;
}

export interface Reconciler {
  reconcile(request: Request, ctx: ReconcileContext): Promise<Result | void>;
}

export type InformerEvent = 'add' | 'update' | 'delete';
/** Handlers receive the cached objects themselves: they must not modify them (get/list return copies). */
export type InformerHandler<T> = (obj: T, old?: T) => void;

/** A shared, indexed cache of one resource kept current by list+watch. */
export interface Informer<T extends KubeObject> {
  readonly resource: Resource<T>;
  /** Registers a handler; returns a function that removes it. 'update' gets (new, old); 'delete' the last state. */
  on(event: InformerEvent, handler: InformerHandler<T>): () => void;
  get(key: ObjectKey): T | undefined;
  list(opts?: { namespace?: string; labelSelector?: LabelSelector | string }): T[];
  /** Adds an index; must be called before the informer starts. Returns the objects' keys for the index. */
  addIndex(name: string, fn: (obj: T) => string[]): void;
  byIndex(name: string, value: string): T[];
  hasSynced(): boolean;
  /** Resolves once the first list has been loaded. */
  waitForSync(signal?: AbortSignal): Promise<void>;
  /**
   * Registers a handler called after every full list has replaced the cache (the first one, and each after a
   * 410 or a broken watch), with the clock time the list was sent: everything written before then is in the
   * cache, even what was created and deleted while no watch was open. Returns a function that removes it.
   */
  onRelist?(handler: (listSentAtMs: number) => void): () => void;
}

/** How events on one informer turn into requests for a controller. */
export type WatchSource = (
  | { informer: Informer<KubeObject>; enqueue: 'self' }
  /** The object's controller ownerReference of this kind (and apiVersion group) is enqueued. */
  | { informer: Informer<KubeObject>; enqueue: 'owner'; ownerKind: string; ownerApiVersion?: string }
  | { informer: Informer<KubeObject>; enqueue: 'map'; map: (obj: KubeObject) => Request[] }
) & {
  /**
   * Enqueue this long after the event instead of at once: a burst of events (many Machines of one
   * MachineSet changing) then costs one reconcile instead of one each. Default 0.
   */
  delayMs?: number;
  /**
   * How long the request of this add or update (not a resync) waits before it is reconciled, undefined for at
   * once: the object tells when a reconcile can do something for it (a new Machine's launch has to wait for
   * the cloud's rate). Unlike `delayMs`, it is a requeue by another name: with latestResultReplacesRequeue, a
   * reconcile that runs sooner (another event) decides anew when the next is due. Asked after `predicate`.
   */
  delayOf?: (event: 'add' | 'update', obj: KubeObject) => number | undefined;
  /**
   * Which events enqueue anything, as controller-runtime's predicates decide: false drops the event before it
   * costs a reconcile (the cache is updated all the same). A resync's 'update' is told by `old === obj`.
   * Default: every event.
   */
  predicate?: WatchPredicate;
};

/** Whether an informer event concerns a controller; `old` is the previous state on 'update'. */
export type WatchPredicate = (event: InformerEvent, obj: KubeObject, old?: KubeObject) => boolean;

/** Whether an 'update' is an informer's periodic resync (the same cached object handed again). */
export const isResync = (event: InformerEvent, obj: KubeObject, old?: KubeObject): boolean =>
  event === 'update' && old === obj;

export interface ControllerOptions {
  name: string;
  reconciler: Reconciler;
  watches: WatchSource[];
  /** Default 10. */
  maxConcurrentReconciles?: number;
  /** Per-reconcile deadline; its signal aborts. Default 5 minutes. */
  reconcileTimeoutMs?: number;
  /**
   * A reconcile's result replaces the requeue an earlier reconcile of the key asked for: the latest look at the
   * object decides when the next one is due, so a Machine that went Running on its Node's event is not looked
   * at again by the 30 s requeue its Provisioned pass had asked for. Not with a watch that has `delayMs` (whose
   * delayed event it would drop). Default false, as controller-runtime.
   */
  latestResultReplacesRequeue?: boolean;
  /**
   * An informer's resync does not enqueue a key whose reconcile began less than this long ago: that look is as
   * recent as the resync asks for, so a scale-up that lasts several resync periods does not cost each Machine a
   * reconcile per period on top of its own. Default 0 (every resync enqueues).
   */
  skipResyncWithinMs?: number;
  /** Per-item exponential backoff bounds; default 5 ms → 1000 s, plus a 10 qps / burst 100 token bucket. */
  rateLimiter?: { baseDelayMs?: number; maxDelayMs?: number; qps?: number; burst?: number };
}

export interface Controller {
  readonly name: string;
  enqueue(request: Request): void;
  enqueueAfter(request: Request, ms: number): void;
}

/** Something the manager runs until its signal aborts. */
export interface Runnable {
  start(signal: AbortSignal): Promise<void>;
  /** Leader-only runnables start once this process holds the lease. Default true. */
  needLeaderElection?: boolean;
}

/** What controllers get from the manager that runs them. */
export interface ControllerManager {
  readonly client: KubeClient;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly metrics: Registry;
  /** The namespace the caches are restricted to, if any. */
  readonly namespace?: string;
  /** The informers' resync period, when the manager knows it. */
  readonly syncPeriodMs?: number;
  /**
   * With leader election, the fence every change to the world passes (Kubernetes writes, and cloud mutations
   * through the providers' rate limiters): open only while this replica provably holds the lease.
   */
  readonly writeFence?: WriteFence;
  /** The one shared informer for a resource (created on first request, started with the manager). */
  informer<T extends KubeObject>(resource: Resource<T>): Informer<T>;
  eventRecorder(component: string): EventRecorder;
  addController(opts: ControllerOptions): Controller;
  add(runnable: Runnable): void;
}
