// Guards against hot loops: a controller's own status write re-triggers it through the watch at once,
// bypassing the work queue's backoff. After a failure the gate holds the key back for an exponential
// delay, unless the object changed in a way that deserves immediate attention (new generation or deletion).
import type { Clock } from '../base/clock.js';

interface Entry {
  failures: number;
  notBefore: number;
  fingerprint: string;
}

export class RetryGate {
  private readonly entries = new Map<string, Entry>();

  constructor(
    private readonly clock: Clock,
    private readonly baseDelayMs: number,
    private readonly maxDelayMs: number,
  ) {}

  /** Milliseconds the key must still wait, or undefined if it may proceed. */
  remaining(key: string, fingerprint: string): number | undefined {
    const e = this.entries.get(key);
    if (!e || e.fingerprint !== fingerprint) return undefined;
    const left = e.notBefore - this.clock.now();
    // A few ms of slack: the work queue's own backoff fires at nearly the same moment.
    return left > 20 ? left : undefined;
  }

  /** Records a failure; returns the delay chosen. */
  failed(key: string, fingerprint: string, atMs = this.clock.now()): number {
    const prev = this.entries.get(key);
    const failures = (prev?.failures ?? 0) + 1;
    const delay = Math.min(this.maxDelayMs, this.baseDelayMs * 2 ** Math.min(failures - 1, 40));
    this.entries.set(key, { failures, notBefore: atMs + delay, fingerprint });
    return delay;
  }

  /** Holds the key for exactly `ms` (a RequeueAfter), keeping the failure count. */
  hold(key: string, fingerprint: string, ms: number, atMs = this.clock.now()): void {
    const prev = this.entries.get(key);
    this.entries.set(key, { failures: prev?.failures ?? 0, notBefore: atMs + ms, fingerprint });
  }

  succeeded(key: string): void {
    this.entries.delete(key);
  }
}
