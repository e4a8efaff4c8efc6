// A token bucket with reservations, after golang.org/x/time/rate: the bucket starts full, refills at
// `qps` tokens a second up to `burst`, and a reservation may drive it negative, the deficit being how
// long the caller must wait. Shared by the work queue's overall limiter and the client's QPS limit.
// Callers that `wait` queue instead, first come first served, and are let go as tokens refill at the
// rate of the moment: a rate lowered while they wait holds them back too (the cloud limiter lowers it
// when the cloud starts refusing). One bucket is used either way, not both.
import type { Clock, TimerHandle } from './clock.js';
import { abortError } from './real-clock.js';

interface Waiter {
  go: () => void;
  signal?: AbortSignal;
  onAbort: () => void;
}

export class TokenBucket {
  private tokens: number;
  private last: number;
  private rate: number;
  private readonly waiters: Waiter[] = [];
  private timer: TimerHandle | undefined;

  constructor(
    qps: number,
    readonly burst: number,
    private readonly clock: Clock,
  ) {
    if (!(qps > 0)) throw new RangeError(`TokenBucket: qps must be > 0, got ${qps}`);
    if (!(burst >= 1) || !Number.isInteger(burst))
      throw new RangeError(`TokenBucket: burst must be an integer >= 1, got ${burst}`);
    this.rate = qps;
    this.tokens = burst;
    this.last = clock.now();
  }

  /** Tokens a second. */
  get qps(): number {
    return this.rate;
  }

  /**
   * Changes the refill rate from now on: what has refilled so far is kept, and callers waiting in line (and
   * later reservations) wait at the new rate.
   */
  setQps(qps: number): void {
    if (!(qps > 0)) throw new RangeError(`TokenBucket: qps must be > 0, got ${qps}`);
    this.advance(this.clock.now());
    this.rate = qps;
    if (this.waiters.length > 0) this.letGo();
  }

  /** Takes one token now and returns how many ms the caller must wait before using it (0 = at once). */
  reserve(): number {
    const now = this.clock.now();
    this.advance(now);
    this.tokens -= 1;
    return this.tokens >= 0 ? 0 : (-this.tokens / this.qps) * 1000;
  }

  /**
   * Drops the tokens saved up: a cloud that has just refused for its rate has none left, and calls let
   * through on ours would only meet the same refusal. Refilling starts again from empty.
   */
  empty(): void {
    this.advance(this.clock.now());
    this.tokens = Math.min(this.tokens, 0);
    if (this.waiters.length > 0) this.letGo();
  }

  /** Waits in line for a token and takes it; an abort leaves the line and rejects with the signal's reason. */
  wait(signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) return Promise.reject(abortError(signal));
    this.advance(this.clock.now());
    if (this.waiters.length === 0 && this.tokens >= 1) {
      this.tokens -= 1;
      return Promise.resolve();
    }
    return new Promise<void>((resolve, reject) => {
      const waiter: Waiter = {
        go: resolve,
        signal,
        onAbort: () => {
          const at = this.waiters.indexOf(waiter);
          if (at >= 0) this.waiters.splice(at, 1);
          if (signal) reject(abortError(signal));
          this.letGo();
        },
      };
      signal?.addEventListener('abort', waiter.onAbort, { once: true });
      this.waiters.push(waiter);
      this.letGo();
    });
  }

  /** Lets the waiters at the head of the line go while there are tokens, and wakes up for the next one. */
  private letGo(): void {
    this.timer?.cancel();
    this.timer = undefined;
    this.advance(this.clock.now());
    for (let w = this.waiters[0]; w && this.tokens >= 1; w = this.waiters[0]) {
      this.waiters.shift();
      this.tokens -= 1;
      w.signal?.removeEventListener('abort', w.onAbort);
      w.go();
    }
    // Whole milliseconds, at least one: a wake-up a rounding error early would find no token and set another.
    if (this.waiters.length > 0)
      this.timer = this.clock.setTimeout(
        () => this.letGo(),
        Math.max(1, Math.ceil(((1 - this.tokens) / this.rate) * 1000)),
      );
  }

  /** How many ms until `n` tokens (default one) are free for the next caller, without taking any (0 = now). */
  msUntilAvailable(n = 1): number {
    const tokens = this.available();
    return tokens >= n ? 0 : ((n - tokens) / this.qps) * 1000;
  }

  /** Tokens available now (negative while reservations are outstanding or callers wait in line). */
  available(): number {
    this.advance(this.clock.now());
    return this.tokens - this.waiters.length;
  }

  private advance(now: number): void {
    const last = Math.min(this.last, now);
    const maxElapsedMs = ((this.burst - this.tokens) / this.qps) * 1000;
    const elapsedMs = Math.min(now - last, maxElapsedMs);
    this.tokens = Math.min(this.burst, this.tokens + (elapsedMs / 1000) * this.qps);
    this.last = Math.max(this.last, now);
  }
}
