// The machine controller's reconcile: drives a Machine through Provisioning → Provisioned → Running with the
// provider's Actuator, and through Deleting (after the drain controller) to finalizer removal.
// Reference: https://github.com/openshift/machine-api-operator/blob/main/pkg/controller/machine/controller.go
import {
  CapacityAvailableCondition,
  DrainedCondition,
  ErrorCheckingProviderReason,
  InstanceExistsCondition,
  InstanceMissingReason,
  InstanceNotCreatedReason,
  MachineFinalizer,
  PhaseDeleting,
  PhaseFailed,
  PhaseProvisioned,
  PhaseProvisioning,
  PhaseRunning,
} from '../apis/constants.js';
import type { Condition, Machine } from '../apis/machine-types.js';
import { isMachineProvisioned } from '../apis/machine-predicates.js';
import { isNotFound } from '../client/errors.js';
import type { EventRecorder } from '../client/event-recorder.js';
import type { KubeClient } from '../client/kube-client.js';
import { Machines } from '../client/resources.js';
import { TerminationFollower, type TerminationFollowPolicy } from '../cloud/termination-follower.js';
import type { Clock } from '../base/clock.js';
import { WrittenVersions } from '../runtime/written-versions.js';
import type { Logger } from '../base/logger.js';
import { requestKey } from '../runtime/request-key.js';
import type { Informer, ReconcileContext, Reconciler, Request, Result } from '../runtime/types.js';
import type { Actuator, ActuatorContext } from './actuator.js';
import { falseCondition, getCondition, isConditionTrue, setCondition, trueCondition, unknownCondition } from '../apis/conditions.js';
import { CapacityRetry, firstRefusalOf, judgeRefusal, refusedCondition, windowEndedCondition } from './capacity-window.js';
import { findError, formatDuration, InsufficientCapacityError, isInvalidMachineConfiguration, messageOf, requeueAfterOf } from './errors.js';
import { hasPreTerminateHooks } from './lifecycle-hooks.js';
import { MachineDraft } from './machine-writer.js';
import { applyPhase } from './machine-status.js';
import { clone } from './merge-patch.js';
import type { MachineMetrics } from './metrics.js';
import { machineMigrationDecision } from './migration-gate.js';
import { CarriedNotes } from './carried-notes.js';
import type { ReconcileNotes } from './reconcile-notes.js';
import { deleteOwnNode } from './own-node.js';
import { fingerprintOf, ReconcilePacing } from './reconcile-pacing.js';
import { markSecretsAvailable, reportMissingSecret } from './secrets-available.js';
import { MachineValidationError, validateMachine } from './validation.js';

export interface MachineReconcilerDeps {
  client: KubeClient;
  machines: Informer<Machine>;
  actuator: Actuator;
  clock: Clock;
  events: EventRecorder;
  metrics: MachineMetrics;
  /** Feature gate MachineAPIMigration: honour status.authoritativeAPI. */
  migrationEnabled: boolean;
  /** Wait before looking again at an instance that is still changing; 30 s as in the reference. */
  requeueAfterMs: number;
  /**
   * Whether a Node exists (the shared Node cache). A Running Machine whose Node is gone while its instance
   * still answers is looked at again after requeueAfterMs instead of at the next resync. Absent: never asked.
   */
  nodeExists?: (name: string) => boolean;
  /** How often a deleted Machine's terminating instance is looked at (default: TerminationFollower's, 1 s growing to 10 s). */
  terminationFollow?: Partial<TerminationFollowPolicy>;
  /** Hot-loop guard bounds after a failed reconcile. */
  retryBaseMs: number;
  retryMaxMs: number;
  /**
   * Bounds of the wait for a missing Secret the providerSpec names. The Secret watch brings the Machine back
   * as soon as the Secret appears; this is the look now and then in case that event never comes.
   */
  secretWaitBaseMs?: number;
  secretWaitMaxMs?: number;
  /**
   * How long creates the cloud refuses for want of capacity or quota are retried, from the first refusal,
   * before the Machine fails with InsufficientResources. 0 fails it at the first refusal. Default 2 min.
   */
  capacityRetryWindowMs?: number;
  /** Backoff between those retries (default 5 s → 30 s); never past the window's end. */
  capacityRetryBaseMs?: number;
  capacityRetryMaxMs?: number;
  /** How long a reconcile's notes may answer the echo of its own write (default DEFAULT_CARRY_MS; 0 = never). */
  carryNotesMs?: number;
}

export class MachineReconciler implements Reconciler {
  private readonly pacing: ReconcilePacing;
  private readonly written = new WrittenVersions();
  /** What a reconcile's actuator calls read, handed to the echo of its own write (see ReconcileNotes). */
  private readonly notes: CarriedNotes;
  /** Deleted Machines whose instance is terminating, keyed like the queue. */
  private readonly terminations: TerminationFollower;

  constructor(private readonly d: MachineReconcilerDeps) {
    this.pacing = new ReconcilePacing(d.clock, d);
    this.terminations = new TerminationFollower(d.clock, d.terminationFollow);
    this.notes = new CarriedNotes(d.clock, d.carryNotesMs);
  }

  /** Lifts the backoff of a Machine so that its next reconcile runs at once (a Secret it waits for changed). */
  retryNow(req: Request): void {
    this.pacing.retryNow(requestKey(req));
  }

  async reconcile(req: Request, ctx: ReconcileContext): Promise<Result | void> {
    const key = requestKey(req);
    const cached = this.d.machines.get(req);
    if (!cached) {
      // Gone: its backoff entries would otherwise stay for the life of the process.
      this.pacing.succeeded(key);
      this.written.forget(key);
      this.terminations.done(key);
      this.notes.forget(key);
      return;
    }
    // Our last write is not in the cache yet: its watch event brings this key back with the fresh copy.
    if (this.written.isStale(key, cached.metadata.resourceVersion)) return;
    const fp = fingerprintOf(cached);
    const wait = this.pacing.remaining(key, fp);
    if (wait !== undefined) return { requeueAfterMs: wait };
    const started = this.d.clock.now();
    const draft = new MachineDraft(clone(cached), this.d.client);
    const notes = this.notes.begin(key, cached.metadata.resourceVersion);
    try {
      const result = await this.reconcileMachine(draft, ctx, notes);
      this.pacing.succeeded(key);
      return result;
    } catch (err) {
      // A wait (a missing Secret, a capacity retry) becomes a requeue; a failure is held back and thrown again.
      return this.pacing.failed(key, fp, started, err);
    } finally {
      const wrote = draft.base.metadata.resourceVersion !== cached.metadata.resourceVersion;
      if (wrote) this.written.record(key, draft.base.metadata.resourceVersion);
      this.notes.end(key, wrote ? draft.base.metadata.resourceVersion : undefined, notes);
    }
  }

  private async reconcileMachine(draft: MachineDraft, ctx: ReconcileContext, notes: ReconcileNotes): Promise<Result | void> {
    const { d } = this;
    const log = ctx.log.child({ machine: `${draft.key.namespace}/${draft.key.name}` });
    const deleting = !!draft.machine.metadata.deletionTimestamp;

    if (d.migrationEnabled) {
      const proceed = await this.migrationGate(draft, log, ctx.signal);
      if (!proceed) return;
    }

    // Validation runs after this branch (the reference validates first), so a machine that became invalid while
    // being deleted, e.g. its cluster label removed, is still deleted rather than stuck.
    if (deleting) return this.reconcileDelete(draft, ctx, log, notes);

    const errs = validateMachine(draft.machine);
    if (errs.length > 0) {
      const err = new MachineValidationError(draft.key.name, errs);
      d.events.event(draft.machine, 'Warning', 'FailedValidate', 'Validate', err.message);
      throw err;
    }
    if (!(draft.machine.metadata.finalizers ?? []).includes(MachineFinalizer)) {
      const m = clone(draft.machine);
      m.metadata.finalizers = [...(m.metadata.finalizers ?? []), MachineFinalizer];
      // The update event re-triggers this reconcile.
      await d.client.update(Machines, m, { signal: ctx.signal });
      return;
    }

    if (draft.machine.status?.phase === PhaseFailed) {
      log.debug("machine is in phase Failed; won't reconcile", {}, 3);
      return;
    }

    const actx = this.actuatorContext(ctx, log, notes);
    let exists: boolean;
    try {
      exists = await d.actuator.exists(draft.machine, actx);
    } catch (err) {
      this.setCondition(draft, unknownCondition(InstanceExistsCondition, ErrorCheckingProviderReason, `Failed to check if machine exists: ${messageOf(err)}`));
      reportMissingSecret(draft.machine, err, isMachineProvisioned(draft.machine) ? 'Update' : 'Create', d.events, d.clock.now());
      await this.updateStatusLogged(draft, currentPhase(draft.machine), err, log, ctx.signal);
      const after = requeueAfterOf(err);
      if (after !== undefined) return { requeueAfterMs: after };
      throw asError(err);
    }

    if (exists) {
      markSecretsAvailable(draft.machine, d.clock.now());
      // The instance is there: a run of capacity refusals is over. (Not when create returns: an accepted
      // request can still be refused later, as GCE does in the insert operation.)
      this.endCapacityWindow(draft, 'created');
      try {
        await d.actuator.update(draft.machine, actx);
      } catch (err) {
        log.warn('actuator update failed', { error: messageOf(err) });
        await this.updateStatusLogged(draft, currentPhase(draft.machine), err, log, ctx.signal);
        return { requeueAfterMs: requeueAfterOf(err) ?? d.requeueAfterMs };
      }
      // Set after Update so that the actuator cannot clobber it.
      this.setCondition(draft, trueCondition(InstanceExistsCondition));
      if (!isMachineProvisioned(draft.machine)) {
        await this.updateStatus(draft, currentPhase(draft.machine), undefined, ctx.signal);
        return { requeueAfterMs: d.requeueAfterMs };
      }
      const nodeName = draft.machine.status?.nodeRef?.name;
      if (!draft.machine.status?.nodeRef) {
        await this.updateStatus(draft, PhaseProvisioned, undefined, ctx.signal);
        return { requeueAfterMs: d.requeueAfterMs };
      }
      await this.updateStatus(draft, PhaseRunning, undefined, ctx.signal);
      // The Node went before the instance did (it is shutting down, or was removed out of band): nothing
      // else will bring this Machine back until the resync, so look again until the instance is gone.
      if (d.nodeExists && !d.nodeExists(nodeName ?? '')) return { requeueAfterMs: d.requeueAfterMs };
      return;
    }

    if (isMachineProvisioned(draft.machine)) {
      // The instance was removed outside the Machine API.
      this.setCondition(draft, falseCondition(InstanceExistsCondition, InstanceMissingReason, 'Warning', 'Instance not found on provider'));
      await this.updateStatus(draft, PhaseFailed, new Error("can't find created instance"), ctx.signal);
      return;
    }

    this.setCondition(draft, falseCondition(InstanceExistsCondition, InstanceNotCreatedReason, 'Warning', 'Instance has not been created'));
    // The reference writes Provisioning and waits for its own watch event to call Create;
    // here one pass does both, and Provisioning lands in the same status write as what Create learnt.
    let createErr: unknown;
    try {
      await d.actuator.create(draft.machine, actx);
    } catch (err) {
      createErr = err;
    }
    if (createErr === undefined) markSecretsAvailable(draft.machine, d.clock.now());
    else reportMissingSecret(draft.machine, createErr, 'Create', d.events, d.clock.now());
    if (createErr !== undefined && isInvalidMachineConfiguration(createErr)) {
      await this.updateStatus(draft, PhaseFailed, createErr, ctx.signal);
      return;
    }
    const refusal = findError(createErr, InsufficientCapacityError);
    if (refusal) return this.capacityRefused(draft, refusal, ctx.signal);
    // A RequeueAfter is a wait the actuator asks for, not an outcome: it neither extends nor ends the window.
    if (createErr !== undefined && requeueAfterOf(createErr) === undefined) this.endCapacityWindow(draft, 'other-error');
    // Whatever the actuator learnt (above all the new instance's id) is written before anything else can
    // fail, so a created instance is never forgotten.
    await this.updateStatus(draft, currentPhase(draft.machine) || PhaseProvisioning, undefined, ctx.signal);
    if (createErr !== undefined) {
      const after = requeueAfterOf(createErr);
      if (after !== undefined) return { requeueAfterMs: after };
      throw asError(createErr);
    }
    return { requeueAfterMs: d.requeueAfterMs };
  }

  private async reconcileDelete(draft: MachineDraft, ctx: ReconcileContext, log: Logger, notes: ReconcileNotes): Promise<Result | void> {
    const { d } = this;
    if (!(await writtenUnlessGone(() => this.updateStatus(draft, PhaseDeleting, undefined, ctx.signal)))) return;
    if (!(draft.machine.metadata.finalizers ?? []).includes(MachineFinalizer)) return;
    // The drain controller's status patch re-triggers us once the node is drained.
    if (!isConditionTrue(draft.machine.status?.conditions, DrainedCondition)) return;
    if (hasPreTerminateHooks(draft.machine)) return;

    const actx = this.actuatorContext(ctx, log, notes);
    try {
      await d.actuator.delete(draft.machine, actx);
      markSecretsAvailable(draft.machine, d.clock.now());
    } catch (err) {
      // A missing Secret is never a reason to let go: the instance may exist, and only its credentials can
      // terminate it. The finalizer stays and the condition says what the deletion waits for.
      reportMissingSecret(draft.machine, err, 'Delete', d.events, d.clock.now());
      await this.persistLogged(draft, log, ctx.signal);
      // Only an invalid spec on a machine that never got addresses lets deletion go on.
      if ((draft.machine.status?.addresses?.length ?? 0) > 0 || !isInvalidMachineConfiguration(err)) {
        const after = requeueAfterOf(err);
        if (after !== undefined) return { requeueAfterMs: after };
        throw asError(err);
      }
      log.info('actuator delete rejected an invalid configuration for a machine without addresses; proceeding', { error: messageOf(err) });
    }
    let exists: boolean;
    try {
      exists = await d.actuator.exists(draft.machine, actx);
    } catch (err) {
      const after = requeueAfterOf(err);
      if (after !== undefined) return { requeueAfterMs: after };
      throw asError(err);
    }
    if (!(await writtenUnlessGone(() => draft.persist(ctx.signal)))) return;
    // Terminations take seconds: look again soon, then less often (not a fixed requeueAfterMs, which would
    // make every delete last at least that long).
    const key = requestKey(draft.key);
    if (exists) return { requeueAfterMs: this.terminations.next(key) };
    this.terminations.done(key);

    const nodeName = draft.machine.status?.nodeRef?.name;
    if (nodeName) await deleteOwnNode(d.client, draft.machine, nodeName, log, ctx.signal);
    const m = clone(draft.machine);
    m.metadata.finalizers = (m.metadata.finalizers ?? []).filter((f) => f !== MachineFinalizer);
    await writtenUnlessGone(() => d.client.update(Machines, m, { signal: ctx.signal }));
  }

  /** Returns whether reconciliation may continue. */
  private async migrationGate(draft: MachineDraft, log: Logger, signal: AbortSignal): Promise<boolean> {
    const gate = machineMigrationDecision(draft.machine);
    switch (gate.kind) {
      case 'sync-authority':
        (draft.machine.status ??= {}).authoritativeAPI = gate.authoritativeAPI;
        await draft.persist(signal);
        return false;
      case 'unknown':
        log.error('unknown status.authoritativeAPI; not reconciling', { authoritativeAPI: gate.authoritativeAPI });
        return false;
      default:
        if (gate.condition) {
          this.setCondition(draft, gate.condition);
          await this.updateStatus(draft, currentPhase(draft.machine), undefined, signal);
        }
        return gate.kind === 'active';
    }
  }

  /**
   * A create the cloud refused for want of capacity: recorded on the Machine, retried while the window from
   * the first refusal lasts, and the Machine failed with InsufficientResources once it is over, so that the
   * autoscaler sees the failure and tries another MachineSet.
   */
  private async capacityRefused(draft: MachineDraft, refusal: InsufficientCapacityError, signal: AbortSignal): Promise<Result | void> {
    const windowMs = this.d.capacityRetryWindowMs ?? 120_000;
    const verdict = judgeRefusal(windowMs, firstRefusalOf(draft.machine), this.d.clock.now());
    const status = (draft.machine.status ??= {});
    // Replaced rather than set: a new message must not move the first refusal's time.
    const others = (status.conditions ?? []).filter((c) => c.type !== CapacityAvailableCondition);
    status.conditions = setCondition(others, refusedCondition(refusal, verdict.sinceMs, windowMs), this.d.clock.now());
    if (!verdict.fail) {
      await this.updateStatus(draft, currentPhase(draft.machine) || PhaseProvisioning, undefined, signal);
      throw new CapacityRetry(verdict.windowLeftMs, { cause: refusal });
    }
    await this.updateStatus(draft, PhaseFailed, refusal, signal);
    const waited = windowMs > 0 ? `; no capacity for ${formatDuration(Math.max(0, this.d.clock.now() - verdict.sinceMs))}` : '';
    this.d.events.event(draft.machine, 'Warning', 'InsufficientResources', 'Create', `${draft.machine.metadata.name ?? ''}: ${refusal.message}${waited}`);
    this.d.metrics.recordCapacityFailure({ namespace: draft.key.namespace, zone: refusal.zone, instanceType: refusal.instanceType, code: refusal.cloudCode });
  }

  /** An instance that exists, or a create that failed for another reason, ends a run of refusals (Machines that never had one get no condition). */
  private endCapacityWindow(draft: MachineDraft, how: 'created' | 'other-error'): void {
    if (getCondition(draft.machine.status?.conditions, CapacityAvailableCondition)) this.setCondition(draft, windowEndedCondition(how === 'created'));
  }

  private setCondition(draft: MachineDraft, c: Condition): void {
    const status = (draft.machine.status ??= {});
    status.conditions = setCondition(status.conditions, c, this.d.clock.now());
  }

  private async updateStatus(draft: MachineDraft, phase: string, cause: unknown, signal: AbortSignal): Promise<void> {
    const before = draft.base.status?.phase ?? '';
    applyPhase(draft.machine, draft.base, phase, cause, this.d.clock.now());
    await draft.persist(signal);
    if (before !== phase && phase !== PhaseDeleting) {
      const created = Date.parse(draft.machine.metadata.creationTimestamp ?? '');
      if (!Number.isNaN(created)) this.d.metrics.observePhaseTransition(phase, (this.d.clock.now() - created) / 1000);
    }
  }

  private async updateStatusLogged(draft: MachineDraft, phase: string, cause: unknown, log: Logger, signal: AbortSignal): Promise<void> {
    try {
      await this.updateStatus(draft, phase, cause, signal);
    } catch (err) {
      log.error('failed to update machine status', { error: messageOf(err) });
    }
  }

  private async persistLogged(draft: MachineDraft, log: Logger, signal: AbortSignal): Promise<void> {
    try {
      await draft.persist(signal);
    } catch (err) {
      log.error('failed to persist actuator changes', { error: messageOf(err) });
    }
  }

  private actuatorContext(ctx: ReconcileContext, log: Logger, notes: ReconcileNotes): ActuatorContext {
    return { signal: ctx.signal, log, events: this.d.events, metrics: this.d.metrics, notes };
  }
}


const currentPhase = (m: Machine): string => m.status?.phase ?? '';

/**
 * Runs a write to a Machine being deleted; false when the Machine is gone. A pass that started from a cache
 * that has not caught up with the finalizer's removal finds nothing left to do: that is the end of a normal
 * deletion, not an error.
 */
async function writtenUnlessGone(write: () => Promise<unknown>): Promise<boolean> {
  try {
    await write();
    return true;
  } catch (err) {
    if (isNotFound(err)) return false;
    throw err;
  }
}

export const asError = (err: unknown): Error => (err instanceof Error ? err : new Error(String(err)));
