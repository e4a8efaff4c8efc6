// The base of an emulator's world state: the lifecycle timers (one TransitionScheduler whose timers all call
// advance()), the change listeners, and the persistence hook. Subclasses own the world's rules.
import type { Clock } from '../../runtime/clock.js';
import { ChangeListeners } from './change-listeners.js';
import { drawLatency, type EmulatorKnobs, type LatencySpec } from './emulator-knobs.js';
import { TransitionScheduler } from './transition-scheduler.js';

export abstract class EmulatedWorldState<World> {
  protected readonly timers: TransitionScheduler;
  private readonly listeners = new ChangeListeners();
  /** Set by the emulator when the world persists: schedules a save. */
  onPersist: () => void = () => undefined;

  constructor(
    readonly world: World,
    readonly knobs: EmulatorKnobs,
  ) {
    this.timers = new TransitionScheduler(knobs.clock, () => this.advance());
  }

  get clock(): Clock {
    return this.knobs.clock;
  }

  /** Applies every transition that is due by now (the scheduler's timers call this). */
  abstract advance(): void;

  onChange(listener: () => void): () => void {
    return this.listeners.add(listener);
  }

  /** Call after any mutation: schedules persistence and notifies listeners. */
  changed(): void {
    this.onPersist();
    this.listeners.notify();
  }

  /** A change made outside the API (console, host, the OS): applies what is due first, then announces it. */
  outOfBand(change: () => void): void {
    this.advance();
    change();
    this.changed();
  }

  /** Cancels every timer; the state stays readable. */
  close(): void {
    this.timers.close();
  }

  /** A lifecycle delay: fixed, or drawn from the seeded RNG. */
  protected delay(spec: LatencySpec): number {
    return drawLatency(spec, this.knobs.random);
  }
}
