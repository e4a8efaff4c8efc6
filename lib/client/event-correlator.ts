// Decides what to write for an event, after client-go's EventCorrelator:
//  - identical events (same object, type, reason, message) within the window become one Event whose
//    count and lastTimestamp are bumped (a patch), instead of a new object each time;
//  - more than `maxSimilar` distinct messages for the same object/type/reason within the window are
//    folded into one "(combined from similar events)" Event;
//  - a per-object token bucket (burst 25, one more every 5 minutes) drops the rest, so a hot error
//    loop never floods the API server.
import type { CoreEvent } from '../apis/core.js';
import type { ObjectReference } from '../apis/meta.js';
import type { Clock } from '../base/clock.js';
import { TokenBucket } from '../base/token-bucket.js';

export interface CorrelatorOptions {
  clock: Clock;
  /** Distinct messages per object/type/reason before they are combined; default 10. */
  maxSimilar?: number;
  /** How long an aggregation or a count lasts; default 10 minutes. */
  windowMs?: number;
  /** Per-object spam filter; defaults burst 25, qps 1/300. */
  spamBurst?: number;
  spamQps?: number;
  /** LRU capacity of each cache; default 4096. */
  cacheSize?: number;
}

export type CorrelatedAction =
  | { action: 'create'; event: CoreEvent }
  | { action: 'patch'; event: CoreEvent; patch: { count: number; lastTimestamp: string; message: string } }
  | { action: 'drop' };

interface Seen {
  name: string;
  namespace: string;
  count: number;
  firstTimestamp: string;
  lastSeen: number;
}

interface Similar {
  messages: Set<string>;
  firstSeen: number;
}

export class EventCorrelator {
  private readonly seen = new Lru<string, Seen>();
  private readonly similar = new Lru<string, Similar>();
  private readonly spam = new Lru<string, TokenBucket>();
  private readonly maxSimilar: number;
  private readonly windowMs: number;

  constructor(private readonly opts: CorrelatorOptions) {
    this.maxSimilar = opts.maxSimilar ?? 10;
    this.windowMs = opts.windowMs ?? 600_000;
    const size = opts.cacheSize ?? 4096;
    this.seen.capacity = size;
    this.similar.capacity = size;
    this.spam.capacity = size;
  }

  /** Classifies a freshly built Event (name, count 1, timestamps now). */
  correlate(event: CoreEvent): CorrelatedAction {
    const now = this.opts.clock.now();
    const objKey = objectKey(event.involvedObject, event.source?.component);
    if (!this.allow(objKey)) return { action: 'drop' };

    let message = event.message ?? '';
    const aggregateKey = [objKey, event.type, event.reason, event.reportingComponent].join('\u0000');
    let similar = this.similar.get(aggregateKey);
    if (!similar || now - similar.firstSeen > this.windowMs) {
      similar = { messages: new Set(), firstSeen: now };
      this.similar.set(aggregateKey, similar);
    }
    similar.messages.add(message);
    let dedupKey = `${aggregateKey}\u0000${message}`;
    if (similar.messages.size >= this.maxSimilar) {
      message = `(combined from similar events): ${message}`;
      dedupKey = `${aggregateKey}\u0000(combined)`;
    }

    const prior = this.seen.get(dedupKey);
    const nowIso = new Date(now).toISOString();
    if (prior && now - prior.lastSeen <= this.windowMs) {
      prior.count++;
      prior.lastSeen = now;
      const merged: CoreEvent = {
        ...event,
        metadata: { ...event.metadata, name: prior.name, namespace: prior.namespace },
        message,
        count: prior.count,
        firstTimestamp: prior.firstTimestamp,
        lastTimestamp: nowIso,
      };
      return { action: 'patch', event: merged, patch: { count: prior.count, lastTimestamp: nowIso, message } };
    }
    const fresh: CoreEvent = { ...event, message, count: 1, firstTimestamp: nowIso, lastTimestamp: nowIso };
    this.seen.set(dedupKey, {
      name: fresh.metadata.name ?? '',
      namespace: fresh.metadata.namespace ?? '',
      count: 1,
      firstTimestamp: nowIso,
      lastSeen: now,
    });
    return { action: 'create', event: fresh };
  }

  /** Forgets a counted event (its object was not found on patch), so the next one is created afresh. */
  forget(event: CoreEvent): void {
    for (const [k, v] of this.seen.entries()) {
      if (v.name === event.metadata.name && v.namespace === event.metadata.namespace) this.seen.delete(k);
    }
  }

  private allow(objKey: string): boolean {
    let bucket = this.spam.get(objKey);
    if (!bucket) {
      bucket = new TokenBucket(this.opts.spamQps ?? 1 / 300, this.opts.spamBurst ?? 25, this.opts.clock);
      this.spam.set(objKey, bucket);
    }
    if (bucket.available() < 1) return false;
    bucket.reserve();
    return true;
  }
}

function objectKey(ref: ObjectReference, component: string | undefined): string {
  return [component, ref.kind, ref.apiVersion, ref.namespace, ref.name, ref.uid].join('\u0000');
}

/** A Map that forgets its least recently used entry past capacity. */
class Lru<K, V> {
  capacity = 4096;
  private readonly map = new Map<K, V>();

  get(k: K): V | undefined {
    const v = this.map.get(k);
    if (v !== undefined) {
      this.map.delete(k);
      this.map.set(k, v);
    }
    return v;
  }
  set(k: K, v: V): void {
    this.map.delete(k);
    this.map.set(k, v);
    if (this.map.size > this.capacity) this.map.delete(this.map.keys().next().value as K);
  }
  delete(k: K): void {
    this.map.delete(k);
  }
  entries(): IterableIterator<[K, V]> {
    return [...this.map.entries()][Symbol.iterator]();
  }
}
