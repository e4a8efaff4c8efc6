// The base of an emulator's world state: the lifecycle timers (one TransitionScheduler whose timers all call
// advance()), the change listeners, and the persistence hook. Subclasses own the world's rules.
import type { Clock } from '../../../lib/base/clock.js';
import { ChangeListeners } from './change-listeners.js';
import { IdSerial, serialHex } from './issued-id-serial.js';
import type { StateSnapshotFile } from './state-snapshot.js';
import { drawLatency, type EmulatorKnobs, type LatencySpec } from './emulator-knobs.js';
import { TransitionScheduler } from './transition-scheduler.js';

export abstract class EmulatedWorldState<World> {
  protected readonly timers: TransitionScheduler;
  private readonly listeners = new ChangeListeners();
  /** Set by the emulator when the world persists: schedules a save. */
  onPersist: () => void = () => undefined;
  /**
   * Set by the emulator when the world persists: resource ids then come from this serial, so none repeats
   * within the data directory even when the restored world is older than what clients remember. Without it,
   * ids come from the seeded RNG, so an in-memory run can be replayed exactly.
   */
  idSerial: IdSerial | undefined;

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

  /** `digits` (at most 16) lowercase hex digits for a resource id. */
  idHex(digits: number): string {
    return this.idSerial ? serialHex(this.idSerial.take(), digits) : this.knobs.random.hex(digits);
  }

  /** A 19-digit decimal id (the shape of GCE's uint64 ids). */
  idDecimal19(): string {
    // 2^60 < 9 * 10^18, so 10^18 + a 60-bit number always has 19 digits.
    if (this.idSerial) return (10n ** 18n + BigInt(`0x${serialHex(this.idSerial.take(), 15)}`)).toString();
    const r = this.knobs.random;
    return `${r.int(1, 9)}${Array.from({ length: 18 }, () => r.int(0, 9)).join('')}`;
  }

  /** A version-4-shaped UUID whose last 12 hex digits carry the serial when the world persists. */
  idUuid(): string {
    const uuid = this.knobs.random.uuid();
    return this.idSerial ? `${uuid.slice(0, 24)}${serialHex(this.idSerial.take(), 12)}` : uuid;
  }

  /** A lifecycle delay: fixed, or drawn from the seeded RNG. */
  protected delay(spec: LatencySpec): number {
    return drawLatency(spec, this.knobs.random);
  }
}

/**
 * Makes `state` persist into `file`: every change schedules a save of the world, and resource ids come from a
 * serial kept in the same directory, so no id repeats there whatever world a later start restores.
 */
export function persistWorld<World>(state: EmulatedWorldState<World>, file: StateSnapshotFile<World>): void {
  file.snapshot = () => state.world;
  state.onPersist = () => file.scheduleSave();
  state.idSerial = IdSerial.inDirectory(file.dataDir);
}
