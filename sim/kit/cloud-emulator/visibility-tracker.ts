// Eventual consistency: a resource created at time T is invisible to reads of a given "view" (for EC2:
// lookups by id vs. filtered searches) until T + delay(view).
import type { Clock } from '../../../lib/base/clock.js';

export const DEFAULT_VIEW = 'default';

export class VisibilityTracker {
  private readonly createdAt = new Map<string, number>();
  private readonly delays = new Map<string, number>();

  constructor(private readonly clock: Clock) {}

  /** Sets the invisibility window for one view (or the default for views without their own). */
  setDelay(ms: number, view: string = DEFAULT_VIEW): void {
    if (!(ms >= 0)) throw new RangeError(`visibility delay must be >= 0 ms, got ${ms}`);
    this.delays.set(view, ms);
  }

  delay(view: string = DEFAULT_VIEW): number {
    return this.delays.get(view) ?? this.delays.get(DEFAULT_VIEW) ?? 0;
  }

  recordCreation(id: string, at: number = this.clock.now()): void {
    this.createdAt.set(id, at);
  }

  forget(id: string): void {
    this.createdAt.delete(id);
  }

  /** Resources never recorded (seed data, restored state) are always visible. */
  isVisible(id: string, view: string = DEFAULT_VIEW): boolean {
    const at = this.createdAt.get(id);
    if (at === undefined) return true;
    return this.clock.now() >= at + this.delay(view);
  }

  reset(): void {
    this.delays.clear();
  }
}
