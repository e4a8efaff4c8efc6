// What became of the GCP actuator's inserts. GCE accepts an insert with a queued zone operation and may fail it
// later (quota, stock-out): the operation, not a read that may lag, says so. One non-blocking
// zoneOperations.get asks it, only while the inserted instance has not been seen; a failure is kept for the
// next create() to report (PendingInserts), and the machine controller's backoff paces the insert after it.
import type { LaunchFailure } from '../../lib/index.js';
import { isOperationDone, throwIfOperationFailed, type Operation } from './compute-api.js';
import { classifyGceError, describeGceError, gceLaunchFailure } from './errors.js';
import type { MachineScope } from './machine-scope.js';
import type { PendingInserts } from './pending-inserts.js';

export type InsertOutcome = 'failed' | 'pending' | 'unknown';

/** The template's creation reporting (see CloudActuatorSteps). */
export interface CreationReport {
  /** Sets the creation condition False with GCE's words. */
  creationFailed(scope: MachineScope, message: string): void;
  /** The creation condition False, and the typed error create() throws. */
  launchFailed(scope: MachineScope, err: unknown, failure: LaunchFailure): Error;
}

export class InsertOutcomes {
  constructor(
    private readonly inserts: PendingInserts,
    private readonly report: CreationReport,
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
      this.report.creationFailed(scope, describeGceError(err));
      return 'failed';
    }
    return 'pending';
  }

  /** The error create() throws for a failed insert, typed for the controller; the condition says why. */
  failed(scope: MachineScope, err: unknown): Error {
    return this.report.launchFailed(scope, err, gceLaunchFailure(err, scope.spec));
  }
}
