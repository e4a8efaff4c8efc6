// Exponential backoff for restarting list/watch loops: initial, doubling, capped, reset on progress.
export class Backoff {
  private next: number;

  constructor(
    private readonly initialMs = 800,
    private readonly maxMs = 30_000,
  ) {
    this.next = initialMs;
  }

  /** The delay to wait now; the following one doubles. */
  step(): number {
    const d = this.next;
    this.next = Math.min(this.maxMs, this.next * 2);
    return d;
  }

  reset(): void {
    this.next = this.initialMs;
  }
}
