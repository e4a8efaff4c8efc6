// What every cloud emulator shares at its edge: the options it starts from and the control surface it hands
// its tests, beside its own cloud-specific ones.
import type { Clock } from '../../../lib/base/clock.js';
import type { Logger } from '../../../lib/base/logger.js';
import type { InstanceView } from '../instance-view.js';
import type { AdminRoute } from './admin-server.js';
import { EmulatorKnobs, type EmulatorKnobsConfig, type EmulatorKnobsOptions } from './emulator-knobs.js';

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

/**
 * The emulator's knobs: its clock and seed (default 1) from the options, the cloud's own fault shapes from
 * `wire`, and the options' initial knob settings applied.
 */
export function knobsFromOptions(
  opts: Pick<CloudEmulatorOptions<unknown, unknown>, 'clock' | 'seed' | 'knobs'>,
  wire: Pick<EmulatorKnobsOptions, 'classify' | 'throttleFault' | 'serverFault'>,
): EmulatorKnobs {
  const knobs = new EmulatorKnobs({ ...wire, clock: opts.clock, seed: opts.seed ?? 1 });
  if (opts.knobs) knobs.configure(opts.knobs);
  return knobs;
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
  /**
   * What this emulator lets its admin endpoint change at run time (startAdminServer serves them): at least
   * GET, POST and DELETE /credentials, the keys it accepts, and where the cloud models capacity, POST /capacity
   * (and /interrupt where it reclaims spot instances).
   */
  readonly adminRoutes: readonly AdminRoute[];
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
