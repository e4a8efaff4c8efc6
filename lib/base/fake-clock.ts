// A clock tests move by hand: step(ms) fires every timer that falls due, in due-time order, and
// sleep() resolves through those same timers, so no test waits on wall time.
import type { Clock, TimerHandle } from './clock.js';
import { sleepOn } from './real-clock.js';

interface FakeTimer {
  id: number;
  due: number;
  fn: () => void;
}

export class FakeClock implements Clock {
  private current: number;
  private timers: FakeTimer[] = [];
  private nextId = 0;

  constructor(startMs = Date.UTC(2026, 0, 1)) {
    this.current = startMs;
  }

  now(): number {
    return this.current;
  }

  setTimeout(fn: () => void, ms: number): TimerHandle {
    const timer: FakeTimer = { id: this.nextId++, due: this.current + Math.max(0, ms), fn };
    this.timers.push(timer);
    return {
      cancel: () => {
        this.timers = this.timers.filter((t) => t !== timer);
      },
    };
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return sleepOn(this, ms, signal);
  }

  /** Advances time by ms, firing due timers in order (timers they schedule fire too if due in the window). */
  step(ms: number): void {
    if (ms < 0) throw new RangeError(`FakeClock.step: ms must be >= 0, got ${ms}`);
    this.advanceTo(this.current + ms);
  }

  /**
   * Time as a process stopped for ms (SIGSTOP, a long pause) sees it: the clock moves on while nothing
   * runs, then every timer that fell due fires, late, with now() already at the end of the pause.
   */
  pause(ms: number): void {
    if (ms < 0) throw new RangeError(`FakeClock.pause: ms must be >= 0, got ${ms}`);
    this.current += ms;
    this.advanceTo(this.current);
  }

  /** Moves to an absolute time (never backwards), firing due timers. */
  setTime(ms: number): void {
    if (ms < this.current) throw new RangeError(`FakeClock.setTime: cannot move back from ${this.current} to ${ms}`);
    this.advanceTo(ms);
  }

  /** Number of timers not yet fired or cancelled. */
  pendingTimers(): number {
    return this.timers.length;
  }

  /** Due time of the earliest pending timer, if any. */
  nextTimerAt(): number | undefined {
    return this.earliest()?.due;
  }

  private earliest(): FakeTimer | undefined {
    let best: FakeTimer | undefined;
    for (const t of this.timers) {
      if (!best || t.due < best.due || (t.due === best.due && t.id < best.id)) best = t;
    }
    return best;
  }

  private advanceTo(target: number): void {
    for (;;) {
      const next = this.earliest();
      if (!next || next.due > target) break;
      this.timers = this.timers.filter((t) => t !== next);
      this.current = Math.max(this.current, next.due);
      next.fn();
    }
    this.current = target;
  }
}
