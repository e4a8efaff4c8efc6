// What one provider process remembers of the cloud's capacity refusals: a (region, instance type, zone, market)
// the cloud refused is skipped by the next Machines for a cool-down, then probed again. A scale-up of a hundred
// Machines during a stock-out then costs about one refused call per refused choice instead of one per Machine.
// It is only a hint: a Machine never fails on a remembered refusal alone (see capacity-entries.ts).
import type { Clock } from '../base/clock.js';

/** On-demand (standard) or spot (preemptible, interruptible) capacity. */
export type CapacityMarket = 'on-demand' | 'spot';

/** Where and as what a Machine's instance is asked for: what the cloud's capacity is counted by. */
export interface CapacityChoice {
  instanceType: string;
  zone: string;
  market: CapacityMarket;
}

/** How long a refusal is remembered before the choice is probed again. */
export const DEFAULT_CAPACITY_COOL_DOWN_MS = 180_000;

export interface RememberedRefusal {
  /** The cloud's words. */
  message: string;
  /** When it was refused (ms since epoch). */
  at: number;
}

export const capacityChoiceName = (c: CapacityChoice): string =>
  `${c.instanceType} in ${c.zone || 'any zone'} (${c.market})`;

export class CapacityMemory {
  private readonly refusals = new Map<string, RememberedRefusal>();

  constructor(private readonly o: { clock: Clock; coolDownMs?: number }) {}

  private static key(region: string, c: CapacityChoice): string {
    return JSON.stringify([region, c.instanceType, c.zone, c.market]);
  }

  /** The cloud refused the choice. */
  refused(region: string, choice: CapacityChoice, message: string): void {
    this.refusals.set(CapacityMemory.key(region, choice), { message, at: this.o.clock.now() });
  }

  /** The cloud accepted the choice: nothing to skip any more. */
  accepted(region: string, choice: CapacityChoice): void {
    this.refusals.delete(CapacityMemory.key(region, choice));
  }

  /** The refusal to skip the choice for, while its cool-down lasts. */
  refusalOf(region: string, choice: CapacityChoice): RememberedRefusal | undefined {
    const key = CapacityMemory.key(region, choice);
    const r = this.refusals.get(key);
    if (!r) return undefined;
    if (this.o.clock.now() - r.at >= (this.o.coolDownMs ?? DEFAULT_CAPACITY_COOL_DOWN_MS)) {
      this.refusals.delete(key);
      return undefined;
    }
    return r;
  }
}
