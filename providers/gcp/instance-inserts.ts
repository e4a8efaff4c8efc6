// Sending a Machine's instances.insert. The instance name is the Machine's and goes on record before the call,
// so a reply lost on its way back never leaves the instance unknown; the requestId is derived from the Machine
// UID and an attempt number, so a retried insert is GCE's same request, and a 409 from a racing insert adopts
// the instance. A finished operation in the reply replays an earlier request of ours (its requestId is spent).
// What became of an accepted insert is InsertOutcomes' to find out; PendingInserts remembers the attempt.
import { failureStep, type ActuatorContext } from '../../lib/index.js';
import { isOperationDone, throwIfOperationFailed, type Operation } from './compute-api.js';
import { classifyGceError, refusedOutright } from './errors.js';
import { checkGpuQuota } from './gpu-quota.js';
import { InsertOutcomes, type CreationReport, type InsertOutcome } from './insert-outcomes.js';
import type { InstanceBodyBuilder } from './instance-body.js';
import { locationError } from './instance-lookup.js';
import { requestIdFor } from './instances.js';
import type { MachineScope } from './machine-scope.js';
import { PendingInserts } from './pending-inserts.js';

const uidOf = (scope: MachineScope): string => scope.machine.metadata.uid ?? scope.machine.metadata.name ?? '';

export class InstanceInserts {
  /** Per Machine UID: inserts GCE accepted that no read has shown yet (attempt, operation, a failure to report). */
  private readonly pending = new PendingInserts();
  private readonly outcomes: InsertOutcomes;

  constructor(
    private readonly bodies: InstanceBodyBuilder,
    report: CreationReport,
  ) {
    this.outcomes = new InsertOutcomes(this.pending, report);
  }

  /**
   * Inserts the Machine's instance. Resolves with the zone operation GCE accepted it with (undefined when the
   * instance was there already); throws the typed failure of an insert refused now, or of one whose operation
   * failed since the last create (quota, stock-out), as any other create failure.
   */
  async insert(scope: MachineScope, ctx: ActuatorContext): Promise<string | undefined> {
    const { compute } = scope.clients;
    const uid = uidOf(scope);
    const failure = this.pending.takeFailure(uid);
    if (failure) throw this.outcomes.failed(scope, failure);
    try {
      await checkGpuQuota(compute, scope.project, scope.spec, ctx.signal);
    } catch (err) {
      throw this.outcomes.failed(scope, err);
    }
    const body = await failureStep('failed to create instance via compute service', () =>
      this.bodies.build(scope, ctx.signal),
    );
    // On record before the call: a reply lost on its way back must not leave the instance unknown.
    scope.status.instanceId = scope.instanceName;
    scope.saveStatus();
    this.pending.sending(uid);
    let op: Operation;
    try {
      op = await compute.insertInstance(
        scope.project,
        scope.spec.zone,
        body,
        requestIdFor(uid, 'insert', this.pending.attempt(uid)),
        { signal: ctx.signal },
      );
    } catch (err) {
      if (classifyGceError(err) === 'alreadyExists') {
        // A racing or earlier insert made it (the name is ours): adopt it rather than fail the Machine.
        ctx.log.info('instance already exists; adopting it', { instance: scope.instanceName });
        return this.accepted(scope, undefined);
      }
      // GCE refused the request itself, so nothing was made; after a 5xx or a lost reply it may have been.
      if (refusedOutright(err)) scope.status.instanceId = null;
      throw this.outcomes.failed(scope, locationError(scope, err) ?? err);
    }
    if (!isOperationDone(op)) return this.accepted(scope, op.name ?? undefined);
    // GCE answers a new insert with a queued operation: a finished one replays an earlier request of ours,
    // whose requestId is spent whatever it says.
    this.pending.nextAttempt(uid);
    try {
      throwIfOperationFailed(op);
    } catch (err) {
      if (classifyGceError(err) !== 'alreadyExists') {
        scope.status.instanceId = null;
        throw this.outcomes.failed(scope, err);
      }
    }
    // It made the instance earlier. If no read shows it, it has gone or lags: the next insert, a new
    // request, either adopts it (409) or makes it again.
    return this.accepted(scope, undefined);
  }

  /** For an inserted instance no read shows: what its insert's operation says (see InsertOutcomes.of). */
  outcomeOf(scope: MachineScope, signal: AbortSignal): Promise<InsertOutcome> {
    return this.outcomes.of(scope, scope.machine.metadata.uid ?? '', signal);
  }

  /**
   * The typed failure of the insert just accepted, when its zone operation already says GCE refused it (a zone out
   * of the machine type answers at once); undefined while it runs or once it made the instance.
   */
  async refusedAlready(scope: MachineScope, signal: AbortSignal): Promise<Error | undefined> {
    if ((await this.outcomeOf(scope, signal)) !== 'failed') return undefined;
    const failure = this.pending.takeFailure(uidOf(scope));
    return failure ? this.outcomes.failed(scope, failure) : undefined;
  }

  /** A read showed the Machine's instance: no insert is pending any more. */
  seen(scope: MachineScope): void {
    this.pending.seen(scope.machine.metadata.uid ?? '');
  }

  forget(uid: string): void {
    this.pending.forget(uid);
  }

  /** GCE took the insert (or the instance was there already): the boot is not waited for. */
  private accepted(scope: MachineScope, operation: string | undefined): string | undefined {
    this.pending.accepted(uidOf(scope), operation);
    return operation;
  }
}
