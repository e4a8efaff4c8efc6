// The one rule, for every cloud, that decides whether a Machine being deleted may let its finalizer go when
// no read shows its instance. A cloud's reads may not show a new instance for a while (and may hide it again
// for a moment), so "not found" right after a launch does not mean "gone": a Machine whose instance we
// launched (an instance id or providerID is on record, or the launch ledger still guards it) keeps its finalizer
// until that instance was seen terminating (the delete call was accepted, or a read showed it going), or
// until the visibility window after its launch has passed and the provider's look-up by the Machine's
// identity (tags, name) shows nothing either. Releasing early would leave the instance running with no
// Machine; nothing else would ever delete it.
import { MachineInstanceStateAnnotation } from '../apis/constants.js';
import type { Machine } from '../apis/machine-types.js';
import { RequeueAfterError } from '../apis/errors.js';
import type { Clock } from '../base/clock.js';
import type { LaunchLedger } from './launch-ledger.js';
import { TerminationFollower, type TerminationFollowPolicy } from './termination-follower.js';

/**
 * How long after a launch a cloud's reads may still not show the instance. Clouds list a new instance within
 * seconds; a few minutes covers the slow cases the clouds document without holding a Machine whose instance
 * was removed out of band for long.
 */
export const DEFAULT_VISIBILITY_WINDOW_MS = 2 * 60_000;

export interface DeleteGuardOptions {
  clock: Clock;
  /** What this process launched and has not seen recorded (absent: a provider that records before launching). */
  ledger?: LaunchLedger;
  /** See DEFAULT_VISIBILITY_WINDOW_MS (tests shorten it). */
  windowMs?: number;
  /** How often to look again while waiting (default: TerminationFollower's). */
  follow?: Partial<TerminationFollowPolicy>;
  /** Whether an instance state (the one on the instance-state annotation) means its termination is under way or done. */
  isTerminating: (state: string) => boolean;
}

/** What the provider knows of the Machine's instance beyond the Machine itself. */
export interface RecordedLaunch {
  /** The instance id in the provider status, if any. */
  instanceId?: string | null;
  /** When the provider status recorded the instance as created (epoch ms), if it says. */
  recordedAt?: number;
}

/** Thrown (a RequeueAfterError) while a Machine's launched instance may be invisible, not gone. */
export class InstanceNotVisibleYetError extends RequeueAfterError {
  constructor(
    readonly machineName: string,
    requeueAfterMs: number,
    readonly windowEndsAt: number,
  ) {
    super(requeueAfterMs);
  }
}

export class DeleteGuard {
  private readonly windowMs: number;
  private readonly waits: TerminationFollower;
  /** Machine UIDs whose instance was seen terminating by this process. */
  private readonly terminating = new Set<string>();
  /** Machine UIDs with nothing known of when their launch was: when the guard first waited for them. */
  private readonly firstAsked = new Map<string, number>();

  constructor(private readonly o: DeleteGuardOptions) {
    this.windowMs = o.windowMs ?? DEFAULT_VISIBILITY_WINDOW_MS;
    if (!(Number.isFinite(this.windowMs) && this.windowMs >= 0))
      throw new RangeError(`DeleteGuard: windowMs must be a finite number >= 0, got ${this.windowMs}`);
    this.waits = new TerminationFollower(o.clock, o.follow);
  }

  /** The Machine's instance was seen terminating (its delete was accepted, or a read showed it going). */
  seenTerminating(uid: string): void {
    this.terminating.add(uid);
    this.clearWait(uid);
  }

  /** The instance was seen, not terminating yet: whatever the guard waited for has shown up. */
  seen(uid: string): void {
    this.clearWait(uid);
  }

  /**
   * Delete found no instance for the Machine, neither by its id nor by the Machine's identity. Returns when
   * the Machine may let its finalizer go; throws InstanceNotVisibleYetError (a requeue) while its instance
   * may be one the reads do not show yet.
   */
  nothingFound(machine: Machine, recorded: RecordedLaunch): void {
    const uid = machine.metadata.uid ?? '';
    const mayHide = this.mayStillBeHidden(machine, recorded);
    if (mayHide === undefined) {
      this.forget(uid);
      return;
    }
    throw new InstanceNotVisibleYetError(machine.metadata.name ?? '', this.waits.next(uid), mayHide);
  }

  /**
   * The same rule as seen from exists(): whether no read showing the Machine's instance means "not shown yet"
   * rather than "gone". True while an instance whose id is known (on record, or answered to this process's
   * launch) was not seen terminating and the visibility window after its launch has not passed. A launch whose
   * reply never came counts as nothing here: create() replays it idempotently.
   */
  mayNotShowYet(machine: Machine, recorded: RecordedLaunch): boolean {
    const uid = machine.metadata.uid ?? '';
    const id = recorded.instanceId || this.o.ledger?.instanceIdOf(uid, undefined);
    if (!id) return false;
    return this.mayStillBeHidden(machine, { ...recorded, instanceId: id }) !== undefined;
  }

  /** The requeue while an instance may not show yet: short at first, growing (see TerminationFollower). */
  waitForSight(machine: Machine): InstanceNotVisibleYetError {
    const uid = machine.metadata.uid ?? '';
    return new InstanceNotVisibleYetError(
      machine.metadata.name ?? '',
      this.waits.next(uid),
      this.o.clock.now() + this.windowMs,
    );
  }

  /** The Machine is gone (its finalizer released): forget it. */
  forget(uid: string): void {
    this.terminating.delete(uid);
    this.clearWait(uid);
    this.o.ledger?.forget(uid);
  }

  /** Whether the Machine's instance was seen terminating: a read that misses it then means it is gone. */
  terminationSeen(machine: Machine): boolean {
    const state = machine.metadata.annotations?.[MachineInstanceStateAnnotation];
    return this.terminating.has(machine.metadata.uid ?? '') || (state !== undefined && this.o.isTerminating(state));
  }

  /** When the window of an instance that may still be hidden ends, or undefined when nothing may be hidden. */
  private mayStillBeHidden(machine: Machine, recorded: RecordedLaunch): number | undefined {
    const uid = machine.metadata.uid ?? '';
    // The ledger knows how long its own launches may stay unseen (an unanswered launch most likely made nothing).
    if (this.o.ledger?.unconfirmed(uid)) return (this.o.ledger.launchedAt(uid) ?? this.o.clock.now()) + this.windowMs;
    if (this.terminationSeen(machine)) return undefined;
    if (!recorded.instanceId && !machine.spec?.providerID) return undefined;
    const created = Date.parse(machine.metadata.creationTimestamp ?? '');
    const known = [recorded.recordedAt, Number.isNaN(created) ? undefined : created].filter(
      (t): t is number => t !== undefined && Number.isFinite(t),
    );
    let launchedAt: number;
    if (known.length > 0) launchedAt = Math.max(...known);
    else {
      // Nothing says when: the window runs from the first time this process found nothing.
      launchedAt = this.firstAsked.get(uid) ?? this.o.clock.now();
      this.firstAsked.set(uid, launchedAt);
    }
    const endsAt = launchedAt + this.windowMs;
    return this.o.clock.now() < endsAt ? endsAt : undefined;
  }

  private clearWait(uid: string): void {
    this.waits.done(uid);
    this.firstAsked.delete(uid);
  }
}
