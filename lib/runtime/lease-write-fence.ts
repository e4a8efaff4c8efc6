// The write fence of a leader-elected process. Another replica may take the Lease once it has seen it
// unrenewed for leaseDuration; this process counts itself leader only until renewDeadline (shorter) after
// the start of its last successful renewal, by its own clock. Past that instant every write is refused
// here, before it is sent, whatever else the process was doing: a process that was stopped (SIGSTOP, a
// long GC pause, a frozen VM) and resumes finds its in-flight reconciles unable to change the cluster,
// even before its renewal loop wakes up and steps down.
import type { WriteFence } from '../client/write-fence.js';
import type { Clock } from '../base/clock.js';

export class LeaseLostWriteRefusedError extends Error {
  override readonly name = 'LeaseLostWriteRefusedError';
}

export class LeaseWriteFence implements WriteFence {
  private validUntil = Number.NEGATIVE_INFINITY;

  constructor(private readonly clock: Clock) {}

  /** Writes are allowed until `ms` (exclusive), by this fence's clock. */
  holdUntil(ms: number): void {
    this.validUntil = ms;
  }

  /** For a process that does not take part in leader election: always open. */
  openForever(): void {
    this.validUntil = Number.POSITIVE_INFINITY;
  }

  close(): void {
    this.validUntil = Number.NEGATIVE_INFINITY;
  }

  isOpen(): boolean {
    return this.clock.now() < this.validUntil;
  }

  check(method: string, path: string): void {
    if (this.isOpen()) return;
    const until = Number.isFinite(this.validUntil)
      ? ` (the lease could be counted on until ${new Date(this.validUntil).toISOString()})`
      : '';
    throw new LeaseLostWriteRefusedError(
      `${method} ${path} refused: this process does not hold the leader lease${until}`,
    );
  }
}
