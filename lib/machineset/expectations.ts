// Expectations, as upstream's ReplicaSet controller keeps them: after creating or deleting machines a
// MachineSet waits until its informer has seen every one of those writes before it counts machines again,
// so a cache that lags behind the API server can never make it create or delete twice. An expectation
// that is not observed within its TTL (a lost watch event) expires and the MachineSet acts again.
// MAO's MachineSet controller polled the cache for up to 10 s inside the reconcile instead, holding a worker.
import type { Clock } from '../base/clock.js';

/** Upstream's ExpectationsTimeout. */
export const DEFAULT_EXPECTATIONS_TTL_MS = 5 * 60 * 1000;

interface Entry {
  /** Creations still to be observed. */
  adds: number;
  /** UIDs of machines whose deletion is still to be observed. */
  deletes: Set<string>;
  /** When the expectation was last raised. */
  timestamp: number;
  /** When the writes of the last round had all returned; unset while they are in flight. */
  writtenAt?: number;
}

export class MachineSetExpectations {
  private readonly entries = new Map<string, Entry>();

  constructor(
    private readonly clock: Clock,
    private readonly ttlMs = DEFAULT_EXPECTATIONS_TTL_MS,
  ) {}

  /** True when nothing is outstanding for `key` (or what is outstanding has expired). */
  satisfied(key: string): boolean {
    const e = this.entries.get(key);
    if (!e) return true;
    if (e.adds <= 0 && e.deletes.size === 0) return true;
    return this.clock.now() - e.timestamp > this.ttlMs;
  }

  /** Milliseconds until an outstanding expectation expires; undefined when satisfied. */
  expiresInMs(key: string): number | undefined {
    if (this.satisfied(key)) return undefined;
    const e = this.entries.get(key)!;
    return Math.max(1, e.timestamp + this.ttlMs - this.clock.now() + 1);
  }

  expectCreations(key: string, count: number): void {
    const e = this.fresh(key);
    e.adds += count;
  }

  expectDeletions(key: string, uids: readonly string[]): void {
    const e = this.fresh(key);
    for (const uid of uids) e.deletes.add(uid);
  }

  /** A machine created for `key` appeared in the cache, or a create we expected was not made. */
  creationObserved(key: string): void {
    const e = this.entries.get(key);
    if (e && e.adds > 0) e.adds--;
  }

  /** The machine is gone from the cache, or marked for deletion, or the delete call failed. */
  deletionObserved(key: string, uid: string): void {
    this.entries.get(key)?.deletes.delete(uid);
  }

  /** The create or delete calls of this round have returned: a list sent from now on shows their effect. */
  writesDone(key: string): void {
    const e = this.entries.get(key);
    if (e) e.writtenAt = this.clock.now();
  }

  /**
   * A full list sent at `listSentAtMs` replaced the cache. A round whose writes had all returned by then is
   * settled by that list alone, even for a machine created and deleted while no watch was open (whose add
   * the informer never saw): waiting for it would hold the MachineSet back until the TTL. Returns the keys
   * settled, for the caller to look at again.
   */
  relisted(listSentAtMs: number): string[] {
    const settled: string[] = [];
    for (const [key, e] of this.entries) {
      if (e.writtenAt === undefined || e.writtenAt > listSentAtMs) continue;
      if (e.adds > 0 || e.deletes.size > 0) settled.push(key);
      this.entries.delete(key);
    }
    return settled;
  }

  /** Forget `key` (its MachineSet was deleted). */
  delete(key: string): void {
    this.entries.delete(key);
  }

  /** What is still outstanding, for logs and tests. */
  pending(key: string): { adds: number; deletes: number } {
    const e = this.entries.get(key);
    return { adds: Math.max(0, e?.adds ?? 0), deletes: e?.deletes.size ?? 0 };
  }

  private fresh(key: string): Entry {
    let e = this.entries.get(key);
    // Outstanding counts from an expired round are dropped: the next round starts from what the cache says.
    if (!e || this.satisfied(key)) {
      e = { adds: 0, deletes: new Set(), timestamp: this.clock.now() };
      this.entries.set(key, e);
    }
    e.timestamp = this.clock.now();
    e.writtenAt = undefined;
    return e;
  }
}
