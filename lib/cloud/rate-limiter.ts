// Client-side rate limiting for cloud calls: one token bucket per (scope, action class), shared by every
// reconcile worker, so a thousand Machines become a steady trickle of calls instead of a burst the cloud
// answers with its throttling error. The scope is what the cloud meters by (an EC2 region, a GCP project).
// The configured rates are caps: a call sent through `send` tells its class how the cloud answered, and the
// class's rate follows what the cloud admits once it starts refusing (adaptive-rate.ts), on every cloud.
import type { Clock } from '../base/clock.js';
import { sleepOn } from '../base/real-clock.js';
import type { WriteFence } from '../client/write-fence.js';
import { TokenBucket } from '../base/token-bucket.js';
import { AdaptiveRate } from './adaptive-rate.js';
import { currentCloudCallContext, type CloudCallContext } from './call-context.js';
import { CloudRateLimitedError, DeferredTurns } from './deferred-turns.js';

/** Reads (describe/get/list) and writes (create/delete/modify) are metered apart by every cloud we know. */
export type ActionClass = 'describe' | 'mutate';

export interface CloudRateLimits {
  describe: { qps: number; burst: number };
  mutate: { qps: number; burst: number };
}

export interface SendOptions {
  signal?: AbortSignal;
  /** Whether an error is the cloud's throttling reply (refused for its rate); any other answer counts as admitted. */
  isThrottling: (err: unknown) => boolean;
  /** For a throttling reply: the wait the cloud asked for (a Retry-After), which the whole class waits out. */
  pauseMsOf?: (err: unknown) => number | undefined;
}

interface ClassMeter {
  bucket: TokenBucket;
  rate: AdaptiveRate;
  turns: DeferredTurns;
  /** Until when the class holds its calls back, after a throttling reply that asked for a wait. */
  pausedUntil: number;
}

/** The time between two tokens of a class at its rate of the moment. */
const intervalOf = (meter: ClassMeter): number => 1000 / meter.bucket.qps;

export class RegionalRateLimiter {
  private readonly meters = new Map<string, ClassMeter>();
  /**
   * The reconciles (their call contexts) with an attempt the cloud refused for its rate: their next call, the
   * SDK's retry of it, keeps its place at the front of the line (DeferredTurns.admit's `again`). Not any other
   * call: a write the same reconcile goes on to make (tags after the launch) takes its turn as others do.
   */
  private readonly refused = new WeakSet<CloudCallContext>();

  constructor(
    private readonly limits: CloudRateLimits,
    private readonly clock: Clock,
    /**
     * The leader's fence (the one the Kubernetes writes pass): a mutating call leaves only while it is open.
     * A replica paused while its launch waited here (SIGSTOP, a frozen VM) resumes past its lease, after
     * another replica may have found nothing launched and let the Machine go: its launch must not follow.
     */
    private readonly fence?: WriteFence,
  ) {}

  /**
   * Waits for a token of `cls` in `scope`; rejects with the signal's reason when aborted, a mutating call
   * with the fence's error when this process may no longer change the world, and a mutating call made in a
   * reconcile that would wait long with CloudRateLimitedError (its turn: see deferIfLong).
   */
  async acquire(scope: string, cls: ActionClass, signal?: AbortSignal): Promise<void> {
    const meter = this.meter(scope, cls);
    meter.bucket.setQps(meter.rate.current());
    this.deferIfLong(scope, cls, meter);
    // Only a pause is awaited before joining the line: callers join it in the order they called.
    if (this.paused(meter)) await this.pausedFor(meter, signal);
    await meter.bucket.wait(signal);
    // A pause that began while this call waited for its token holds it too.
    if (this.paused(meter)) await this.pausedFor(meter, signal);
    if (cls === 'mutate') this.fence?.check('cloud', `${scope} (a mutating call)`);
  }

  /**
   * Sends one call (one attempt) once `acquire` lets it go, and tells the class how the cloud answered: a
   * throttling reply lowers the class's rate to what the cloud admits (and pauses it when a wait was asked
   * for); any other answer counts as admitted.
   */
  async send<T>(scope: string, cls: ActionClass, call: () => Promise<T>, o: SendOptions): Promise<T> {
    await this.acquire(scope, cls, o.signal);
    const meter = this.meter(scope, cls);
    let refusal: unknown;
    try {
      return await call();
    } catch (err) {
      if (o.isThrottling(err)) refusal = err;
      throw err;
    } finally {
      if (refusal === undefined) meter.bucket.setQps(meter.rate.admitted());
      else {
        this.throttled(meter, o.pauseMsOf?.(refusal));
        const context = currentCloudCallContext();
        if (context) this.refused.add(context);
      }
    }
  }

  /** The rate a class may go at now (its cap until the cloud has refused it); for tests and metrics. */
  rate(scope: string, cls: ActionClass): number {
    return this.meters.get(`${scope}/${cls}`)?.rate.current() ?? this.limits[cls].qps;
  }

  private throttled(meter: ClassMeter, pauseMs: number | undefined): void {
    meter.bucket.setQps(meter.rate.throttled());
    meter.bucket.empty();
    if (pauseMs !== undefined && pauseMs > 0)
      meter.pausedUntil = Math.max(meter.pausedUntil, this.clock.now() + pauseMs);
  }

  /**
   * A mutating call made in a reconcile (see withCloudCallContext) that would stand long in line is not
   * queued: it throws CloudRateLimitedError with the time its turn comes, and the reconcile gives its worker
   * back. Reads are short waits at any scale and go on waiting.
   */
  private deferIfLong(scope: string, cls: ActionClass, meter: ClassMeter): void {
    const context = cls === 'mutate' ? currentCloudCallContext() : undefined;
    if (!context) return;
    const again = this.refused.has(context);
    const comeBackInMs = meter.turns.admit(
      context.key,
      this.lineWaitMs(meter),
      intervalOf(meter),
      context.deferBeyondMs,
      again,
    );
    if (comeBackInMs !== undefined) throw new CloudRateLimitedError(scope, cls, comeBackInMs);
    this.refused.delete(context);
  }

  /**
   * The turn a call of `cls` in `scope` by `key` (a Machine's uid) would get if it were made now, asked before
   * the reconcile that will make it: undefined when it would go at once (a token is then held for it until its
   * call comes), otherwise how long until its turn, its place in line kept as for a call sent away
   * (DeferredTurns.promise). The machine controller puts a new Machine's first reconcile off until then:
   * a pass sooner would only learn that its launch must wait. Nothing is sent or taken here.
   */
  turnIn(scope: string, cls: ActionClass, key: string, deferBeyondMs: number): number | undefined {
    const meter = this.meter(scope, cls);
    meter.bucket.setQps(meter.rate.current());
    return meter.turns.promise(key, (n) => this.lineWaitMs(meter, n), intervalOf(meter), deferBeyondMs);
  }

  /** How long until `tokens` tokens of the class are free for a caller joining its line: its pause, then refills. */
  private lineWaitMs(meter: ClassMeter, tokens = 1): number {
    return Math.max(0, meter.pausedUntil - this.clock.now()) + meter.bucket.msUntilAvailable(tokens);
  }

  private paused(meter: ClassMeter): boolean {
    return meter.pausedUntil > this.clock.now();
  }

  private async pausedFor(meter: ClassMeter, signal?: AbortSignal): Promise<void> {
    for (let left = meter.pausedUntil - this.clock.now(); left > 0; left = meter.pausedUntil - this.clock.now())
      await sleepOn(this.clock, left, signal);
  }

  /**
   * Resolves once a token of `cls` in `scope` is free, without taking it: a batcher holds its batch open
   * until then, so look-ups queued behind the limit ride one call instead of one call each.
   */
  async whenAvailable(scope: string, cls: ActionClass): Promise<void> {
    const meter = this.meter(scope, cls);
    await this.pausedFor(meter);
    const { bucket } = meter;
    for (let wait = bucket.msUntilAvailable(); wait > 0; wait = bucket.msUntilAvailable()) await this.clock.sleep(wait);
  }

  private meter(scope: string, cls: ActionClass): ClassMeter {
    const key = `${scope}/${cls}`;
    let meter = this.meters.get(key);
    if (!meter) {
      const { qps, burst } = this.limits[cls];
      meter = {
        bucket: new TokenBucket(qps, burst, this.clock),
        rate: new AdaptiveRate({ capQps: qps }, this.clock),
        turns: new DeferredTurns(this.clock),
        pausedUntil: 0,
      };
      this.meters.set(key, meter);
    }
    return meter;
  }

  /** Tokens left in a bucket (negative while callers wait); for tests and metrics. */
  available(scope: string, cls: ActionClass): number {
    return this.meters.get(`${scope}/${cls}`)?.bucket.available() ?? this.limits[cls].burst;
  }
}
