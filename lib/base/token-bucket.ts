// A token bucket with reservations, after golang.org/x/time/rate: the bucket starts full, refills at
// `qps` tokens a second up to `burst`, and a reservation may drive it negative, the deficit being how
// long the caller must wait. Shared by the work queue's overall limiter and the client's QPS limit.
import type { Clock } from './clock.js';

export class TokenBucket {
  private tokens: number;
  private last: number;

  constructor(
    readonly qps: number,
    readonly burst: number,
    private readonly clock: Clock,
  ) {
    if (!(qps > 0)) throw new RangeError(`TokenBucket: qps must be > 0, got ${qps}`);
    if (!(burst >= 1) || !Number.isInteger(burst))
      throw new RangeError(`TokenBucket: burst must be an integer >= 1, got ${burst}`);
    this.tokens = burst;
    this.last = clock.now();
  }

  /** Takes one token now and returns how many ms the caller must wait before using it (0 = at once). */
  reserve(): number {
    const now = this.clock.now();
    this.advance(now);
    this.tokens -= 1;
    return this.tokens >= 0 ? 0 : (-this.tokens / this.qps) * 1000;
  }

  /** Reserves a token and waits for it; an abort gives the token back and rejects with the signal's reason. */
  async wait(signal?: AbortSignal): Promise<void> {
    const delay = this.reserve();
    if (delay <= 0) return;
    try {
      await this.clock.sleep(delay, signal);
    } catch (err) {
      this.tokens = Math.min(this.burst, this.tokens + 1);
      throw err;
    }
  }

  /** How many ms until a token is free for the next caller, without taking it (0 = one is free now). */
  msUntilAvailable(): number {
    const tokens = this.available();
    return tokens >= 1 ? 0 : ((1 - tokens) / this.qps) * 1000;
  }

  /** Tokens available now (negative while reservations are outstanding). */
  available(): number {
    this.advance(this.clock.now());
    return this.tokens;
  }

  private advance(now: number): void {
    const last = Math.min(this.last, now);
    const maxElapsedMs = ((this.burst - this.tokens) / this.qps) * 1000;
    const elapsedMs = Math.min(now - last, maxElapsedMs);
    this.tokens = Math.min(this.burst, this.tokens + (elapsedMs / 1000) * this.qps);
    this.last = Math.max(this.last, now);
  }
}
