// One resource kept in a local, indexed cache by list+watch. The watch resumes from the last seen
// resourceVersion when a stream ends; a 410 Gone (history compacted) or any error leads to a fresh
// list, diffed against the cache so handlers see every final state exactly once: 'delete' for what
// vanished, 'update' for what changed, 'add' for what is new, and nothing for what did not move.
import type { KubeObject, LabelSelector } from '../apis/meta.js';
import { parseSelector, selectorFromLabelSelector, type Selector } from '../apis/label-selector.js';
import { ApiError, isGone } from '../client/errors.js';
import type { KubeClient, ObjectKey, WatchEvent } from '../client/kube-client.js';
import type { Resource } from '../client/resources.js';
import { Backoff } from './backoff.js';
import type { Clock, TimerHandle } from '../base/clock.js';
import { nullLogger } from '../base/structured-logger.js';
import type { Logger } from '../base/logger.js';
import { objectKey } from '../apis/objects.js';
import { NamespaceIndex, ObjectStore } from './object-store.js';
import { cacheTransform, type CacheTransform } from './cache-transform.js';
import { abortError, RealClock } from '../base/real-clock.js';
import type { Informer, InformerEvent, InformerHandler, Runnable } from './types.js';

export interface SharedInformerOptions<T extends KubeObject> {
  client: KubeClient;
  resource: Resource<T>;
  /** Restrict to one namespace (ignored for cluster-scoped kinds). */
  namespace?: string;
  labelSelector?: string;
  fieldSelector?: string;
  /** Re-deliver 'update' for every cached object this often; default 10 minutes, 0 = never. */
  resyncPeriodMs?: number;
  clock?: Clock;
  logger?: Logger;
  /** Restart backoff after errors; default 800 ms doubling to 30 s. */
  backoffInitialMs?: number;
  backoffMaxMs?: number;
  /** Page size of the list; default 500. */
  listPageSize?: number;
  /** What is kept of each object (handlers see the same); default cacheTransform(resource). */
  transform?: CacheTransform<T>;
}

class WatchGone extends Error {
  override readonly name = 'WatchGone';
}

export class SharedInformer<T extends KubeObject> implements Informer<T>, Runnable {
  readonly resource: Resource<T>;
  readonly needLeaderElection = false;
  private readonly store = new ObjectStore<T>();
  private readonly handlers: Record<InformerEvent, Set<InformerHandler<T>>> = {
    add: new Set(),
    update: new Set(),
    delete: new Set(),
  };
  private readonly relistHandlers = new Set<(listSentAtMs: number) => void>();
  private readonly clock: Clock;
  private readonly log: Logger;
  private readonly namespace: string | undefined;
  private synced = false;
  private syncWaiters: Array<() => void> = [];
  private lastResourceVersion: string | undefined;
  private resyncTimer: TimerHandle | undefined;
  private started = false;
  private readonly transform: CacheTransform<T>;

  constructor(private readonly opts: SharedInformerOptions<T>) {
    this.resource = opts.resource;
    this.transform = opts.transform ?? cacheTransform(opts.resource);
    this.clock = opts.clock ?? new RealClock();
    this.log = (opts.logger ?? nullLogger()).child({ informer: opts.resource.plural });
    this.namespace = opts.resource.namespaced ? opts.namespace || undefined : undefined;
  }

  on(event: InformerEvent, handler: InformerHandler<T>): () => void {
    this.handlers[event].add(handler);
    // A handler that joins late still sees every cached object once, as client-go does.
    if (event === 'add' && this.synced)
      for (const obj of this.store.values()) this.call(handler, obj, undefined, event);
    return () => this.handlers[event].delete(handler);
  }

  onRelist(handler: (listSentAtMs: number) => void): () => void {
    this.relistHandlers.add(handler);
    return () => this.relistHandlers.delete(handler);
  }

  /**
   * Reads return the cached objects themselves, deeply frozen, as client-go's listers do: no copy per read
   * (a MachineSet pass over a thousand Machines would otherwise copy them all), and a caller that edits one
   * by mistake gets a TypeError instead of corrupting the cache. Clone before changing.
   */
  get(key: ObjectKey): T | undefined {
    return this.store.get(key.namespace && this.resource.namespaced ? `${key.namespace}/${key.name}` : key.name);
  }

  list(opts: { namespace?: string; labelSelector?: LabelSelector | string } = {}): T[] {
    const items =
      opts.namespace !== undefined ? this.store.byIndex(NamespaceIndex, opts.namespace) : this.store.values();
    if (opts.labelSelector === undefined) return items;
    const sel: Selector =
      typeof opts.labelSelector === 'string'
        ? parseSelector(opts.labelSelector)
        : selectorFromLabelSelector(opts.labelSelector);
    return items.filter((o) => sel.empty || sel.matches(o.metadata.labels));
  }

  addIndex(name: string, fn: (obj: T) => string[]): void {
    this.store.addIndex(name, fn);
  }

  byIndex(name: string, value: string): T[] {
    return this.store.byIndex(name, value);
  }

  hasSynced(): boolean {
    return this.synced;
  }

  waitForSync(signal?: AbortSignal): Promise<void> {
    if (this.synced) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const onAbort = (): void => reject(abortError(signal!));
      if (signal?.aborted) return onAbort();
      signal?.addEventListener('abort', onAbort, { once: true });
      this.syncWaiters.push(() => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      });
    });
  }

  /** Runs list+watch until the signal aborts. */
  async start(signal: AbortSignal): Promise<void> {
    if (this.started) throw new Error(`informer for ${this.resource.plural} already started`);
    this.started = true;
    const backoff = new Backoff(this.opts.backoffInitialMs, this.opts.backoffMaxMs);
    let needList = true;
    try {
      while (!signal.aborted) {
        try {
          if (needList) {
            await this.listAndReplace(signal);
            needList = false;
          }
          const sawEvents = await this.watchOnce(signal);
          if (sawEvents) backoff.reset();
          else if (!signal.aborted) await this.clock.sleep(backoff.step(), signal);
        } catch (err) {
          if (signal.aborted) break;
          needList = true;
          if (err instanceof WatchGone || isGone(err)) {
            this.log.info('watch history is gone; re-listing', { resourceVersion: this.lastResourceVersion });
            continue;
          }
          const delay = backoff.step();
          this.log.warn('list/watch failed; restarting', { error: err, retryInMs: delay });
          await this.clock.sleep(delay, signal).catch(() => undefined);
        }
      }
    } finally {
      this.resyncTimer?.cancel();
    }
  }

  private async listAndReplace(signal: AbortSignal): Promise<void> {
    const sentAt = this.clock.now();
    const { items, resourceVersion } = await this.listAll(signal);
    const seen = new Set<string>();
    for (const listed of items) {
      const obj = this.transform(listed);
      const key = objectKey(obj);
      seen.add(key);
      const old = this.store.get(key);
      if (old && old.metadata.resourceVersion === obj.metadata.resourceVersion) continue;
      this.store.set(deepFreeze(obj));
      if (old) this.emit('update', obj, old);
      else this.emit('add', obj);
    }
    for (const key of [...this.store.keys()]) {
      if (seen.has(key)) continue;
      const old = this.store.delete(key)!;
      this.emit('delete', old);
    }
    this.lastResourceVersion = resourceVersion;
    for (const h of this.relistHandlers) {
      try {
        h(sentAt);
      } catch (err) {
        this.log.error('informer relist handler threw', { error: err });
      }
    }
    if (!this.synced) {
      this.synced = true;
      this.syncWaiters.splice(0).forEach((w) => w());
      this.scheduleResync();
    }
  }

  private async listAll(signal: AbortSignal): Promise<{ items: T[]; resourceVersion: string | undefined }> {
    const limit = this.opts.listPageSize ?? 500;
    const base = {
      namespace: this.namespace,
      labelSelector: this.opts.labelSelector,
      fieldSelector: this.opts.fieldSelector,
      signal,
    };
    const items: T[] = [];
    let cont: string | undefined;
    let resourceVersion: string | undefined;
    try {
      do {
        const page = await this.opts.client.list(this.resource, { ...base, limit, continue: cont });
        items.push(...page.items);
        resourceVersion = page.metadata.resourceVersion ?? resourceVersion;
        cont = page.metadata.continue || undefined;
      } while (cont);
    } catch (err) {
      // The continue token expired mid-way: one unpaginated list is always consistent.
      if (!(cont && isGone(err))) throw err;
      const all = await this.opts.client.list(this.resource, base);
      return { items: all.items, resourceVersion: all.metadata.resourceVersion };
    }
    return { items, resourceVersion };
  }

  /** One watch from the last resourceVersion; true if it delivered anything before it ended. */
  private async watchOnce(signal: AbortSignal): Promise<boolean> {
    let saw = false;
    const timeoutSeconds = 300 + Math.floor(Math.random() * 300);
    await this.opts.client.watch(
      this.resource,
      {
        namespace: this.namespace,
        labelSelector: this.opts.labelSelector,
        fieldSelector: this.opts.fieldSelector,
        resourceVersion: this.lastResourceVersion,
        allowWatchBookmarks: true,
        timeoutSeconds,
      },
      (ev) => {
        saw = true;
        this.apply(ev);
      },
      signal,
    );
    return saw;
  }

  private apply(ev: WatchEvent<T>): void {
    if (ev.type === 'ERROR') {
      const status = ev.object as { code?: number; message?: string };
      if (status.code === 410) throw new WatchGone(status.message ?? 'resourceVersion too old');
      throw new ApiError(status.code ?? 500, ev.object);
    }
    const rv = ev.object.metadata?.resourceVersion;
    if (ev.type === 'BOOKMARK') {
      if (rv) this.lastResourceVersion = rv;
      return;
    }
    const obj = this.transform(ev.object as T);
    const key = objectKey(obj);
    const old = this.store.get(key);
    if (ev.type === 'DELETED') {
      if (old) {
        this.store.delete(key);
        this.emit('delete', deepFreeze(obj));
      }
    } else if (!old || old.metadata.resourceVersion !== rv) {
      this.store.set(deepFreeze(obj));
      if (old) this.emit('update', obj, old);
      else this.emit('add', obj);
    }
    if (rv) this.lastResourceVersion = rv;
  }

  private scheduleResync(): void {
    const period = this.opts.resyncPeriodMs ?? 600_000;
    if (period <= 0) return;
    this.resyncTimer = this.clock.setTimeout(() => {
      for (const obj of this.store.values()) this.emit('update', obj, obj);
      this.scheduleResync();
    }, period);
  }

  private emit(event: InformerEvent, obj: T, old?: T): void {
    for (const h of this.handlers[event]) this.call(h, obj, old, event);
  }

  private call(h: InformerHandler<T>, obj: T, old: T | undefined, event: InformerEvent): void {
    try {
      h(obj, old);
    } catch (err) {
      this.log.error('informer handler threw', { event, object: objectKey(obj), error: err });
    }
  }
}

/** Freezes an object and everything it holds (objects decoded from JSON: no cycles). */
export function deepFreeze<V>(value: V): V {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    for (const v of Object.values(value)) deepFreeze(v);
    Object.freeze(value);
  }
  return value;
}
