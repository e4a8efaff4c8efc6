// The reporting every cloud actuator owes the machine controller, written once.
//
// How a provider uses it:
//   async create(machine, ctx) {
//     return reportActuatorFailures('create', machine, ctx, { reason: 'failed to create machine', describe }, () => this.doCreate(machine, ctx));
//   }
// and inside doCreate/doUpdate/doDelete wrap each cloud call that has its own reference reason:
//   const found = await failureStep('error getting existing instances', () => api.list(...));
// (or tag an error built by hand with setFailureReason(err, '...')). A failure other than a
// RequeueAfterError then counts in mapi_instance_<op>_failed with the step's reason (the operation's
// `reason` when no step named one) and emits the FailedCreate/FailedUpdate/FailedDelete Warning event.
// In update, snapshot with machineChangeFingerprint(machine) before, and call
// emitUpdatedWhenChanged(machine, ctx, before) after the work, so "Updated Machine" is only said on change.
import type { Machine } from '../apis/machine-types.js';
import { MachineInstanceStateAnnotation } from '../apis/constants.js';
import { isMachineProvisioned } from '../apis/machine-predicates.js';
import type { ActuatorContext } from './actuator.js';
import { clone, deepEqual } from './merge-patch.js';
import {
  InvalidMachineConfigurationError,
  MissingSecretError,
  RequeueAfterError,
  findError,
  isInvalidMachineConfiguration,
  messageOf,
} from '../apis/errors.js';
import type { InstanceAction, FailedInstanceLabels } from './metrics.js';
import { refusedCredentialsNote, refusedCredentialsSecret } from './refused-credentials.js';

/** Errors are objects the provider may not own, so the reason rides beside them rather than on them. */
const failureReasons = new WeakMap<object, string>();

/** Tags an error with the mapi_instance_*_failed reason, unless an inner step already named one. */
export function setFailureReason(err: unknown, reason: string): void {
  if (typeof err === 'object' && err !== null && !failureReasons.has(err)) failureReasons.set(err, reason);
}

/** Runs one step of an operation; a failure carries `reason` (the innermost step's reason wins). */
export async function failureStep<T>(reason: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    setFailureReason(err, reason);
    throw err;
  }
}

/** The reason a step tagged on `err`, or `fallback`. */
export function failureReasonOf(err: unknown, fallback: string): string {
  return (typeof err === 'object' && err !== null ? failureReasons.get(err) : undefined) ?? fallback;
}

/** The labels of a mapi_instance_*_failed sample for this machine and error. */
export function failureLabels(machine: Machine, err: unknown, fallback: string): FailedInstanceLabels {
  return {
    name: machine.metadata.name ?? '',
    namespace: machine.metadata.namespace ?? '',
    reason: failureReasonOf(err, fallback),
  };
}

export interface FailureReportOptions {
  /** The metric reason when no step tagged the error (the reference's string for this operation). */
  reason: string;
  /** Turns an error into the event's text; providers that translate cloud errors pass their own. */
  describe?: (err: unknown) => string;
}

const verbs = { create: 'Create', update: 'Update', delete: 'Delete' } as const;

/**
 * Runs an actuator operation; when it fails for any reason but a requeue, counts the failure and emits
 * the Failed<Op> Warning event, then rethrows the error unchanged.
 */
export async function reportActuatorFailures(
  op: InstanceAction,
  machine: Machine,
  ctx: ActuatorContext,
  opts: FailureReportOptions,
  work: () => Promise<void>,
): Promise<void> {
  try {
    await work();
  } catch (err) {
    if (!findError(err, RequeueAfterError)) {
      ctx.metrics?.recordInstanceFailure(op, failureLabels(machine, err, opts.reason));
      // The machine controller reports a missing Secret itself, with a condition, whichever call met it.
      if (findError(err, MissingSecretError)) throw err;
      const verb = verbs[op];
      const refused = refusedCredentialsSecret(err);
      const text = `${(opts.describe ?? messageOf)(err)}${refused ? `; ${refusedCredentialsNote(refused)}` : ''}`;
      ctx.events.event(
        machine,
        'Warning',
        `Failed${verb}`,
        verb,
        `${machine.metadata.name ?? ''}: reconciler failed to ${verb} machine: ${text}`,
      );
    }
    throw err;
  }
}

/** What a Machine said about its instance before update ran; opaque, for emitUpdatedWhenChanged. */
export interface MachineChangeMark {
  /** A copy of what update may change; compared structurally, as a providerSpec can nest deeper than JSON.stringify goes. */
  readonly snapshot: unknown;
  readonly provisioned: boolean;
}

/**
 * Marks what update may change on a Machine. The instance state (annotation and providerStatus) is left out:
 * it moves with every power transition and is on the Machine for all to see; an event per move would be
 * noise in etcd.
 */
export function machineChangeFingerprint(m: Machine): MachineChangeMark {
  const { [MachineInstanceStateAnnotation]: _state, ...annotations } = m.metadata.annotations ?? {};
  return {
    snapshot: clone([m.metadata.labels, annotations, m.spec, m.status?.addresses]),
    provisioned: isMachineProvisioned(m),
  };
}

/**
 * Emits the Normal "Updated Machine" event when update changed what machineChangeFingerprint covers on a
 * Machine that already had an instance on record. The first recording of a new instance (its providerID,
 * addresses, labels) is part of creating it, which the "Created Machine" event already announced.
 */
export function emitUpdatedWhenChanged(machine: Machine, ctx: ActuatorContext, before: MachineChangeMark): void {
  if (before.provisioned && !deepEqual(machineChangeFingerprint(machine).snapshot, before.snapshot)) {
    ctx.events.event(machine, 'Normal', 'Update', 'Update', `Updated Machine ${machine.metadata.name ?? ''}`);
  }
}

/**
 * Builds the per-call scope of a delete. When the spec no longer decodes but the machine already has an
 * instance (a providerID), deleting anyway would forget that instance: the error says to fix the spec so
 * the deletion can go through. A machine that never got an instance keeps the plain error.
 */
export async function scopeForDelete<S>(
  machine: Machine,
  build: () => Promise<S>,
  describe: (err: unknown) => string,
): Promise<S> {
  try {
    return await build();
  } catch (err) {
    if (isInvalidMachineConfiguration(err) && machine.spec?.providerID) {
      throw new InvalidMachineConfigurationError(
        `the machine ${machine.metadata.name ?? ''} has invalid configuration, but already exists, make the configuration of the machine valid for the deletion to be successful: ${describe(err)}`,
        { cause: err, field: findError(err, InvalidMachineConfigurationError)?.field },
      );
    }
    throw err;
  }
}
