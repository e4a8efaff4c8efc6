// What this process remembers about each Machine's inserts until GCE shows the instance: the attempt number
// (which picks the requestId), the zone operation of the accepted insert, and a
// failure its operation reported later, with how long the next insert must wait. After a restart all of it is
// gone; the providerStatus (instance name and MachineCreated condition) is enough to stay safe, only slower.
import type { Clock } from '../../lib/index.js';

interface Entry {
  attempt: number;
  operation?: string;
  failure?: Error;
  /** Inserts whose operation failed since the instance was last seen. */
  failures: number;
  /** No new insert before this time. */
  retryAt?: number;
}

/** The wait before an insert that follows a failed one: doubling from retryBaseMs up to retryMaxMs. */
export interface InsertBackoff {
  retryBaseMs: number;
  retryMaxMs: number;
}

export const DEFAULT_INSERT_BACKOFF: InsertBackoff = { retryBaseMs: 1_000, retryMaxMs: 5 * 60_000 };

export class PendingInserts {
  private readonly entries = new Map<string, Entry>();

  constructor(
    private readonly clock: Clock,
    /**
     * An insert that GCE accepts and then fails (quota, stock-out) looks like a success to the controller,
     * which resets its own backoff: without this one, a quota storm would be a tight insert loop.
     */
    private readonly backoff: InsertBackoff = DEFAULT_INSERT_BACKOFF,
  ) {}

  private entry(uid: string): Entry {
    let e = this.entries.get(uid);
    if (!e) {
      e = { attempt: 0, failures: 0 };
      this.entries.set(uid, e);
    }
    return e;
  }

  /** The attempt number of the next insert: a new number is a new GCE request. */
  attempt(uid: string): number {
    return this.entries.get(uid)?.attempt ?? 0;
  }

  /** An insert is about to be sent: until GCE answers, its operation is not known. */
  sending(uid: string): void {
    const e = this.entry(uid);
    e.operation = undefined;
  }

  /** GCE accepted the insert (or an instance of the name already existed: no operation then). */
  accepted(uid: string, operation: string | undefined): void {
    const e = this.entry(uid);
    e.operation = operation;
    e.failure = undefined;
  }

  /** The requestId in use is spent (GCE would only replay its old operation): the next insert is a new request. */
  nextAttempt(uid: string): void {
    const e = this.entry(uid);
    e.attempt++;
    e.operation = undefined;
  }

  /** The insert's operation failed: kept for create() to report; the next insert is a new request, sent later. */
  failed(uid: string, failure: Error): void {
    this.nextAttempt(uid);
    const e = this.entry(uid);
    e.failure = failure;
    e.failures++;
    e.retryAt = this.clock.now() + Math.min(this.backoff.retryMaxMs, this.backoff.retryBaseMs * 2 ** Math.min(e.failures - 1, 30));
  }

  /** How long the next insert must still wait after failed ones (0: it may go now). */
  holdMs(uid: string): number {
    const at = this.entries.get(uid)?.retryAt;
    return at === undefined ? 0 : Math.max(0, at - this.clock.now());
  }

  /** The failure an operation reported since the last create(), once. */
  takeFailure(uid: string): Error | undefined {
    const e = this.entries.get(uid);
    const f = e?.failure;
    if (e) e.failure = undefined;
    return f;
  }

  operation(uid: string): string | undefined {
    return this.entries.get(uid)?.operation;
  }

  /** GCE no longer knows the operation (it expired): nothing to ask any more. */
  forgetOperation(uid: string): void {
    const e = this.entries.get(uid);
    if (e) e.operation = undefined;
  }

  /** A read showed the instance: nothing is pending. The attempt number stays (its requestId may be spent). */
  seen(uid: string): void {
    const e = this.entries.get(uid);
    if (!e) return;
    if (e.attempt === 0) this.entries.delete(uid);
    else this.entries.set(uid, { attempt: e.attempt, failures: 0 });
  }

  forget(uid: string): void {
    this.entries.delete(uid);
  }
}
