// Which instance types an emulated cloud has no capacity for, where, and in which market (on-demand or spot, as
// the clouds count them apart). A rule for "every zone" or "every market" ("*") is the default; a more specific
// rule wins over it, so a test can say "no p5.48xlarge anywhere but us-east-1c" or "no spot m5.large in
// us-east-1a". Setting a rule drops the more specific ones it covers: it speaks for all of them.

const EVERY = '*';

/** The market a launch asks capacity of. */
export type CapacityMarket = 'on-demand' | 'spot';

export class CapacityTable {
  /** JSON [type, zone, market] → whether that is out of capacity. */
  private readonly rules = new Map<string, boolean>();

  /** `unavailable` types start out of capacity in every zone and market (as an account without reservations sees them). */
  constructor(unavailable: readonly string[] = []) {
    for (const t of unavailable) this.set(t, EVERY, false);
  }

  private static key(type: string, zone: string, market: string): string {
    return JSON.stringify([type, zone, market]);
  }

  /** Turns capacity of `type` off or on in `zone` and `market` ("*" or omitted: every zone, every market). */
  set(type: string, zone: string = EVERY, available: boolean, market: CapacityMarket | '*' = EVERY): void {
    for (const k of [...this.rules.keys()]) {
      const [t, z, m] = JSON.parse(k) as [string, string, string];
      if (t === type && (zone === EVERY || z === zone) && (market === EVERY || m === market)) this.rules.delete(k);
    }
    this.rules.set(CapacityTable.key(type, zone, market), !available);
  }

  /** Whether a launch of `type` in `zone` in `market` is refused for want of capacity. */
  isExhausted(type: string, zone: string, market: CapacityMarket = 'on-demand'): boolean {
    for (const [z, m] of [
      [zone, market],
      [zone, EVERY],
      [EVERY, market],
      [EVERY, EVERY],
    ] as const) {
      const rule = this.rules.get(CapacityTable.key(type, z, m));
      if (rule !== undefined) return rule;
    }
    return false;
  }
}
