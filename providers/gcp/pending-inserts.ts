// What this process remembers about each Machine's inserts until GCE shows the instance: the attempt number
// (which picks the requestId), the zone operation of the accepted insert, and a failure its operation reported
// later. How long the next insert waits is the machine controller's backoff, as for any other failed create.
// After a restart all of it is gone; the providerStatus (instance name and MachineCreated condition) is enough
// to stay safe, only slower.

interface Entry {
  attempt: number;
  operation?: string;
  failure?: Error;
}

export class PendingInserts {
  private readonly entries = new Map<string, Entry>();

  private entry(uid: string): Entry {
    let e = this.entries.get(uid);
    if (!e) {
      e = { attempt: 0 };
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

  /** The insert's operation failed: kept for create() to report; the next insert is a new request. */
  failed(uid: string, failure: Error): void {
    this.nextAttempt(uid);
    this.entry(uid).failure = failure;
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
    else this.entries.set(uid, { attempt: e.attempt });
  }

  forget(uid: string): void {
    this.entries.delete(uid);
  }
}
