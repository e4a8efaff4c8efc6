// What this process launched for each Machine until the Machine's status records it. The first status write
// after a create can fail (a conflict, the API server restarting), and a create whose reply was lost never
// learns its instance's id at all; the cloud's reads may not show a new instance for seconds. A Machine
// deleted in that gap would find nothing and let its finalizer go, leaking the instance. delete() asks the
// ledger first. After a restart the ledger is empty: the providerStatus is then all there is.
import type { Clock } from '../base/clock.js';

export interface LaunchLedgerOptions {
  clock: Clock;
  /** How long an instance whose id is known may stay invisible to reads. */
  windowMs: number;
  /**
   * How long a launch whose reply never came may still show up. Clouds list a new instance within seconds;
   * one not seen in a minute was most likely never made. Default 60 s (capped at windowMs).
   */
  unknownIdWaitMs?: number;
}

interface Launch {
  id?: string;
  at: number;
}

export class LaunchLedger {
  private readonly launches = new Map<string, Launch>();

  constructor(private readonly o: LaunchLedgerOptions) {}

  /** A launch is about to be sent for the Machine: until it answers, its instance's id is unknown. */
  sending(uid: string): void {
    this.launches.set(uid, { at: this.o.clock.now() });
  }

  /** The launch made (or adopted) this instance. */
  launched(uid: string, id: string): void {
    this.launches.set(uid, { id, at: this.o.clock.now() });
  }

  /** The cloud refused the launch without making anything (a 4xx): nothing to wait for. */
  refused(uid: string): void {
    this.launches.delete(uid);
  }

  /**
   * The recorded id, else the one this process launched and has not seen recorded. A recorded id settles the
   * launch: it is the same instance, or (a launch with no answer) the one adopted since.
   */
  instanceIdOf(uid: string, recorded: string | null | undefined): string | undefined {
    const launch = this.launches.get(uid);
    if (recorded) {
      if (launch && (!launch.id || launch.id === recorded)) this.launches.delete(uid);
      return recorded;
    }
    return launch?.id;
  }

  /** Whether a launch for the Machine may have made an instance that reads do not show yet. */
  unconfirmed(uid: string): boolean {
    const launch = this.launches.get(uid);
    if (!launch) return false;
    const wait = launch.id ? this.o.windowMs : Math.min(this.o.windowMs, this.o.unknownIdWaitMs ?? 60_000);
    return this.o.clock.now() - launch.at < wait;
  }

  /** When the launch for the Machine was sent or answered, while the ledger holds it. */
  launchedAt(uid: string): number | undefined {
    return this.launches.get(uid)?.at;
  }

  /** The instance was found (or the Machine is gone): nothing left to guard. */
  forget(uid: string): void {
    this.launches.delete(uid);
  }
}
