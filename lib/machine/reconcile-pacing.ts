// How long a Machine waits before its next reconcile, by how the last one ended. Each wait is held by the
// hot-loop gate, because the controller's own status write comes straight back through the watch and would
// otherwise cut it short:
//  - a failure: the gate's exponential backoff (beside the work queue's own);
//  - a missing Secret: a wait, not a failure, with its own backoff; the Secret watch lifts it early (retryNow);
//  - a create refused for capacity inside its window: the capacity backoff, never past the window's end.
import type { Machine } from '../apis/machine-types.js';
import type { Clock } from '../base/clock.js';
import type { Result } from '../runtime/types.js';
import { CapacityRetry } from './capacity-window.js';
import { findError, MissingSecretError } from '../apis/errors.js';
import { RetryGate } from './retry-gate.js';

export interface ReconcilePacingOptions {
  /** Hot-loop guard bounds after a failed reconcile. */
  retryBaseMs: number;
  retryMaxMs: number;
  /** Bounds of the wait for a missing Secret; default 1 s → 2 min. */
  secretWaitBaseMs?: number;
  secretWaitMaxMs?: number;
  /** Bounds of the wait between capacity retries; default 5 s → 30 s. */
  capacityRetryBaseMs?: number;
  capacityRetryMaxMs?: number;
}

// The uid is part of it: a machine re-created under the same name is a new object and owes nothing to the
// backoff its predecessor earned.
export const fingerprintOf = (m: Machine): string =>
  `${m.metadata.uid ?? ''}/${m.metadata.generation ?? 0}/${m.metadata.deletionTimestamp ?? ''}`;

export class ReconcilePacing {
  private readonly gate: RetryGate;
  private readonly secretWaits: RetryGate;
  private readonly capacityWaits: RetryGate;

  constructor(clock: Clock, o: ReconcilePacingOptions) {
    this.gate = new RetryGate(clock, o.retryBaseMs, o.retryMaxMs);
    this.secretWaits = new RetryGate(clock, o.secretWaitBaseMs ?? 1_000, o.secretWaitMaxMs ?? 120_000);
    this.capacityWaits = new RetryGate(clock, o.capacityRetryBaseMs ?? 5_000, o.capacityRetryMaxMs ?? 30_000);
  }

  /** Milliseconds the Machine must still wait, or undefined when it may be reconciled now. */
  remaining(key: string, fingerprint: string): number | undefined {
    return this.gate.remaining(key, fingerprint);
  }

  /** Lifts the wait, so that the next reconcile runs at once (a Secret the Machine waits for changed). */
  retryNow(key: string): void {
    this.gate.succeeded(key);
  }

  /** A reconcile that ended well, or a Machine that is gone: every backoff starts over. */
  succeeded(key: string): void {
    this.gate.succeeded(key);
    this.secretWaits.succeeded(key);
    this.capacityWaits.succeeded(key);
  }

  /**
   * After a reconcile that began at `startedMs` and threw `err`: the requeue when the error is a wait (a
   * capacity retry, a missing Secret); any other error is held back by the gate and thrown again.
   */
  failed(key: string, fingerprint: string, startedMs: number, err: unknown): Result {
    if (err instanceof CapacityRetry) {
      const delay = Math.min(this.capacityWaits.failed(key, fingerprint, startedMs), err.windowLeftMs);
      this.gate.hold(key, fingerprint, delay, startedMs);
      return { requeueAfterMs: delay };
    }
    this.capacityWaits.succeeded(key);
    if (findError(err, MissingSecretError)) {
      // The hold keeps our own status write from bringing the key straight back; the bounded delay is the
      // fallback look should the Secret watch never fire.
      const delay = this.secretWaits.failed(key, fingerprint, startedMs);
      this.gate.hold(key, fingerprint, delay, startedMs);
      return { requeueAfterMs: delay };
    }
    this.gate.failed(key, fingerprint, startedMs);
    throw err;
  }
}
