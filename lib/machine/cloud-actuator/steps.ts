// The cloud actuator template's kit for a provider's steps: launching under the ledger, recording creation,
// typing a failed launch or terminate call, the terminating record, the Create and Delete events, memberships
// ensured once, and releasing a deleted Machine under the one visibility rule. CloudActuator (cloud-actuator.ts)
// extends it with the Actuator's flow; a provider calls these from its steps.
import {
  MachineCreationFailedReason,
  MachineCreationSucceededReason,
  MachineInstanceStateAnnotation,
} from '../../apis/constants.js';
import type { Machine } from '../../apis/machine-types.js';
import type { Clock } from '../../base/clock.js';
import { DEFAULT_VISIBILITY_WINDOW_MS, DeleteGuard, type RecordedLaunch } from '../../cloud/delete-guard.js';
import { CapacityMemory } from '../../cloud/capacity-memory.js';
import { LaunchLedger } from '../../cloud/launch-ledger.js';
import { isCloudCallDeferred } from '../../cloud/deferred-turns.js';
import { setProviderCondition } from '../../cloud/provider-condition.js';
import type { ActuatorContext } from '../actuator.js';
import { setFailureReason } from '../actuator-reporting.js';
import { deleteMachineError } from '../../apis/errors.js';
import { launchFailureError, type LaunchFailure } from './launch-failure.js';
import { MachineMemory } from './machine-memory.js';
import {
  DEFAULT_CLOUD_REQUEUE_AFTER_MS,
  type CloudActuatorSettings,
  type CloudActuatorTimings,
  type CloudMachineScope,
  type CloudProviderStatus,
  type CreationCondition,
} from './settings.js';

/** How a terminate call's failure reads: the metric reason, which errors mean the instance is gone, a hint for users. */
export interface TerminateFailure {
  reason: string;
  isGone(err: unknown): boolean;
  /** Appended to the error's message (what the user can do about it). */
  hint?: string;
  /** Logged when the instance turns out to be gone. */
  fields: Record<string, unknown>;
}

export abstract class CloudActuatorSteps<S extends CloudMachineScope> {
  protected readonly clock: Clock;
  /** How long to wait on the cloud (an instance not running yet, a termination under way). */
  protected readonly requeueAfterMs: number;
  protected readonly guard: DeleteGuard;
  /** Present when the cloud names the instance only in the launch's reply. */
  protected readonly launches: LaunchLedger | undefined;
  protected readonly memory = new MachineMemory();
  /** The process's memory of the cloud's capacity refusals (for specs with fallbacks). */
  protected readonly capacityMemory: CapacityMemory;

  constructor(
    timings: CloudActuatorTimings,
    protected readonly settings: CloudActuatorSettings,
  ) {
    const { clock, eventualConsistencyWindowMs: windowMs } = timings;
    this.clock = clock;
    this.requeueAfterMs = timings.requeueAfterMs ?? DEFAULT_CLOUD_REQUEUE_AFTER_MS;
    this.capacityMemory = timings.capacityMemory ?? new CapacityMemory({ clock });
    this.launches = settings.idFromLaunchReply
      ? new LaunchLedger({ clock, windowMs: windowMs ?? DEFAULT_VISIBILITY_WINDOW_MS })
      : undefined;
    this.guard = new DeleteGuard({ clock, ledger: this.launches, windowMs, isTerminating: settings.isTerminating });
  }

  /** The id on record, else the one this process launched and has not seen recorded yet. */
  protected instanceIdOnRecord(scope: S): string | undefined {
    const recorded = scope.status.instanceId ?? undefined;
    return this.launches
      ? this.launches.instanceIdOf(scope.machine.metadata.uid ?? '', recorded)
      : recorded || undefined;
  }

  /**
   * Sends a launch under the ledger: until it answers, the Machine may have an instance whose id is unknown.
   * `mayHaveMade` says whether a failed launch may still have made one (a lost reply, a timeout, a 5xx).
   */
  protected async launch<T>(
    scope: S,
    send: () => Promise<T>,
    idOf: (made: T) => string | undefined,
    mayHaveMade: (err: unknown) => boolean,
  ): Promise<T> {
    const uid = scope.machine.metadata.uid ?? '';
    this.launches?.sending(uid);
    let made: T;
    try {
      made = await send();
    } catch (err) {
      // A launch deferred for the cloud's rate was never sent.
      if (isCloudCallDeferred(err) || !mayHaveMade(err)) this.launches?.refused(uid);
      throw err;
    }
    this.adopted(scope, idOf(made));
    return made;
  }

  /** The Machine's instance is this one (launched or adopted): the ledger holds it until the status does. */
  protected adopted(scope: S, id: string | undefined): void {
    if (id) this.launches?.launched(scope.machine.metadata.uid ?? '', id);
  }

  /** A read found the Machine's instance (while deleting): nothing launched is waited for any more. */
  protected foundWhileDeleting(uid: string): void {
    this.launches?.forget(uid);
    this.guard.seen(uid);
  }

  /** The creation condition turned True, and the status written back. */
  protected creationSucceeded(scope: S, message = 'Machine successfully created'): void {
    this.setCreation(scope, {
      type: this.settings.creationCondition,
      status: 'True',
      reason: MachineCreationSucceededReason,
      message,
    });
  }

  /** The creation condition turned False with the cloud's words, and the status written back. */
  protected creationFailed(scope: S, message: string): void {
    this.setCreation(scope, {
      type: this.settings.creationCondition,
      status: 'False',
      reason: MachineCreationFailedReason,
      message,
    });
  }

  /** A launch failed: the creation condition says why, and the error create() throws is typed (launch-failure.ts). */
  protected launchFailed(scope: S, err: unknown, failure: LaunchFailure): Error {
    // Deferred for the cloud's rate: not a failure, the Machine comes again at its turn. What the provider put on
    // record for the launch (and took back) is saved, as the creation condition would have saved it.
    if (isCloudCallDeferred(err)) {
      scope.saveStatus();
      return err instanceof Error ? err : new Error(String(err));
    }
    this.creationFailed(scope, failure.message);
    return launchFailureError(err, failure);
  }

  protected announceCreated(machine: Machine, ctx: ActuatorContext, fields: Record<string, unknown>): void {
    ctx.log.info('created instance', fields);
    ctx.events.event(machine, 'Normal', 'Create', 'Create', `Created Machine ${machine.metadata.name ?? ''}`);
  }

  /** The Delete event, once per Machine however many passes its deletion takes. */
  protected announceDeleting(machine: Machine, ctx: ActuatorContext, fields: Record<string, unknown>): void {
    if (!this.memory.firstTime(machine.metadata.uid ?? '', 'announced-delete')) return;
    ctx.log.info('deleting instance', fields);
    ctx.events.event(machine, 'Normal', 'Delete', 'Delete', `Deleted machine ${machine.metadata.name ?? ''}`);
  }

  /**
   * Sends the call that terminates the instance. Returns false when the cloud no longer knows it (then released()
   * has decided about the finalizer); any other failure is a delete error tagged with `reason`.
   */
  protected async sendTerminate(
    scope: S,
    ctx: ActuatorContext,
    send: () => Promise<unknown>,
    how: TerminateFailure,
  ): Promise<boolean> {
    try {
      await send();
      return true;
    } catch (err) {
      if (how.isGone(err)) {
        this.released(scope, ctx, how.fields);
        return false;
      }
      const wrapped = deleteMachineError(`${how.reason}: ${this.settings.describeError(err)}${how.hint ?? ''}`, err);
      setFailureReason(wrapped, how.reason);
      throw wrapped;
    }
  }

  /** The instance is terminating: no read showing it means gone from now on; the state is recorded, the Delete event said once. */
  protected terminating(scope: S, ctx: ActuatorContext, state: string, fields: Record<string, unknown>): void {
    const machine = scope.machine;
    this.guard.seenTerminating(machine.metadata.uid ?? '');
    scope.status.instanceState = state;
    scope.saveStatus();
    machine.metadata.annotations = { ...machine.metadata.annotations, [MachineInstanceStateAnnotation]: state };
    this.announceDeleting(machine, ctx, fields);
  }

  /** Runs `ensure` unless it already succeeded for this Machine under `what` (a membership, tags). */
  protected async ensureOnce(scope: S, what: string, ensure: () => Promise<void>): Promise<void> {
    const uid = scope.machine.metadata.uid ?? '';
    if (this.memory.has(uid, what)) return;
    await ensure();
    this.memory.add(uid, what);
  }

  /**
   * No read shows the Machine's instance while deleting it: returns once the one visibility rule agrees it is
   * gone (and forgets the Machine), else throws a short requeue while it may be an instance not shown yet.
   */
  protected released(scope: S, ctx: ActuatorContext, fields: Record<string, unknown>): void {
    const machine = scope.machine;
    try {
      this.guard.nothingFound(machine, this.recordedLaunch(scope));
    } catch (err) {
      ctx.log.info(
        'instance launched but not visible yet; keeping the finalizer until it shows or the window passes',
        fields,
      );
      throw err;
    }
    ctx.log.info('instance is gone; deletion complete', fields);
    this.forget(machine.metadata.uid ?? '');
  }

  /** The Machine's deletion is complete: forget everything about it. */
  protected forget(uid: string): void {
    this.guard.forget(uid);
    this.memory.forget(uid);
  }

  protected nowIso(): string {
    return new Date(this.clock.now()).toISOString();
  }

  /** When the creation condition turned True, if the status says. */
  protected createdAt(scope: S): number | undefined {
    const c = scope.status.conditions?.find((x) => x.type === this.settings.creationCondition && x.status === 'True');
    const t = c?.lastTransitionTime ? Date.parse(c.lastTransitionTime) : NaN;
    return Number.isNaN(t) ? undefined : t;
  }

  /** What the provider status says of the launch: the instance id and when creation was recorded. */
  protected recordedLaunch(scope: S): RecordedLaunch {
    return { instanceId: scope.status.instanceId, recordedAt: this.createdAt(scope) };
  }

  private setCreation(scope: S, cond: CreationCondition): void {
    const set =
      this.settings.setCondition ??
      ((status: CloudProviderStatus, c: CreationCondition, now: string) =>
        setProviderCondition(status as Parameters<typeof setProviderCondition>[0], c, now));
    set(scope.status, cond, this.nowIso());
    scope.saveStatus();
  }
}
