// The typed error a failed launch becomes, the same on every cloud: a request the cloud can never accept fails
// the Machine (InvalidConfiguration); a refusal for capacity or quota is retried within the capacity window
// (InsufficientCapacityError); anything else is a create error the controller retries with backoff. The cloud
// only says which it is, in its own words.
import { setFailureReason } from '../actuator-reporting.js';
import { InsufficientCapacityError, InvalidMachineConfigurationError, createMachineError } from '../../apis/errors.js';

/** How a cloud reads one failed launch. */
export interface LaunchFailure {
  /**
   * The cloud's class of the error (as its errors.ts classifies it): 'invalid' (the cloud can never accept this
   * request) and 'capacity' (not now, not here) are told apart; any other class is retried.
   */
  kind: string;
  /** The cloud's words for the failure, without request parameters. */
  message: string;
  /** What an InvalidConfiguration error says before the message (default: the reference's "error launching instance"). */
  invalidPrefix?: string;
  /** The mapi_instance_create_failed reason; a retried error says it before the message. */
  reason: string;
  /** For 'capacity': the cloud's code, where the instance was asked for and its explanation (without it, retried). */
  capacity?: { code: string; zone: string; instanceType: string; detail: string };
}

/** The error create() throws for a failed launch; one already typed (a spec or capacity error) is passed on as it is. */
export function launchFailureError(err: unknown, failure: LaunchFailure): Error {
  if (err instanceof InvalidMachineConfigurationError || err instanceof InsufficientCapacityError) return err;
  const { kind, message, capacity } = failure;
  const wrapped =
    kind === 'invalid'
      ? new InvalidMachineConfigurationError(`${failure.invalidPrefix ?? 'error launching instance'}: ${message}`, {
          cause: err,
        })
      : kind === 'capacity' && capacity
        ? new InsufficientCapacityError(capacity.code, capacity.zone, capacity.instanceType, capacity.detail, {
            cause: err,
          })
        : createMachineError(`${failure.reason}: ${message}`, err);
  setFailureReason(wrapped, failure.reason);
  return wrapped;
}
