// The SecretsAvailable condition: a Machine whose providerSpec names a Secret that does not exist waits for it
// instead of failing, and says so on its status and in an event; the first pass that reads its Secrets again
// turns the condition back to True.
import { SecretNotFoundReason, SecretsAvailableCondition, SecretsFoundReason } from '../apis/constants.js';
import { falseCondition, getCondition, setCondition, trueConditionWithReason } from '../apis/conditions.js';
import type { Condition, Machine } from '../apis/machine-types.js';
import type { EventRecorder } from '../client/event-recorder.js';
import { findError, MissingSecretError } from '../apis/errors.js';

/**
 * When `err` is a missing Secret: the SecretsAvailable=False condition and a Failed<verb> Warning event,
 * both naming the Secret and what waits for it. Actuators leave this report to the controller.
 */
export function reportMissingSecret(
  machine: Machine,
  err: unknown,
  verb: 'Create' | 'Update' | 'Delete',
  events: EventRecorder,
  nowMs: number,
): void {
  const missing = findError(err, MissingSecretError);
  if (!missing) return;
  const waiting = {
    Create: 'the instance is created once it exists',
    Update: 'the machine is reconciled again once it exists',
    Delete: 'the instance is terminated and the finalizer removed once it exists',
  }[verb];
  const message = `${missing.message}; ${waiting}`;
  setMachineCondition(
    machine,
    falseCondition(SecretsAvailableCondition, SecretNotFoundReason, 'Warning', message),
    nowMs,
  );
  events.event(machine, 'Warning', `Failed${verb}`, verb, `${machine.metadata.name ?? ''}: ${message}`);
}

/** Clears a SecretsAvailable=False left by an earlier wait; Machines that never waited get no condition. */
export function markSecretsAvailable(machine: Machine, nowMs: number): void {
  const c = getCondition(machine.status?.conditions, SecretsAvailableCondition);
  if (c && c.status !== 'True')
    setMachineCondition(
      machine,
      trueConditionWithReason(
        SecretsAvailableCondition,
        SecretsFoundReason,
        'The Secrets the providerSpec names were read',
      ),
      nowMs,
    );
}

function setMachineCondition(machine: Machine, c: Condition, nowMs: number): void {
  const status = (machine.status ??= {});
  status.conditions = setCondition(status.conditions, c, nowMs);
}
