// Existence checks for many Machines answered from one listing of the cloud instead of one call per worker
// batch. A resync enqueues every Machine, and the few reconcile workers then check them a handful at a time,
// so coalescing alone (DescribeBatcher) still costs one call per handful. Here:
// - look-ups arriving within a short window are coalesced into one fetch, as DescribeBatcher does;
// - a batch is part of a burst when at least `burstSize` distinct keys were asked for within `burstWithinMs`
//   (a resync, a mass scale-up: every Machine is checked within moments): its fetch is widened to what the
//   provider can list in one go (every instance of the cluster in a zone, of a VPC, or at least every key
//   asked about recently), and what that listing shows of keys nobody asked this time answers each of those
//   keys' next look-up, once, within `reuseMs`. Widening waits reuseMs/2 after the last one unless that one
//   has already answered a burst's worth of look-ups, and at least burstWithinMs/2 in any case (see mayWiden).
// Safety:
// - a snapshot answer is served once per key and only in the wake of a burst, so a look-up made on an event
//   (a Node went away) right after the Machine's own check reads the cloud afresh;
// - a snapshot only says what exists: a key it does not show goes to a real fetch, never "not found";
// - whoever mutates an instance forgets its keys (forget/forgetMatching), and a fetch that was out while
//   they did so does not put the pre-mutation view back, so nobody reads their own write stale.
import type { Clock } from '../base/clock.js';
import { DescribeBatcher } from './describe-batcher.js';

/** Passed to a widened fetch: the batch is a burst, so list the whole scope (or at least `recent` too). */
export interface Widening {
  /** Keys asked about within rememberMs that are not in the batch, most recently asked last. */
  recent: string[];
}

export interface ListingSnapshotOptions<V> {
  clock: Clock;
  /**
   * Fetches `keys`; a key of `keys` absent from the result is "not found". With `widen`, the result should
   * also carry what the provider's listing shows beyond `keys` (it may carry extra keys at any time; they are
   * used only from a widened fetch). A rejection fails every caller of the batch.
   */
  fetch: (keys: string[], widen: Widening | undefined) => Promise<Map<string, V>>;
  /** Largest batch one fetch may carry. */
  maxBatch: number;
  /** How long the first look-up of a batch waits for company (default 5 ms). */
  windowMs?: number;
  /** Distinct keys asked for within burstWithinMs that make a batch part of a burst (default 4). */
  burstSize?: number;
  /**
   * See burstSize (default 1 s). The reconcile workers of a resync reach their checks a few at a time,
   * so one coalescing window alone rarely holds a burst.
   */
  burstWithinMs?: number;
  /** How long a snapshot answer stays usable (default 10 s; 0 = never widen, a plain batcher). */
  reuseMs?: number;
  /** How long a key counts as recently asked about (default 15 min). */
  rememberMs?: number;
  /** Whether a key whose value is this stays worth fetching on others' behalf (default: while it is found). */
  worthWatching?: (value: V) => boolean;
  /**
   * Whether a listing's view of a value may answer a later look-up (default: always). A booting instance's
   * view is stale within seconds: answering from it records an old state now and the new one a pass later,
   * two writes to the Machine instead of one.
   */
  settled?: (value: V) => boolean;
  /** Upper bound on `Widening.recent` plus the batch (default maxBatch). */
  maxWidened?: number;
  /**
   * Whether every fetch lists the whole scope anyway (IBM's instance list of a VPC): a widening then costs
   * nothing more than a plain fetch, and every fetch in a burst may keep what it shows (default false).
   */
  fetchListsScope?: boolean;
  /** See DescribeBatcherOptions.admit. */
  admit?: () => Promise<void>;
}

type Match<V> = (key: string, value: V) => boolean;

export class ListingSnapshot<V> {
  /** What widened fetches showed of keys nobody asked for then; each answers one look-up. */
  private readonly snapshot = new Map<string, { value: V; at: number }>();
  /** key → when it was last asked for. */
  private readonly asked = new Map<string, number>();
  /** Per fetch in flight: what was forgotten while it was out. */
  private readonly inFlight = new Set<Match<V>[]>();
  private lastWiden = -Infinity;
  /** Look-ups answered from the snapshot since the last widening. */
  private servedSinceWiden = 0;
  private readonly batcher: DescribeBatcher<V>;
  private readonly reuseMs: number;
  private readonly burstSize: number;
  private readonly burstWithinMs: number;
  private readonly rememberMs: number;
  private readonly maxWidened: number;

  constructor(private readonly o: ListingSnapshotOptions<V>) {
    this.reuseMs = o.reuseMs ?? 10_000;
    this.burstSize = o.burstSize ?? 4;
    this.burstWithinMs = o.burstWithinMs ?? 1_000;
    this.rememberMs = o.rememberMs ?? 15 * 60_000;
    this.maxWidened = o.maxWidened ?? o.maxBatch;
    for (const [name, v] of [
      ['reuseMs', this.reuseMs],
      ['burstSize', this.burstSize],
      ['burstWithinMs', this.burstWithinMs],
      ['rememberMs', this.rememberMs],
      ['maxBatch', o.maxBatch],
    ] as const) {
      if (!Number.isFinite(v) || v < 0)
        throw new RangeError(`ListingSnapshot: ${name} must be a finite number >= 0, got ${v}`);
    }
    this.batcher = new DescribeBatcher<V>({
      windowMs: o.windowMs ?? 5,
      maxBatch: o.maxBatch,
      clock: o.clock,
      fetch: (keys) => this.fetchBatch(keys),
      admit: o.admit,
    });
  }

  /**
   * The value for key, or undefined when the cloud does not know it (yet). `current`, when given, says
   * whether a snapshot's view can still be the value now: the caller may know of something that happened
   * after a listing (a Node registered, so its instance is no longer booting), and then only a fetch will do.
   */
  get(key: string, signal?: AbortSignal, current?: (value: V) => boolean): Promise<V | undefined> {
    const now = this.o.clock.now();
    this.asked.delete(key);
    this.asked.set(key, now);
    const hit = this.snapshot.get(key);
    if (hit) {
      this.snapshot.delete(key);
      if (now - hit.at < this.reuseMs && (!current || current(hit.value))) {
        this.servedSinceWiden++;
        return Promise.resolve(hit.value);
      }
    }
    return this.batcher.get(key, signal);
  }

  /** Drops what was seen of these keys (after creating, deleting or changing their instance). */
  forget(...keys: string[]): void {
    const set = new Set(keys);
    this.forgetMatching((k) => set.has(k));
  }

  /** Drops what was seen of every key the predicate matches, e.g. every key of one instance. */
  forgetMatching(match: (key: string, value: V) => boolean): void {
    for (const [k, e] of this.snapshot) if (match(k, e.value)) this.snapshot.delete(k);
    for (const forgotten of this.inFlight) forgotten.push(match);
  }

  private async fetchBatch(keys: string[]): Promise<Map<string, V>> {
    const now = this.o.clock.now();
    const previousWiden = this.lastWiden;
    let widen: Widening | undefined;
    if (this.mayWiden(now) && this.inBurst(keys, now)) {
      widen = { recent: this.recent(keys, now) };
      this.lastWiden = now;
      this.servedSinceWiden = 0;
    }
    const forgotten: Match<V>[] = [];
    this.inFlight.add(forgotten);
    let found: Map<string, V>;
    try {
      found = await this.o.fetch(keys, widen);
    } catch (err) {
      if (widen) this.lastWiden = previousWiden;
      throw err;
    } finally {
      this.inFlight.delete(forgotten);
    }
    // A widening that showed nothing beyond the batch cost no more than a plain fetch: the next burst may widen.
    if (widen && this.keep(keys, found, forgotten) === 0) this.lastWiden = previousWiden;
    for (const k of [...keys, ...(widen?.recent ?? [])]) {
      const v = found.get(k);
      // Gone for good, or not visible yet: not worth fetching on anyone else's behalf.
      if (v === undefined || (this.o.worthWatching && !this.o.worthWatching(v))) this.asked.delete(k);
    }
    return found;
  }

  /**
   * A widening costs about one plain fetch (a page or so more). Once the last one has answered a burst's worth
   * of look-ups it has paid for itself, and the next burst may widen at once: a second wave of checks (the
   * Node informer's resync right after the Machine informer's) then costs one listing too. Otherwise wait
   * reuseMs/2, so that bursts of look-ups the listing cannot answer (instances not made yet) do not list
   * the whole scope each time.
   */
  private mayWiden(now: number): boolean {
    if (this.reuseMs <= 0) return false;
    if (this.o.fetchListsScope) return true;
    const since = now - this.lastWiden;
    // Never more than one widening per half burst window: in a mass scale-up every batch is a burst, and
    // listing the whole scope for each would cost a large reply per handful of machines.
    return since >= this.reuseMs / 2 || (this.servedSinceWiden >= this.burstSize && since >= this.burstWithinMs / 2);
  }

  private inBurst(keys: string[], now: number): boolean {
    if (keys.length >= this.burstSize) return true;
    let n = 0;
    for (const at of this.asked.values()) if (now - at <= this.burstWithinMs && ++n >= this.burstSize) return true;
    return false;
  }

  /** Recently asked keys outside the batch, up to maxWidened in all; forgets keys not asked for too long. */
  private recent(keys: string[], now: number): string[] {
    const batch = new Set(keys);
    const out: string[] = [];
    for (const [k, at] of this.asked) {
      if (now - at > this.rememberMs) this.asked.delete(k);
      else if (!batch.has(k)) out.push(k);
    }
    // `asked` is ordered by last look-up, so the cut keeps the most recently asked.
    return out.slice(Math.max(0, out.length - (this.maxWidened - keys.length)));
  }

  /** Stores what a widened fetch showed beyond the batch; returns how many keys that was. */
  private keep(keys: string[], found: Map<string, V>, forgotten: Match<V>[]): number {
    const at = this.o.clock.now();
    for (const [k, e] of this.snapshot) if (at - e.at >= this.reuseMs) this.snapshot.delete(k);
    const batch = new Set(keys);
    let extra = 0;
    for (const [k, value] of found) {
      if (batch.has(k) || forgotten.some((m) => m(k, value)) || (this.o.settled && !this.o.settled(value))) continue;
      this.snapshot.set(k, { value, at });
      extra++;
    }
    return extra;
  }
}
