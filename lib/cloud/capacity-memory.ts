// What one provider process remembers of the cloud's capacity refusals: a (region, instance type, zone, market)
// the cloud refused is skipped by the next Machines for a cool-down, then probed again. A scale-up of a hundred
// Machines during a stock-out then costs about one refused call per refused choice instead of one per Machine.
// It is only a hint: a Machine never fails on a remembered refusal alone (see capacity-entries.ts).
//
// A choice this process has no answer for (never launched here, or its refusal cooled down) is probed by one
// launch at a time: the reconcile workers of a scale-up all start at once, and without this each of them sends
// the choice before the first refusal comes back, so a stock-out cost one refused launch per worker, each
// spending a token of the provider's write budget the fallback launches then waited for. The others wait for
// the probe's answer (a launch answers in tens of milliseconds), at most a few seconds, so a slow or lost
// launch never holds them for long; once the cloud has accepted the choice, launches of it go out side by side.
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

/** How long a launch waits for another Machine's probe of the same choice to answer before it goes out anyway. */
export const DEFAULT_CAPACITY_PROBE_WAIT_MS = 5_000;

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
  /** Choices the cloud accepted a launch of since their last refusal. */
  private readonly acceptances = new Set<string>();
  /** Per choice, the probe in flight: resolved once its launch is answered (or gave no answer), and since when. */
  private readonly probes = new Map<string, { answered: Promise<void>; since: number }>();

  constructor(private readonly o: { clock: Clock; coolDownMs?: number; probeWaitMs?: number }) {}

  private static key(region: string, c: CapacityChoice): string {
    return JSON.stringify([region, c.instanceType, c.zone, c.market]);
  }

  /** The cloud refused the choice. */
  refused(region: string, choice: CapacityChoice, message: string): void {
    const key = CapacityMemory.key(region, choice);
    this.refusals.set(key, { message, at: this.o.clock.now() });
    this.acceptances.delete(key);
  }

  /** The cloud accepted the choice: nothing to skip any more, and its launches need no probe. */
  accepted(region: string, choice: CapacityChoice): void {
    const key = CapacityMemory.key(region, choice);
    this.refusals.delete(key);
    this.acceptances.add(key);
  }

  /** The refusal to skip the choice for, while its cool-down lasts. */
  refusalOf(region: string, choice: CapacityChoice): RememberedRefusal | undefined {
    return this.liveRefusal(CapacityMemory.key(region, choice));
  }

  /**
   * Claims the probe of a choice this process has no answer for: returns the release to call once the launch is
   * answered (after refused() or accepted()), or undefined when the answer is known or another probe is out.
   */
  probe(region: string, choice: CapacityChoice): (() => void) | undefined {
    const key = CapacityMemory.key(region, choice);
    if (this.known(key) || this.inFlight(key)) return undefined;
    let answer!: () => void;
    const probe = { answered: new Promise<void>((resolve) => (answer = resolve)), since: this.o.clock.now() };
    this.probes.set(key, probe);
    return () => {
      if (this.probes.get(key) === probe) this.probes.delete(key);
      answer();
    };
  }

  /**
   * A launch's turn at the choice: waits while another probe of it is in flight (until that is answered, or the
   * probe wait at the latest), then claims the probe when the answer is still unknown. Resolves with the release
   * of the claimed probe, or undefined (the answer is known, or the wait is over). The check and the claim are one
   * step, so of Machines asking together exactly one probes. Rejects with the signal's reason when aborted.
   */
  async turnToLaunch(region: string, choice: CapacityChoice, signal?: AbortSignal): Promise<(() => void) | undefined> {
    const key = CapacityMemory.key(region, choice);
    const deadline = this.o.clock.now() + this.probeWaitMs;
    for (;;) {
      signal?.throwIfAborted();
      const inFlight = this.inFlight(key);
      const left = deadline - this.o.clock.now();
      if (!inFlight || this.known(key) || left <= 0) return this.probe(region, choice);
      await this.untilSettled(inFlight.answered, left, signal);
    }
  }

  /** The probe of the choice in flight; one out for longer than the probe wait holds nobody any more. */
  private inFlight(key: string): { answered: Promise<void> } | undefined {
    const p = this.probes.get(key);
    return p && this.o.clock.now() - p.since < this.probeWaitMs ? p : undefined;
  }

  private get probeWaitMs(): number {
    return this.o.probeWaitMs ?? DEFAULT_CAPACITY_PROBE_WAIT_MS;
  }

  /** Whether the cloud's answer for the choice is known here: accepted since, or refused within the cool-down. */
  private known(key: string): boolean {
    return this.acceptances.has(key) || this.liveRefusal(key) !== undefined;
  }

  private liveRefusal(key: string): RememberedRefusal | undefined {
    const r = this.refusals.get(key);
    if (!r) return undefined;
    if (this.o.clock.now() - r.at >= (this.o.coolDownMs ?? DEFAULT_CAPACITY_COOL_DOWN_MS)) {
      this.refusals.delete(key);
      return undefined;
    }
    return r;
  }

  /** Resolves when `inFlight` settles, `ms` pass or the signal aborts, whichever comes first; no timer is left. */
  private untilSettled(inFlight: Promise<void>, ms: number, signal?: AbortSignal): Promise<void> {
    return new Promise<void>((resolve) => {
      const done = (): void => {
        timer.cancel();
        signal?.removeEventListener('abort', done);
        resolve();
      };
      const timer = this.o.clock.setTimeout(done, ms);
      signal?.addEventListener('abort', done, { once: true });
      void inFlight.then(done);
    });
  }
}
