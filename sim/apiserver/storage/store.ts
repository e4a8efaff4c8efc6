// The object store: one global, monotonic resourceVersion; per type a map by namespace then name
// (O(1) get, cheap per-namespace list), a uid index and an owner index for the garbage collector,
// and a history per type for watch resumption, bounded by a per-type event count and by a byte budget
// shared by all types (the oldest event of any type goes first). Stored objects are treated as
// immutable: every write stores a fresh object, so readers and watch events can share them without copying.
import type { KubeObject } from '../../../lib/apis/meta.js';
import { History } from './history.js';
import type { StoreEvent, StoreEventType } from './store-event.js';

export interface ObjectRef {
  typeKey: string;
  namespace: string;
  name: string;
}

class Bucket {
  readonly byNs = new Map<string, Map<string, KubeObject>>();
  private sortedNs: string[] | undefined;
  private readonly sortedNames = new Map<string, string[]>();
  count = 0;

  constructor(readonly history: History) {}

  get(ns: string, name: string): KubeObject | undefined {
    return this.byNs.get(ns)?.get(name);
  }

  set(ns: string, name: string, obj: KubeObject): boolean {
    let m = this.byNs.get(ns);
    if (!m) {
      m = new Map();
      this.byNs.set(ns, m);
      this.sortedNs = undefined;
    }
    const isNew = !m.has(name);
    m.set(name, obj);
    if (isNew) {
      this.count++;
      this.sortedNames.delete(ns);
    }
    return isNew;
  }

  delete(ns: string, name: string): void {
    const m = this.byNs.get(ns);
    if (!m?.delete(name)) return;
    this.count--;
    this.sortedNames.delete(ns);
    if (m.size === 0) {
      this.byNs.delete(ns);
      this.sortedNs = undefined;
    }
  }

  /** Objects in (namespace, name) order, as kube lists them. */
  list(ns: string | undefined): KubeObject[] {
    const out: KubeObject[] = [];
    const namespaces = ns === undefined ? (this.sortedNs ??= [...this.byNs.keys()].sort()) : [ns];
    for (const n of namespaces) {
      const m = this.byNs.get(n);
      if (!m) continue;
      let names = this.sortedNames.get(n);
      if (!names) {
        names = [...m.keys()].sort();
        this.sortedNames.set(n, names);
      }
      for (const name of names) {
        const o = m.get(name);
        if (o) out.push(o);
      }
    }
    return out;
  }
}

/** A change as the write-ahead log records it, applied again on start-up. */
export interface LoggedChange {
  op: 'put' | 'delete';
  typeKey: string;
  /** The stored object (put) or its final state (delete), carrying the change's resourceVersion. */
  object: KubeObject;
}

export class Store {
  private rv: number;
  /** Bytes held by the watch history of all types together. */
  private historyBytes = 0;
  /** Serialised size of each stored object, measured once (stored objects never change). */
  private readonly sizes = new WeakMap<KubeObject, number>();
  /** Every event after this is in the history of its type (a type's history is created at its first event). */
  private compactedRv: number;
  private readonly buckets = new Map<string, Bucket>();
  private readonly byUid = new Map<string, ObjectRef>();
  private readonly dependents = new Map<string, Set<string>>();
  private readonly listeners: Array<(ev: StoreEvent) => void> = [];

  /**
   * @param historyLimit change events kept per type for watch resumption.
   * @param historyByteLimit bytes of change events kept for all types together (see StoreEvent.size).
   */
  constructor(
    private readonly historyLimit: number,
    startRv = 0,
    private readonly historyByteLimit = Number.POSITIVE_INFINITY,
  ) {
    this.rv = startRv;
    this.compactedRv = startRv;
  }

  currentRv(): number {
    return this.rv;
  }

  /** Listeners run synchronously, in registration order, right after each commit. */
  onEvent(listener: (ev: StoreEvent) => void): void {
    this.listeners.push(listener);
  }

  private bucket(typeKey: string): Bucket {
    let b = this.buckets.get(typeKey);
    if (!b) {
      b = new Bucket(new History(this.compactedRv));
      this.buckets.set(typeKey, b);
    }
    return b;
  }

  get(typeKey: string, namespace: string, name: string): KubeObject | undefined {
    return this.buckets.get(typeKey)?.get(namespace, name);
  }

  list(typeKey: string, namespace?: string): KubeObject[] {
    return this.buckets.get(typeKey)?.list(namespace) ?? [];
  }

  count(typeKey: string): number {
    return this.buckets.get(typeKey)?.count ?? 0;
  }

  /** Namespaces that hold at least one object of the type. */
  namespacesOf(typeKey: string): string[] {
    return [...(this.buckets.get(typeKey)?.byNs.keys() ?? [])];
  }

  typeKeys(): string[] {
    return [...this.buckets.keys()];
  }

  lookupUid(uid: string): ObjectRef | undefined {
    return this.byUid.get(uid);
  }

  getByUid(uid: string): { ref: ObjectRef; object: KubeObject } | undefined {
    const ref = this.byUid.get(uid);
    if (!ref) return undefined;
    const object = this.get(ref.typeKey, ref.namespace, ref.name);
    return object ? { ref, object } : undefined;
  }

  /** uids of the objects that name ownerUid in their ownerReferences. */
  dependentsOf(ownerUid: string): string[] {
    return [...(this.dependents.get(ownerUid) ?? [])];
  }

  /** Events of a type after rv, or undefined when that rv is older than the kept history. */
  eventsSince(typeKey: string, rv: number): StoreEvent[] | undefined {
    return this.bucket(typeKey).history.since(rv);
  }

  /** The oldest resourceVersion a watch of this type can still resume from. */
  oldestResumable(typeKey: string): number {
    return this.bucket(typeKey).history.oldest;
  }

  /** Stores a new object (ADDED) or a new version (MODIFIED); sets its resourceVersion. The store owns obj afterwards. */
  put(typeKey: string, obj: KubeObject): StoreEvent {
    const ns = obj.metadata.namespace ?? '';
    const name = obj.metadata.name ?? '';
    const b = this.bucket(typeKey);
    const previous = b.get(ns, name);
    obj.metadata.resourceVersion = String(++this.rv);
    b.set(ns, name, obj);
    if (previous) this.unindex(previous);
    this.index(typeKey, obj);
    return this.emit(b, {
      type: previous ? 'MODIFIED' : 'ADDED',
      rv: this.rv,
      typeKey,
      object: obj,
      previous,
      size: 0,
    });
  }

  /** Removes an object; finalState (a fresh copy) gets the deletion's resourceVersion and goes out in the DELETED event. */
  remove(typeKey: string, finalState: KubeObject): StoreEvent | undefined {
    const ns = finalState.metadata.namespace ?? '';
    const name = finalState.metadata.name ?? '';
    const b = this.bucket(typeKey);
    const previous = b.get(ns, name);
    if (!previous) return undefined;
    finalState.metadata.resourceVersion = String(++this.rv);
    b.delete(ns, name);
    this.unindex(previous);
    return this.emit(b, { type: 'DELETED', rv: this.rv, typeKey, object: finalState, previous, size: 0 });
  }

  /** Drops a whole type without events (its CRD is gone and its watches are closed by the caller). */
  dropType(typeKey: string): void {
    const b = this.buckets.get(typeKey);
    if (!b) return;
    for (const o of b.list(undefined)) this.unindex(o);
    this.historyBytes -= b.history.bytes;
    this.buckets.delete(typeKey);
  }

  /** Forgets all watch history: resuming from any earlier resourceVersion gets 410 Gone. */
  compactHistory(): void {
    this.compactedRv = this.rv;
    for (const b of this.buckets.values()) b.history.compact(this.rv);
    this.historyBytes = 0;
  }

  /** Bytes of change events kept in watch history, all types together. */
  historySize(): number {
    return this.historyBytes;
  }

  /**
   * Applies a change read back from the write-ahead log on start-up: no events, no history, and the
   * resourceVersion counter moves up to the change's. Call compactHistory() when done.
   */
  replay(change: LoggedChange): void {
    const { typeKey, object } = change;
    const ns = object.metadata.namespace ?? '';
    const name = object.metadata.name ?? '';
    const b = this.bucket(typeKey);
    const previous = b.get(ns, name);
    if (previous) this.unindex(previous);
    if (change.op === 'put') {
      b.set(ns, name, object);
      this.index(typeKey, object);
    } else {
      b.delete(ns, name);
    }
    this.rv = Math.max(this.rv, Number(object.metadata.resourceVersion ?? 0));
  }

  /** Loads a snapshot (no events); watch history starts at rv. */
  restore(rv: number, items: Array<{ typeKey: string; object: KubeObject }>): void {
    this.rv = Math.max(this.rv, rv);
    for (const { typeKey, object } of items) {
      this.bucket(typeKey).set(object.metadata.namespace ?? '', object.metadata.name ?? '', object);
      this.index(typeKey, object);
    }
    this.compactHistory();
  }

  /** Every stored object, for snapshots. */
  *entries(): Generator<{ typeKey: string; object: KubeObject }> {
    for (const [typeKey, b] of this.buckets) for (const object of b.list(undefined)) yield { typeKey, object };
  }

  private emit(b: Bucket, ev: StoreEvent): StoreEvent {
    ev.size = this.sizeOf(ev.object) + (ev.previous ? this.sizeOf(ev.previous) : 0);
    b.history.push(ev);
    this.historyBytes += ev.size;
    while (b.history.length > this.historyLimit) this.evictFrom(b.history);
    while (this.historyBytes > this.historyByteLimit) {
      const oldest = this.historyWithOldestEvent();
      if (!oldest) break;
      this.evictFrom(oldest);
    }
    for (const l of this.listeners) l(ev);
    return ev;
  }

  private evictFrom(history: History): void {
    const dropped = history.dropOldest();
    if (dropped) this.historyBytes -= dropped.size;
  }

  /** The history whose oldest event is the oldest of all; types are few, so a scan is cheap. */
  private historyWithOldestEvent(): History | undefined {
    let best: History | undefined;
    let bestRv = Number.POSITIVE_INFINITY;
    for (const b of this.buckets.values()) {
      const rv = b.history.peekOldest()?.rv;
      if (rv !== undefined && rv < bestRv) {
        best = b.history;
        bestRv = rv;
      }
    }
    return best;
  }

  /** UTF-8 bytes of the object's JSON; each stored object is measured once. */
  private sizeOf(obj: KubeObject): number {
    let size = this.sizes.get(obj);
    if (size === undefined) {
      size = Buffer.byteLength(JSON.stringify(obj));
      this.sizes.set(obj, size);
    }
    return size;
  }

  private index(typeKey: string, obj: KubeObject): void {
    const uid = obj.metadata.uid;
    if (!uid) return;
    this.byUid.set(uid, { typeKey, namespace: obj.metadata.namespace ?? '', name: obj.metadata.name ?? '' });
    for (const ref of obj.metadata.ownerReferences ?? []) {
      let s = this.dependents.get(ref.uid);
      if (!s) {
        s = new Set();
        this.dependents.set(ref.uid, s);
      }
      s.add(uid);
    }
  }

  private unindex(obj: KubeObject): void {
    const uid = obj.metadata.uid;
    if (!uid) return;
    this.byUid.delete(uid);
    for (const ref of obj.metadata.ownerReferences ?? []) {
      const s = this.dependents.get(ref.uid);
      s?.delete(uid);
      if (s?.size === 0) this.dependents.delete(ref.uid);
    }
  }
}

export type { StoreEvent, StoreEventType };
