// The provider contract. All four methods are idempotent. The actuator writes what it learns onto the
// machine it is given (spec.providerID, status.addresses, status.providerStatus, the instance-state
// annotation, region/zone/instance-type labels); the controller persists those changes.
import type { Machine } from '../apis/machine-types.js';
import type { EventRecorder } from '../client/event-recorder.js';
import type { Logger } from '../base/logger.js';
import type { MachineMetrics } from './metrics.js';
import { ReconcileNotes } from './reconcile-notes.js';

export interface ActuatorContext {
  signal: AbortSignal;
  log: Logger;
  events: EventRecorder;
  /** The mapi_instance_*_failed counters; pass it to recordInstanceCreateFailed & co. Absent in bare unit tests. */
  metrics?: MachineMetrics;
  /**
   * What this reconcile's earlier actuator calls learned (exists → create/update, delete → exists): the machine
   * controller makes one per reconcile. Absent in bare unit tests; notesOf(ctx) makes one on first use.
   */
  notes?: ReconcileNotes;
}

/** The reconcile's notes, made on first use when the caller passed none. */
export function notesOf(ctx: ActuatorContext): ReconcileNotes {
  return (ctx.notes ??= new ReconcileNotes());
}

export interface Actuator {
  /** Creates the instance. Throws InvalidMachineConfigurationError for a spec that can never work. */
  create(machine: Machine, ctx: ActuatorContext): Promise<void>;
  /** Whether the instance exists (in any non-terminated state). */
  exists(machine: Machine, ctx: ActuatorContext): Promise<boolean>;
  /** Brings the machine's recorded state in line with the instance (providerID, addresses, labels...). */
  update(machine: Machine, ctx: ActuatorContext): Promise<void>;
  /** Starts deleting the instance; resolving means deletion was requested (or it is already gone). */
  delete(machine: Machine, ctx: ActuatorContext): Promise<void>;
  /**
   * The names of the Secrets the Machine's providerSpec refers to (credentials, user data), in its
   * namespace. The machine controller watches them: a Machine waiting for one is reconciled as soon as it
   * is created or changed. Must not call anything; optional for actuators that read no Secrets.
   */
  referencedSecrets?(machine: Machine): string[];
  /**
   * For a Machine that has launched nothing yet: how long until the cloud's rate would let its launch go,
   * when that is longer than its create would stand in line (`deferBeyondMs`); undefined to reconcile it at
   * once. The machine controller puts the Machine's first reconcile off until then, so a scale-up beyond the
   * cloud's burst costs no pass that only learns its launch must wait. Its place in line is kept from this
   * moment, as for a launch deferred in a reconcile. Must not call anything; optional.
   */
  launchTurnInMs?(machine: Machine, deferBeyondMs: number): number | undefined;
}
