// The turns promised to calls deferred for the cloud's rate. A reconcile whose mutating call would wait long
// for its token gives its worker back and comes again at the turn it was given; meanwhile the workers serve
// other Machines (a launched instance's follow-up, a drain) instead of all standing in the limiter's line.
// Turns are handed out one token interval apart after the limiter's own line and the turns already given, so
// a thousand deferred launches come back in order, at the rate the cloud takes them, rather than all at once.
import type { Clock } from '../base/clock.js';
import { RequeueAfterError, findError, formatDuration } from '../machine/errors.js';

/** A cloud call not sent: the class's line is long, and the caller is to come again after requeueAfterMs. */
export class CloudRateLimitedError extends RequeueAfterError {
  override readonly name = 'CloudRateLimitedError';
  constructor(
    readonly scope: string,
    readonly actionClass: string,
    requeueAfterMs: number,
  ) {
    super(requeueAfterMs);
    this.message = `waiting for the cloud's request rate (${scope}, ${actionClass} calls): requeue in ${formatDuration(requeueAfterMs)}`;
  }
}

/** Whether `err` (or its cause) is a cloud call deferred for the rate: nothing was sent. */
export const isCloudCallDeferred = (err: unknown): boolean => findError(err, CloudRateLimitedError) !== undefined;

/** Promised turns older than this are dropped: their caller is gone (a deleted Machine) or came without asking. */
const FORGET_AFTER_MS = 60_000;

export class DeferredTurns {
  /** When each deferred caller's turn comes. */
  private readonly turns = new Map<string, number>();
  /** The turn last handed out. */
  private lastTurn = 0;

  constructor(private readonly clock: Clock) {}

  /**
   * Whether `key` may join the line now, given the line's wait: yes when a token is free, while it would wait
   * no longer than `deferBeyondMs`, or once its promised turn is that close; otherwise the time to come back in (its turn,
   * less the wait it may spend in line, so that it is back just before the turn).
   */
  admit(key: string, lineWaitMs: number, intervalMs: number, deferBeyondMs: number): number | undefined {
    const now = this.clock.now();
    // A token is free and nobody waits for it: it goes to whoever asks, turn or no turn. Those given turns
    // come back through a work queue that can be seconds long (a thousand new Machines ahead of them), and a
    // token left unused is a call the cloud would have taken and never will.
    if (lineWaitMs <= 0) {
      this.turns.delete(key);
      return undefined;
    }
    const promised = this.turns.get(key);
    if (promised !== undefined) {
      if (promised - now <= deferBeyondMs) {
        this.turns.delete(key);
        return undefined;
      }
      return this.comeBackIn(promised - now, deferBeyondMs);
    }
    const turn = Math.max(now + lineWaitMs, this.lastTurn) + intervalMs;
    if (turn - now <= deferBeyondMs) return undefined;
    this.lastTurn = turn;
    this.turns.set(key, turn);
    if (this.turns.size % 256 === 0) this.forgetOld(now);
    return this.comeBackIn(turn - now, deferBeyondMs);
  }

  /** Turns promised and not yet taken; for tests and metrics. */
  get pending(): number {
    return this.turns.size;
  }

  private comeBackIn(untilTurnMs: number, deferBeyondMs: number): number {
    return Math.max(1, Math.ceil(untilTurnMs - deferBeyondMs / 2));
  }

  private forgetOld(now: number): void {
    for (const [key, turn] of this.turns) if (turn < now - FORGET_AFTER_MS) this.turns.delete(key);
  }
}
