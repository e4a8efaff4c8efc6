// What became of the GCP actuator's inserts. GCE accepts an insert with a queued zone operation and may fail it
// later (quota, stock-out): the operation, not a read that may lag, says so. One non-blocking
// zoneOperations.get asks it, only while the inserted instance has not been seen; a failure is kept for the
// next create() to report, and the insert after it waits (PendingInserts).
import {
  InsufficientCapacityError,
  InvalidMachineConfigurationError,
  RequeueAfterError,
  createMachineError,
  setFailureReason,
} from '../../lib/index.js';
import { isOperationDone, throwIfOperationFailed, type Operation } from './compute-api.js';
import { classifyGceError, describeGceError, gceCapacityCode, GceOperationError } from './errors.js';
import type { MachineScope } from './machine-scope.js';
import type { PendingInserts } from './pending-inserts.js';

export type InsertOutcome = 'failed' | 'pending' | 'unknown';

export class InsertOutcomes {
  constructor(
    private readonly inserts: PendingInserts,
    /** Sets the creation condition False with GCE's words. */
    private readonly creationFailed: (scope: MachineScope, message: string) => void,
  ) {}

  /**
   * For an inserted instance no read shows: 'failed' (recorded for create() to report; nothing was made),
   * 'pending' (running, or done and the reads lag), or 'unknown' (this process did not see the operation: a
   * restart, a lost reply).
   */
  async of(scope: MachineScope, uid: string, signal: AbortSignal): Promise<InsertOutcome> {
    const name = this.inserts.operation(uid);
    if (!name) return 'unknown';
    let op: Operation;
    try {
      op = await scope.clients.compute.getZoneOperation(scope.project, scope.spec.zone, name, { signal });
    } catch (err) {
      if (classifyGceError(err) !== 'notFound') throw err;
      this.inserts.forgetOperation(uid);
      return 'unknown';
    }
    if (!isOperationDone(op)) return 'pending';
    try {
      throwIfOperationFailed(op);
    } catch (err) {
      if (classifyGceError(err) === 'alreadyExists') return 'pending';
      this.inserts.failed(uid, err instanceof Error ? err : new Error(String(err)));
      scope.status.instanceId = null;
      this.creationFailed(scope, describeGceError(err));
      return 'failed';
    }
    return 'pending';
  }

  /** The error create() throws for a failed insert, typed for the controller; the condition says why. */
  failed(scope: MachineScope, err: unknown): Error {
    const message = describeGceError(err);
    this.creationFailed(scope, message);
    if (err instanceof InvalidMachineConfigurationError || err instanceof InsufficientCapacityError) return err;
    const cls = classifyGceError(err);
    const wrapped =
      cls === 'invalid'
        ? new InvalidMachineConfigurationError(`error launching instance: ${message}`, { cause: err })
        : cls === 'capacity'
          ? new InsufficientCapacityError(gceCapacityCode(err) ?? 'ZONE_RESOURCE_POOL_EXHAUSTED', scope.spec.zone, scope.spec.machineType, operationMessages(err), { cause: err })
          : createMachineError(`failed to create instance via compute service: ${message}`, err);
    setFailureReason(wrapped, 'failed to create instance via compute service');
    return wrapped;
  }
}

/** GCE refused the request itself (bad request, throttled, forbidden, unknown project or zone): nothing was done. */
export function refusedOutright(err: unknown): boolean {
  const cls = classifyGceError(err);
  return cls === 'invalid' || cls === 'throttled' || cls === 'unauthorized' || cls === 'notFound';
}

/** A failure as the Machine shows it: our own errors in their own words, GCE's with its HTTP status and text. */
export function describeFailure(err: unknown): string {
  if (err instanceof InvalidMachineConfigurationError || err instanceof RequeueAfterError) return err.message;
  return describeGceError(err);
}

/** GCE's own words of a failed operation, without the operation name and codes (the error carries the code). */
function operationMessages(err: unknown): string {
  if (err instanceof GceOperationError) return err.errors.map((e) => e.message).join('; ');
  return describeGceError(err);
}
