// The turns promised to calls deferred for the cloud's rate. A reconcile whose mutating call would wait long
// for its token gives its worker back and comes again at the turn it was given; meanwhile the workers serve
// other Machines (a launched instance's follow-up, a drain) instead of all standing in the limiter's line.
// Each caller sent away keeps its place: its turn comes one token interval after those sent away before it,
// so a thousand deferred launches come back in order, at the rate the cloud takes them, rather than all at once.
// A turn can also be promised before the reconcile runs (promise): a new Machine's first reconcile is then put
// off until its launch's turn, instead of a pass that only learns it must come again.
import type { Clock } from '../base/clock.js';
import { dropOlderThan } from '../base/oldest-first.js';
import { RequeueAfterError, findError, formatDuration } from '../apis/errors.js';

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

/** A caller told to come back that has not been back for this long past its time is forgotten (a deleted Machine). */
const FORGET_AFTER_MS = 30_000;

/**
 * A turn promised for now whose call has not come within this long is given up (its Machine was deleted, or
 * its reconcile found nothing to launch): it no longer holds a token back from those promised after it.
 */
const PROMISE_HELD_MS = 10_000;

/**
 * How many callers, in token intervals, may stand in the limiter's line at once. Each holds a reconcile
 * worker while it stands there: at a cloud's 5 writes a second, a line two seconds long held all ten of the
 * machine controller's workers, and launched Machines waited minutes for their follow-up pass. Both sides
 * bank unused tokens, so a short line loses nothing when a caller comes back a little late.
 */
const LINE_INTERVALS = 3;

/**
 * Who is being placed in line: a call (behind those sent away before it and not yet due), a call whose place is
 * before all of them (promised its token, or its reconcile let in already), or a promise (whose wait already counts them).
 */
type Placing = 'call' | 'front-call' | 'promise';

export class DeferredTurns {
  /** Callers sent away, in the order they first asked, with when each was told to come back. */
  private readonly away = new Map<string, number>();
  /**
   * Callers promised a token at once (promise) whose call has not come yet, with when: the bucket does not
   * know of them, so each holds one of its tokens back from the callers promised after it.
   */
  private readonly promised = new Map<string, number>();

  constructor(private readonly clock: Clock) {}

  /**
   * Whether `key` may join the line now: yes when a token is free, or when the callers already in line and
   * those sent away before it would be served within the line's bound (LINE_INTERVALS token intervals, and
   * never beyond `deferBeyondMs`); otherwise the time to come back in. Its place among those sent away is
   * kept, and its wait is worked out again at the rate of the moment each time it asks: a rate that fell or
   * rose since it was sent away moves its turn with it.
   */
  admit(key: string, lineWaitMs: number, intervalMs: number, deferBeyondMs: number, again = false): number | undefined {
    // A call promised its token has come: the bucket counts that token from here on. It, like a call `again`
    // (one more call of a reconcile already let into the line, most often the SDK's retry of an attempt the
    // cloud refused), had its place before anyone sent away since: none is ahead of it. A retry sent behind a
    // line of 40 at a lowered rate came back 16 s later, the last Machine of its scale-up by far.
    const front = this.promised.delete(key) || again;
    return this.place(key, lineWaitMs, intervalMs, deferBeyondMs, this.clock.now(), front ? 'front-call' : 'call');
  }

  /**
   * The turn `key` would get if its call were made now, given before the call is made (at the event that will
   * lead to it): undefined when it would join the line at once, otherwise the time until it would be admitted,
   * its place among those sent away kept as admit() keeps it. A caller told "at once" holds a token until its
   * call comes (PROMISE_HELD_MS at most), so callers promised after it are not all promised the same token.
   * `lineWaitMsFor(n)` is how long until the bucket holds n tokens. Nothing is taken from the bucket: the
   * call, when it comes, goes through admit() and the bucket like any other.
   */
  promise(
    key: string,
    lineWaitMsFor: (tokens: number) => number,
    intervalMs: number,
    deferBeyondMs: number,
  ): number | undefined {
    const now = this.clock.now();
    this.promised.delete(key);
    dropOlderThan(this.promised, now - PROMISE_HELD_MS);
    // Every caller promised a token or sent away before it will take a token from the bucket before it does
    // (those sent away whose time has come too: their calls have not taken theirs yet). A token free now is
    // theirs, not the newcomer's, which only asks for the turn of a call it makes later.
    const before = this.promised.size + this.ahead(key, now, true);
    const comeBackInMs = this.place(key, lineWaitMsFor(1 + before), intervalMs, deferBeyondMs, now, 'promise');
    if (comeBackInMs === undefined) this.promised.set(key, now);
    return comeBackInMs;
  }

  private place(
    key: string,
    lineWaitMs: number,
    intervalMs: number,
    deferBeyondMs: number,
    now: number,
    placing: Placing,
  ): number | undefined {
    const joinWithinMs = Math.min(deferBeyondMs, LINE_INTERVALS * intervalMs);
    // A token is free and nobody waits for it: it goes to whoever asks, whoever was sent away before. Those
    // come back through a work queue that can be seconds long (a thousand new Machines ahead of them), and a
    // token left unused is a call the cloud would have taken.
    const aheadOf = () => (placing === 'call' ? this.ahead(key, now, false) : 0);
    const waitMs = lineWaitMs <= 0 ? 0 : lineWaitMs + aheadOf() * intervalMs;
    if (waitMs <= joinWithinMs) {
      this.away.delete(key);
      return undefined;
    }
    // Back when the line ahead of it has shortened to half its bound.
    const comeBackInMs = Math.max(1, Math.ceil(waitMs - joinWithinMs / 2));
    if (placing === 'front-call' && !this.away.has(key)) this.sendAwayFirst(key, now + comeBackInMs);
    else this.away.set(key, now + comeBackInMs);
    return comeBackInMs;
  }

  /**
   * A caller whose place was before everyone sent away (promised, or its reconcile let in already) that must wait all
   * the same keeps that place: it comes back ahead of them, not behind.
   */
  private sendAwayFirst(key: string, backAt: number): void {
    const rest = [...this.away];
    this.away.clear();
    this.away.set(key, backAt);
    for (const [k, at] of rest) this.away.set(k, at);
  }

  /** Callers sent away and not yet back; for tests and metrics. */
  get pending(): number {
    return this.away.size;
  }

  /** Callers promised a token at once whose call has not come yet; for tests and metrics. */
  get promisedNow(): number {
    return this.promised.size;
  }

  /**
   * How many callers sent away are ahead of `key` (all of them for a newcomer); forgets the long overdue. Those
   * whose time has come count only with `countDue` (a promise: their calls will take their tokens first). For a
   * call being placed they do not: one whose time has come is on its way back (in the work queue, in its
   * reconcile's reads) and joins the line as it arrives; counted as ahead, it would send each caller behind it
   * away once more.
   */
  private ahead(key: string, now: number, countDue: boolean): number {
    let ahead = 0;
    for (const [k, backAt] of this.away) {
      if (k === key) return ahead;
      if (backAt < now - FORGET_AFTER_MS) this.away.delete(k);
      else if (backAt > now || countDue) ahead++;
    }
    return ahead;
  }
}
