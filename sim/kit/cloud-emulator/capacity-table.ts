// Which instance types an emulated cloud has no capacity for, and where. A rule for "every zone" is the
// default; a rule for one zone wins over it, so a test can say "no p5.48xlarge anywhere but us-east-1c".
// Setting the every-zone rule drops the per-zone ones of that type: it speaks for every zone.

const EVERY_ZONE = '*';

export class CapacityTable {
  /** "<type>@<zone>" → whether the zone is out of that type. */
  private readonly rules = new Map<string, boolean>();

  /** `unavailable` types start out of capacity in every zone (as an account without reservations sees them). */
  constructor(unavailable: readonly string[] = []) {
    for (const t of unavailable) this.set(t, EVERY_ZONE, false);
  }

  /** Turns capacity of `type` off or on in `zone` ("*" or omitted: every zone). */
  set(type: string, zone: string = EVERY_ZONE, available: boolean): void {
    if (zone === EVERY_ZONE) {
      for (const k of [...this.rules.keys()]) if (k.startsWith(`${type}@`)) this.rules.delete(k);
    }
    this.rules.set(`${type}@${zone}`, !available);
  }

  /** Whether a launch of `type` in `zone` is refused for want of capacity. */
  isExhausted(type: string, zone: string): boolean {
    return this.rules.get(`${type}@${zone}`) ?? this.rules.get(`${type}@${EVERY_ZONE}`) ?? false;
  }
}
