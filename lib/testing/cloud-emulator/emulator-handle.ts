// What every cloud emulator shares at its edge: the options it starts from and the control surface it hands
// its tests, beside its own cloud-specific ones.
import type { Clock } from '../../runtime/clock.js';
import type { Logger } from '../../runtime/logger.js';
import type { InstanceView } from '../instance-view.js';
import type { EmulatorKnobs, EmulatorKnobsConfig } from './emulator-knobs.js';

export interface CloudEmulatorOptions<World, Timings> {
  /** Replaces the default world entirely (deep-copied). */
  world?: World;
  clock?: Clock;
  /** Seeds resource ids, addresses and probabilistic faults. Default 1. */
  seed?: number;
  /** Lifecycle delays; the rest keep their defaults. */
  timings?: Partial<Timings>;
  /** Fault knobs applied at start (they can also be changed later through `knobs`). */
  knobs?: EmulatorKnobsConfig;
  /** When set, the world is restored from and saved to this directory. */
  dataDir?: string;
  /** Default 0 (any free port). The host is always 127.0.0.1. */
  port?: number;
  /** Bodies larger than this are refused with 413. Default 1 MiB. */
  maxBodyBytes?: number;
  logger?: Logger;
}

/** The default of CloudEmulatorOptions.maxBodyBytes. */
export const DEFAULT_EMULATOR_MAX_BODY_BYTES = 1024 * 1024;

export interface CloudEmulatorHandle<World, Instance, Timings> {
  readonly knobs: EmulatorKnobs;
  /** The live world. Mutate only between calls. */
  readonly world: World;
  /** Every instance the emulator holds, as copies. */
  instances(): Instance[];
  instanceView(): InstanceView;
  /** Changes lifecycle delays for transitions scheduled from now on. */
  setTimings(timings: Partial<Timings>): void;
  /** Applies every lifecycle transition already due (useful right after stepping a FakeClock). */
  advance(): void;
  /** Stops the server and the lifecycle timers, and saves the world when it persists. Idempotent. */
  stop(): Promise<void>;
}

/** Changes made as if someone used the cloud's console: no API call is counted. `Where` names the instance. */
export interface OutOfBandLifecycle<Where extends unknown[]> {
  /** Deletes (terminates) the instance. */
  terminateOutOfBand(...where: Where): void;
  stopOutOfBand(...where: Where): void;
  startOutOfBand(...where: Where): void;
}
