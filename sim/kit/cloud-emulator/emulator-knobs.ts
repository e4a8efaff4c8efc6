// The fault injector shared by every cloud emulator. It is HTTP-agnostic: an emulator's request handler calls
// `await knobs.before(action)` before doing anything (latency, throttling, injected failures surface as a thrown
// EmulatorFault it renders in the cloud's own error format), applies the call, then asks
// `knobs.afterEffect(action)` whether to lose the reply although the effect has happened.
import type { Clock } from '../../../lib/base/clock.js';
import { RealClock } from '../../../lib/base/real-clock.js';
import { TokenBucket } from '../../../lib/base/token-bucket.js';
import { type ActionMatcher, describeMatcher, matchesAction } from './action-matcher.js';
import { type ActionCounts, CallCounters } from './call-counters.js';
import { EmulatorFault, type FaultSpec } from './emulator-fault.js';
import { SeededRandom } from './seeded-random.js';
import { VisibilityTracker } from './visibility-tracker.js';

/** Fixed milliseconds, or a uniformly random whole number of ms in [minMs, maxMs] drawn from the seeded RNG. */
export type LatencySpec = number | { minMs: number; maxMs: number };

/** The delay a LatencySpec stands for: the fixed value, or a draw from `random` in [minMs, maxMs]. */
export function drawLatency(spec: LatencySpec, random: SeededRandom): number {
  return typeof spec === 'number' ? spec : random.int(spec.minMs, spec.maxMs);
}

/** How a lost reply shows to the client: the TCP connection is destroyed, or a 5xx is sent instead of the result. */
export type LostReplyMode = 'drop-connection' | 'server-error';

export type LostReply = { mode: 'drop-connection' } | { mode: 'server-error'; fault: EmulatorFault };

export interface RateLimitOptions {
  /** Sustained calls per second (> 0). */
  ratePerSecond: number;
  /** Calls allowed at once (integer >= 1). */
  burst: number;
  /** One bucket per matching action (true) or one bucket shared by every matching action (false, default). */
  perAction?: boolean;
}

export interface EmulatorKnobsOptions {
  /** The cloud's throttling error, e.g. EC2 `RequestLimitExceeded` with HTTP 503. */
  throttleFault: (action: string) => FaultSpec;
  /** The cloud's generic internal error, used for injected failures and for lost replies answered with a 5xx. */
  serverFault: (action: string) => FaultSpec;
  /** Groups actions for matchers, e.g. "describe" vs "mutate". Defaults to the action itself. */
  classify?: (action: string) => string;
  clock?: Clock;
  /** Seed of the RNG used for random latency, probabilistic faults and (by emulators) resource ids. */
  seed?: number;
}

/** A declarative form of the knobs, for wiring from flags or a chaos scenario file. */
export interface EmulatorKnobsConfig {
  latency?: { match?: ActionMatcher; latency: LatencySpec }[];
  rateLimits?: ({ match: ActionMatcher } & RateLimitOptions)[];
  failureRates?: { match: ActionMatcher; probability: number; fault?: Partial<FaultSpec> }[];
  lostReplyRates?: { match: ActionMatcher; probability: number; mode?: LostReplyMode }[];
  visibilityDelayMs?: number | Record<string, number>;
}

interface LatencyRule {
  match: ActionMatcher;
  latency: LatencySpec;
}
interface RateRule {
  match: ActionMatcher;
  options: RateLimitOptions;
  shared?: TokenBucket;
  perAction: Map<string, TokenBucket>;
}
interface CountdownRule<T> {
  match: ActionMatcher;
  remaining: number;
  payload: T;
}
interface RateFaultRule<T> {
  match: ActionMatcher;
  probability: number;
  payload: T;
}

function checkCount(n: number, what: string): void {
  if (!Number.isInteger(n) || n < 1) throw new RangeError(`${what}: n must be a positive integer, got ${n}`);
}
function checkProbability(p: number, what: string): void {
  if (!(p >= 0 && p <= 1)) throw new RangeError(`${what}: probability must be in [0, 1], got ${p}`);
}
function checkLatency(l: LatencySpec): void {
  if (typeof l === 'number') {
    if (!(l >= 0)) throw new RangeError(`latency must be >= 0 ms, got ${l}`);
  } else if (!(l.minMs >= 0 && l.maxMs >= l.minMs)) {
    throw new RangeError(`latency range must satisfy 0 <= minMs <= maxMs, got ${l.minMs}..${l.maxMs}`);
  }
}

/** Takes the first still-armed countdown rule matching the call, decrementing it. */
function takeCountdown<T>(rules: CountdownRule<T>[], action: string, cls: string): T | undefined {
  const i = rules.findIndex((r) => matchesAction(r.match, action, cls));
  if (i < 0) return undefined;
  const r = rules[i] as CountdownRule<T>;
  r.remaining -= 1;
  if (r.remaining <= 0) rules.splice(i, 1);
  return r.payload;
}

/** Where recordRefusedBody counts a request too large to read when its action is not known. */
export const REQUEST_TOO_LARGE_ACTION = 'request-too-large';

export class EmulatorKnobs {
  readonly clock: Clock;
  readonly random: SeededRandom;
  readonly counters = new CallCounters();
  readonly visibility: VisibilityTracker;

  private readonly classify: (action: string) => string;
  private latencyRules: LatencyRule[] = [];
  private rateRules: RateRule[] = [];
  private throttleNextRules: CountdownRule<null>[] = [];
  private failNextRules: CountdownRule<Partial<FaultSpec> | undefined>[] = [];
  private failureRateRules: RateFaultRule<Partial<FaultSpec> | undefined>[] = [];
  private loseNextRules: CountdownRule<LostReplyMode>[] = [];
  private lostReplyRateRules: RateFaultRule<LostReplyMode>[] = [];

  constructor(private readonly options: EmulatorKnobsOptions) {
    this.clock = options.clock ?? new RealClock();
    this.random = new SeededRandom(options.seed ?? 1);
    this.classify = options.classify ?? ((a) => a);
    this.visibility = new VisibilityTracker(this.clock);
  }

  actionClass(action: string): string {
    return this.classify(action);
  }

  // ---- configuration ------------------------------------------------------------------------------------

  /** Adds latency to matching calls; the most recently set matching rule wins. */
  setLatency(latency: LatencySpec, match: ActionMatcher = '*'): this {
    checkLatency(latency);
    this.latencyRules.push({ match, latency });
    return this;
  }

  /** Token-bucket limit on matching calls; over the limit they get the cloud's throttling error. */
  setRateLimit(match: ActionMatcher, options: RateLimitOptions): this {
    const rule: RateRule = { match, options, perAction: new Map() };
    // Validate eagerly so a bad rate fails where it is configured, not on the first call.
    const probe = new TokenBucket(options.ratePerSecond, options.burst, this.clock);
    if (!options.perAction) rule.shared = probe;
    this.rateRules.push(rule);
    return this;
  }

  /** The next n matching calls get the throttling error regardless of any rate limit. */
  throttleNext(match: ActionMatcher, n = 1): this {
    checkCount(n, `throttleNext(${describeMatcher(match)})`);
    this.throttleNextRules.push({ match, remaining: n, payload: null });
    return this;
  }

  /** The next n matching calls fail before doing anything (default: the cloud's 5xx; override status/code/message). */
  failNext(match: ActionMatcher, n = 1, fault?: Partial<FaultSpec>): this {
    checkCount(n, `failNext(${describeMatcher(match)})`);
    this.failNextRules.push({ match, remaining: n, payload: fault });
    return this;
  }

  /** Each matching call fails before doing anything with this probability. */
  setFailureRate(match: ActionMatcher, probability: number, fault?: Partial<FaultSpec>): this {
    checkProbability(probability, `setFailureRate(${describeMatcher(match)})`);
    this.failureRateRules.push({ match, probability, payload: fault });
    return this;
  }

  /** The next n matching calls take effect but their reply is lost. */
  loseNextReplies(match: ActionMatcher, n = 1, mode: LostReplyMode = 'drop-connection'): this {
    checkCount(n, `loseNextReplies(${describeMatcher(match)})`);
    this.loseNextRules.push({ match, remaining: n, payload: mode });
    return this;
  }

  /** Each matching call takes effect but its reply is lost with this probability. */
  setLostReplyRate(match: ActionMatcher, probability: number, mode: LostReplyMode = 'drop-connection'): this {
    checkProbability(probability, `setLostReplyRate(${describeMatcher(match)})`);
    this.lostReplyRateRules.push({ match, probability, payload: mode });
    return this;
  }

  /** New resources stay invisible to reads of `view` for ms after creation (see VisibilityTracker). */
  setVisibilityDelay(ms: number, view?: string): this {
    this.visibility.setDelay(ms, view);
    return this;
  }

  configure(config: EmulatorKnobsConfig): this {
    for (const l of config.latency ?? []) this.setLatency(l.latency, l.match ?? '*');
    for (const r of config.rateLimits ?? []) this.setRateLimit(r.match, r);
    for (const f of config.failureRates ?? []) this.setFailureRate(f.match, f.probability, f.fault);
    for (const l of config.lostReplyRates ?? []) this.setLostReplyRate(l.match, l.probability, l.mode);
    const v = config.visibilityDelayMs;
    if (typeof v === 'number') this.setVisibilityDelay(v);
    else if (v) for (const [view, ms] of Object.entries(v)) this.setVisibilityDelay(ms, view);
    return this;
  }

  /** Removes every rule (counters and created-resource timestamps are kept; see resetCounters). */
  reset(): this {
    this.latencyRules = [];
    this.rateRules = [];
    this.throttleNextRules = [];
    this.failNextRules = [];
    this.failureRateRules = [];
    this.loseNextRules = [];
    this.lostReplyRateRules = [];
    this.visibility.reset();
    return this;
  }

  // ---- the request path ---------------------------------------------------------------------------------

  /**
   * Called once per incoming call, before any effect. Waits the configured latency, then throws an
   * EmulatorFault when the call is throttled or an injected failure is due.
   */
  async before(action: string, signal?: AbortSignal): Promise<void> {
    const cls = this.classify(action);
    this.counters.add(action, 'total');
    const latency = this.latencyFor(action, cls);
    if (latency > 0) await this.clock.sleep(latency, signal);

    if (takeCountdown(this.throttleNextRules, action, cls) !== undefined || !this.takeRateTokens(action, cls)) {
      this.counters.add(action, 'throttled');
      throw new EmulatorFault('throttle', action, this.options.throttleFault(action));
    }

    const i = this.failNextRules.findIndex((r) => matchesAction(r.match, action, cls));
    let override: Partial<FaultSpec> | undefined;
    let fail = false;
    if (i >= 0) {
      fail = true;
      override = takeCountdown(this.failNextRules, action, cls);
    } else {
      for (const r of this.failureRateRules) {
        if (matchesAction(r.match, action, cls) && this.random.chance(r.probability)) {
          fail = true;
          override = r.payload;
          break;
        }
      }
    }
    if (fail) {
      this.counters.add(action, 'failed');
      throw new EmulatorFault('injected', action, { ...this.options.serverFault(action), ...override });
    }
  }

  /** Called after the call took effect: says whether (and how) to lose the reply. */
  afterEffect(action: string): LostReply | undefined {
    const cls = this.classify(action);
    let mode = takeCountdown(this.loseNextRules, action, cls);
    if (mode === undefined) {
      for (const r of this.lostReplyRateRules) {
        if (matchesAction(r.match, action, cls) && this.random.chance(r.probability)) {
          mode = r.payload;
          break;
        }
      }
    }
    if (mode === undefined) return undefined;
    this.counters.add(action, 'lostReplies');
    if (mode === 'drop-connection') return { mode };
    return { mode, fault: new EmulatorFault('lost-reply', action, this.options.serverFault(action)) };
  }

  /** Counts an error answer the emulator produced itself (not found, invalid parameter...). */
  recordError(action: string): void {
    this.counters.add(action, 'failed');
  }

  /**
   * Counts a request refused for its size before it was read (a call all the same, and a failed one): under its
   * action when the route names it, else under REQUEST_TOO_LARGE_ACTION (the action is inside the unread body).
   */
  recordRefusedBody(action: string = REQUEST_TOO_LARGE_ACTION): void {
    this.counters.add(action, 'total');
    this.counters.add(action, 'failed');
  }

  // ---- observation --------------------------------------------------------------------------------------

  counts(action: string): ActionCounts {
    return this.counters.get(action);
  }

  allCounts(): Record<string, ActionCounts> {
    return this.counters.snapshot();
  }

  resetCounters(): void {
    this.counters.reset();
  }

  recordCreation(id: string): void {
    this.visibility.recordCreation(id);
  }

  isVisible(id: string, view?: string): boolean {
    return this.visibility.isVisible(id, view);
  }

  // ---- internals ----------------------------------------------------------------------------------------

  private latencyFor(action: string, cls: string): number {
    for (let i = this.latencyRules.length - 1; i >= 0; i--) {
      const r = this.latencyRules[i] as LatencyRule;
      if (!matchesAction(r.match, action, cls)) continue;
      return drawLatency(r.latency, this.random);
    }
    return 0;
  }

  private takeRateTokens(action: string, cls: string): boolean {
    const buckets: TokenBucket[] = [];
    for (const r of this.rateRules) {
      if (!matchesAction(r.match, action, cls)) continue;
      if (r.shared) {
        buckets.push(r.shared);
        continue;
      }
      let b = r.perAction.get(action);
      if (!b) {
        b = new TokenBucket(r.options.ratePerSecond, r.options.burst, this.clock);
        r.perAction.set(action, b);
      }
      buckets.push(b);
    }
    // All-or-nothing so a call rejected by one limit does not drain the others.
    if (buckets.some((b) => b.available() < 1)) return false;
    for (const b of buckets) b.reserve();
    return true;
  }
}
