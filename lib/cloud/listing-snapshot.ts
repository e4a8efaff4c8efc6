// Existence checks for many Machines answered from one listing of the cloud instead of one call per worker
// batch. A resync enqueues every Machine, and the few reconcile workers then check them a handful at a time
// over many seconds, so coalescing alone (DescribeBatcher) still costs one call per handful. Here:
// - look-ups arriving within a short window are coalesced into one direct fetch, as DescribeBatcher does;
// - once at least `burstSize` distinct keys were asked for within `burstWithinMs` (a resync, a mass scale-up),
//   the provider's paged listing of its scope (the cluster's instances in a region, a zone, a VPC) is taken
//   once; look-ups made while it is out wait for it, and it answers each key's next look-up, once, for as long
//   as the burst goes on: until no look-up was answered from it for `reuseMs`, and never past `maxAgeMs`.
//   A resync of N Machines thus costs one listing (⌈N/page⌉ calls) however its reconciles are spread.
// - a key no listing has shown yet, asked for the first time less than maxAgeMs ago (a scale-up's new instance,
//   checked as its Node comes), does not count towards a burst once a listing has been taken: a listing would show
//   every instance of the scope to answer the handful a scale-up checks each second, so a scale-up of N Machines
//   would list the scope N/rate/(reuseMs/2) times, a cost that grows as N². They are fetched directly, batched;
//   unless the direct fetch costs a call per key (fetchesOneByOne), where a listing page is the cheaper read.
// Safety:
// - a listing answer is served once per key and only in the wake of a burst, so a look-up made on an event
//   (a Node went away) after the Machine's own check of the resync reads the cloud afresh; one made before
//   it reads what the cloud showed at most maxAgeMs earlier, as that check would have if a worker had been
//   free at the start of the resync;
// - a listing only says what exists: a key it does not show goes to a direct fetch, never "not found";
// - whoever mutates an instance forgets its keys (forget/forgetMatching), and a listing or fetch that was
//   out while they did so keeps nothing of it for later and gives nothing of it to look-ups made after the
//   write, so nobody reads their own write stale;
// - a view about to change (a booting instance, `settled`) answers only look-ups that waited for the listing.
import type { Clock } from '../base/clock.js';
import { dropOlderThan } from '../base/oldest-first.js';
import { abortError } from '../base/real-clock.js';
import { DescribeBatcher } from './describe-batcher.js';

export interface ListingSnapshotOptions<V> {
  clock: Clock;
  /** Fetches `keys` directly; a key absent from the result is "not found". A rejection fails every caller of the batch. */
  fetch: (keys: string[]) => Promise<Map<string, V>>;
  /**
   * Every instance of the scope, by key, from the provider's paged listing (all pages): filtered to `scopes`
   * (see scopesOf). Only evidence that a key exists: a key it does not show is fetched directly.
   */
  list: (scopes: string[]) => Promise<Map<string, V>>;
  /**
   * The scopes a found value belongs to (its cluster's ownership tag or label): a burst lists the scopes seen
   * so far, and none before one is seen. Unset = the listing needs none (its scope is fixed, e.g. one VPC).
   */
  scopesOf?: (value: V) => Iterable<string>;
  /** Largest batch one direct fetch may carry. */
  maxBatch: number;
  /**
   * The direct fetch costs a call per key (the cloud has no read of many instances by id, as VPC's GET): new
   * keys then count towards a burst after all, as one page of a listing answers as many of them as it holds.
   * Default false (a batch of keys is one call, as EC2's DescribeInstances by id or GCE's name filter).
   */
  fetchesOneByOne?: boolean;
  /** How long the first look-up of a batch waits for company (default 5 ms). */
  windowMs?: number;
  /** Distinct keys asked for within burstWithinMs that make a burst (default 4). */
  burstSize?: number;
  /**
   * See burstSize (default 1 s). The reconcile workers of a resync reach their checks a few at a time,
   * so one coalescing window alone rarely holds a burst.
   */
  burstWithinMs?: number;
  /**
   * How long a listing keeps answering after it last answered a look-up, or after it was taken (default 10 s;
   * 0 = never list, a plain batcher). Also: a new listing needs reuseMs/2 since the last one (see mayList).
   */
  reuseMs?: number;
  /** How long after it was taken a listing may answer at all, however busy the burst (default 60 s). */
  maxAgeMs?: number;
  /**
   * Whether a listing's view of a value may answer a look-up made after the listing (default: always). A
   * booting instance's view is stale within seconds: answering from it records an old state now and the new
   * one a pass later, two writes to the Machine instead of one.
   */
  settled?: (value: V) => boolean;
  /** See DescribeBatcherOptions.admit (direct fetches only: the provider's list admits each page itself). */
  admit?: () => Promise<void>;
}

type Match<V> = (key: string, value: V) => boolean;

interface Listing<V> {
  entries: Map<string, V>;
  /** When the listing was asked for: a look-up made before then reads it as fresh. */
  startedAt: number;
  takenAt: number;
  lastUsed: number;
}

export class ListingSnapshot<V> {
  private listing: Listing<V> | undefined;
  /** The listing being taken, resolved once `listing` holds it (or it failed). */
  private listingOut: Promise<void> | undefined;
  /** key → when a look-up the listing could not answer last asked for it, oldest first; pruned past burstWithinMs. */
  private readonly asked = new Map<string, number>();
  /** Scopes seen in found values (see scopesOf). */
  private readonly scopes = new Set<string>();
  /** Per fetch or listing in flight: what was forgotten while it was out. */
  private readonly inFlight = new Set<Match<V>[]>();
  private lastList = -Infinity;
  /**
   * Keys the most recent listing that showed anything showed (kept whole, unlike its answers). While it is
   * empty, no listing has come back with something, and every key counts towards a burst.
   */
  private listedKeys = new Set<string>();
  /** Keys no listing has shown, with when each was first asked for; see countsTowardBurst. */
  private readonly firstAsked = new Map<string, number>();
  /** Look-ups made after the listing came back and answered from it. */
  private served = 0;
  private readonly batcher: DescribeBatcher<V>;
  private readonly reuseMs: number;
  private readonly maxAgeMs: number;
  private readonly burstSize: number;
  private readonly burstWithinMs: number;

  constructor(private readonly o: ListingSnapshotOptions<V>) {
    this.reuseMs = o.reuseMs ?? 10_000;
    this.maxAgeMs = o.maxAgeMs ?? 60_000;
    this.burstSize = o.burstSize ?? 4;
    this.burstWithinMs = o.burstWithinMs ?? 1_000;
    for (const [name, v] of [
      ['reuseMs', this.reuseMs],
      ['maxAgeMs', this.maxAgeMs],
      ['burstSize', this.burstSize],
      ['burstWithinMs', this.burstWithinMs],
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
   * whether a listing's view can still be the value now: the caller may know of something that happened
   * after a listing (a Node registered, so its instance is no longer booting), and then only a fetch will do.
   */
  async get(key: string, signal?: AbortSignal, current?: (value: V) => boolean): Promise<V | undefined> {
    if (!this.listingOut) {
      const hit = this.answer(key, false, current);
      if (hit !== undefined) return hit;
    }
    // Only look-ups the listing cannot answer count towards a burst: a resync answered from it lists once.
    const now = this.o.clock.now();
    this.asked.delete(key);
    if (this.countsTowardBurst(key, now)) this.asked.set(key, now);
    if (!this.listingOut && this.shouldList(now)) this.startListing();
    if (this.listingOut) {
      await untilAborted(this.listingOut, signal);
      const hit = this.answer(key, true, current);
      if (hit !== undefined) return hit;
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
    if (this.listing) for (const [k, v] of this.listing.entries) if (match(k, v)) this.listing.entries.delete(k);
    for (const forgotten of this.inFlight) forgotten.push(match);
  }

  /** The listing's value for key, once; `waited` = the look-up was made before the listing came back. */
  private answer(key: string, waited: boolean, current?: (value: V) => boolean): V | undefined {
    const l = this.listing;
    if (!l) return undefined;
    const now = this.o.clock.now();
    if (now - l.takenAt >= this.maxAgeMs || now - l.lastUsed >= this.reuseMs) {
      this.listing = undefined;
      return undefined;
    }
    const v = l.entries.get(key);
    if (v === undefined) return undefined;
    l.entries.delete(key);
    if (!waited && this.o.settled && !this.o.settled(v)) return undefined;
    if (current && !current(v)) return undefined;
    l.lastUsed = now;
    // What it answers on others' behalf is what a listing saves; its own waiters would have cost a fetch anyway.
    if (!waited) this.served++;
    return v;
  }

  /** Whether a look-up of `key` the listing could not answer is one a listing can be expected to answer. */
  private countsTowardBurst(key: string, now: number): boolean {
    if (this.o.fetchesOneByOne || this.listedKeys.size === 0 || this.listedKeys.has(key)) return true;
    const first = this.firstAsked.get(key);
    if (first === undefined) {
      this.firstAsked.set(key, now);
      return false;
    }
    return now - first >= this.maxAgeMs;
  }

  private shouldList(now: number): boolean {
    if (this.reuseMs <= 0 || !this.inBurst(now) || !this.mayList(now)) return false;
    return !this.o.scopesOf || this.scopes.size > 0;
  }

  /**
   * A listing costs a page per `page` instances. Once the last one has answered a burst's worth of look-ups it
   * has paid for itself, and a new burst (keys it no longer holds: a second wave of checks, the Node informer's
   * resync right after the Machine informer's) may list again half a burst window later. Otherwise wait reuseMs/2,
   * so that bursts of look-ups a listing cannot answer (instances not made yet) do not list the whole scope each time.
   */
  private mayList(now: number): boolean {
    const since = now - this.lastList;
    return since >= this.reuseMs / 2 || (this.served >= this.burstSize && since >= this.burstWithinMs / 2);
  }

  private inBurst(now: number): boolean {
    dropOlderThan(this.asked, now - this.burstWithinMs);
    return this.asked.size >= this.burstSize;
  }

  private startListing(): void {
    const previous = this.lastList;
    const startedAt = this.o.clock.now();
    this.lastList = startedAt;
    const forgotten: Match<V>[] = [];
    this.inFlight.add(forgotten);
    const out = this.o
      .list([...this.scopes])
      .then(
        (found) => {
          this.learnScopes(found.values());
          const at = this.o.clock.now();
          const entries = new Map<string, V>();
          for (const [k, v] of found) if (!forgotten.some((m) => m(k, v))) entries.set(k, v);
          this.listing = { entries, startedAt, takenAt: at, lastUsed: at };
          this.served = 0;
          if (entries.size > 0) {
            this.listedKeys = new Set(entries.keys());
            // Kept only until a listing shows the key, or long after it would count anyway (a key gone).
            for (const [k, first] of this.firstAsked)
              if (this.listedKeys.has(k) || at - first >= 10 * this.maxAgeMs) this.firstAsked.delete(k);
          }
          // A listing that showed nothing cost a call for nothing: the next burst may list at once.
          if (entries.size === 0) this.lastList = previous;
        },
        () => {
          // A failed listing answers nobody; its waiters fetch directly, and the next burst may list again.
          this.lastList = previous;
        },
      )
      .finally(() => {
        this.inFlight.delete(forgotten);
        if (this.listingOut === out) this.listingOut = undefined;
      });
    this.listingOut = out;
  }

  /**
   * A batch whose keys were asked for before a listing started (the look-ups that made the burst) reads them
   * from it, waiting for it if it is out, and fetches directly only what it does not show.
   */
  private async fetchBatch(keys: string[]): Promise<Map<string, V>> {
    const found = new Map<string, V>();
    if (this.listingOut) await this.listingOut;
    const startedAt = this.listing?.startedAt ?? -Infinity;
    for (const k of keys) {
      const asked = this.asked.get(k);
      const v = asked !== undefined && asked <= startedAt ? this.answer(k, true) : undefined;
      if (v !== undefined) found.set(k, v);
    }
    const rest = keys.filter((k) => !found.has(k));
    if (rest.length === 0) return found;
    const fetched = await this.o.fetch(rest);
    this.learnScopes(fetched.values());
    for (const [k, v] of fetched) found.set(k, v);
    return found;
  }

  private learnScopes(values: Iterable<V>): void {
    if (!this.o.scopesOf) return;
    for (const v of values) for (const s of this.o.scopesOf(v)) this.scopes.add(s);
  }
}

/** Resolves when `p` settles, or rejects when `signal` aborts first. */
function untilAborted(p: Promise<void>, signal?: AbortSignal): Promise<void> {
  if (!signal) return p;
  if (signal.aborted) return Promise.reject(abortError(signal));
  return new Promise<void>((resolve, reject) => {
    const onAbort = () => reject(abortError(signal));
    signal.addEventListener('abort', onAbort, { once: true });
    void p.then(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    });
  });
}
