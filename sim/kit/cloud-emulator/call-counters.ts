// Per-action call accounting, so tests and benchmarks can assert how many cloud calls a controller made.

export interface ActionCounts {
  /** Every call that reached the emulator, whatever its outcome. */
  total: number;
  /** Answered with the cloud's throttling error. */
  throttled: number;
  /** Answered with any other error (injected or a real validation/not-found error). */
  failed: number;
  /** Applied, but the reply was dropped or replaced by an error. */
  lostReplies: number;
}

export class CallCounters {
  private readonly counts = new Map<string, ActionCounts>();

  private entry(action: string): ActionCounts {
    let c = this.counts.get(action);
    if (!c) {
      c = { total: 0, throttled: 0, failed: 0, lostReplies: 0 };
      this.counts.set(action, c);
    }
    return c;
  }

  add(action: string, field: keyof ActionCounts): void {
    this.entry(action)[field] += 1;
  }

  get(action: string): ActionCounts {
    return { ...(this.counts.get(action) ?? { total: 0, throttled: 0, failed: 0, lostReplies: 0 }) };
  }

  /** A copy of every action's counts, keyed by action name. */
  snapshot(): Record<string, ActionCounts> {
    const out: Record<string, ActionCounts> = {};
    for (const [k, v] of [...this.counts.entries()].sort(([a], [b]) => a.localeCompare(b))) out[k] = { ...v };
    return out;
  }

  /** Sum of `total` over every action (or those accepted by `filter`). */
  totalCalls(filter?: (action: string) => boolean): number {
    let n = 0;
    for (const [k, v] of this.counts) if (!filter || filter(k)) n += v.total;
    return n;
  }

  reset(): void {
    this.counts.clear();
  }
}
