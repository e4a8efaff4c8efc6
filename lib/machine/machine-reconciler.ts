// The machine controller's reconcile: drives a Machine through Provisioning → Provisioned → Running with the
// provider's Actuator, and through Deleting (after the drain controller) to finalizer removal. Deleting is in
// machine-deletion.ts, capacity refusals are in capacity-refusals.ts and status writes in status-writer.ts.
// Reference: https://github.com/openshift/machine-api-operator/blob/main/pkg/controller/machine/controller.go
import {
  ErrorCheckingProviderReason,
  InstanceExistsCondition,
  InstanceMissingReason,
  InstanceNotCreatedReason,
  MachineFinalizer,
  PhaseFailed,
  PhaseProvisioned,
  PhaseProvisioning,
  PhaseRunning,
} from '../apis/constants.js';
import type { Machine } from '../apis/machine-types.js';
import { isMachineProvisioned } from '../apis/machine-predicates.js';
import { isAlreadyExists, isConflict } from '../client/errors.js';
import type { EventRecorder } from '../client/event-recorder.js';
import type { KubeClient } from '../client/kube-client.js';
import { Machines } from '../client/resources.js';
import type { TerminationFollowPolicy } from '../cloud/termination-follower.js';
import { withCloudCallContext } from '../cloud/call-context.js';
import { isCloudCallDeferred } from '../cloud/deferred-turns.js';
import type { Clock } from '../base/clock.js';
import { WrittenVersions } from '../runtime/written-versions.js';
import type { Logger } from '../base/logger.js';
import { requestKey } from '../runtime/request-key.js';
import type { Informer, ReconcileContext, Reconciler, Request, Result } from '../runtime/types.js';
import type { Actuator, ActuatorContext } from './actuator.js';
import { falseCondition, trueCondition, unknownCondition } from '../apis/conditions.js';
import { CapacityRefusals } from './capacity-refusals.js';
import {
  findError,
  InsufficientCapacityError,
  isInvalidMachineConfiguration,
  messageOf,
  requeueAfterOf,
} from '../apis/errors.js';
import { MachineDeletion } from './machine-deletion.js';
import { MachineDraft } from './machine-writer.js';
import type { KubeObject } from '../apis/meta.js';
import { changesNothingRead, OwnWrites } from './own-writes.js';
import { clone } from './merge-patch.js';
import type { MachineMetrics } from './metrics.js';
import { machineMigrationDecision } from './migration-gate.js';
import { CarriedNotes } from './carried-notes.js';
import type { ReconcileNotes } from './reconcile-notes.js';
import { fingerprintOf, ReconcilePacing } from './reconcile-pacing.js';
import { markSecretsAvailable, reportMissingSecret } from './secrets-available.js';
import { reportRefusedCredentials } from './refused-credentials.js';
import { currentPhase, StatusWriter } from './status-writer.js';
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
  /**
   * The longest a mutating cloud call may wait in the provider's rate limiter before the reconcile gives its
   * worker back and comes again at its turn (default 2 s; the limiter holds the line to three token
   * intervals when those are shorter). Without it a scale-up past the cloud's rate has
   * every worker standing in line for launch tokens while launched Machines wait for their follow-up.
   */
  cloudDeferBeyondMs?: number;
}

const DEFAULT_CLOUD_DEFER_BEYOND_MS = 2_000;

export class MachineReconciler implements Reconciler {
  private readonly pacing: ReconcilePacing;
  private readonly written = new WrittenVersions();
  private readonly own = new OwnWrites();
  /** What a reconcile's actuator calls read, handed to the echo of its own write (see ReconcileNotes). */
  private readonly notes: CarriedNotes;
  private readonly status: StatusWriter;
  private readonly deletion: MachineDeletion;
  private readonly capacity: CapacityRefusals;

  constructor(private readonly d: MachineReconcilerDeps) {
    this.pacing = new ReconcilePacing(d.clock, d);
    this.status = new StatusWriter(d.clock, d.metrics);
    this.deletion = new MachineDeletion(d, this.status);
    this.capacity = new CapacityRefusals(d, this.status);
    this.notes = new CarriedNotes(d.clock, d.carryNotesMs);
  }

  /**
   * Whether a watched update of a Machine asks for no reconcile: it changes only fields no reconcile reads, or it
   * is the echo of this controller's own write (see OwnWrites). A resync always asks for one.
   */
  isEcho(obj: KubeObject, old: KubeObject): boolean {
    if (obj === old) return false;
    return changesNothingRead(obj, old) || this.own.isEcho(requestKey(requestOf(obj)), obj, old);
  }

  /**
   * How long a Machine's next reconcile may wait for its launch's turn at the cloud's rate (see
   * Actuator.launchTurnInMs); undefined to reconcile it at once. Only a Machine this controller is to launch:
   * not being deleted, valid, with no phase yet or Provisioning, and ours under the migration gate.
   */
  launchTurnInMs(machine: Machine): number | undefined {
    const { actuator } = this.d;
    if (!actuator.launchTurnInMs || machine.metadata.deletionTimestamp) return undefined;
    const phase = machine.status?.phase;
    if (phase && phase !== PhaseProvisioning) return undefined;
    if (this.d.migrationEnabled && machine.status?.authoritativeAPI !== 'MachineAPI') return undefined;
    // An invalid Machine is told so at once.
    if (validateMachine(machine).length > 0) return undefined;
    return actuator.launchTurnInMs(machine, this.d.cloudDeferBeyondMs ?? DEFAULT_CLOUD_DEFER_BEYOND_MS);
  }

  /** Lifts the backoff of a Machine so that its next reconcile runs at once (a Secret it waits for changed). */
  retryNow(req: Request): void {
    this.pacing.retryNow(requestKey(req));
  }

  async reconcile(req: Request, ctx: ReconcileContext): Promise<Result | void> {
    const key = requestKey(req);
    // From here on every change to the Machine is looked at again, the echo of the last write included: a pass
    // that finds a copy older than that write (below) leaves the rest to it.
    this.own.clear(key);
    const cached = this.d.machines.get(req);
    if (!cached) {
      // Gone: its backoff entries would otherwise stay for the life of the process.
      this.pacing.succeeded(key);
      this.written.forget(key);
      this.deletion.forget(key);
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
    // The echoes of a deletion's writes are left to bring the Machine back: each step waits on someone else.
    let noted = false;
    if (!cached.metadata.deletionTimestamp)
      draft.beforeWrite = (expected) => {
        noted = true;
        this.own.note(key, expected);
      };
    const notes = this.notes.begin(key, cached.metadata.resourceVersion);
    try {
      const result = await withCloudCallContext(
        { key: cached.metadata.uid ?? key, deferBeyondMs: this.d.cloudDeferBeyondMs ?? DEFAULT_CLOUD_DEFER_BEYOND_MS },
        () => this.reconcileMachine(draft, ctx, notes),
      );
      // A create the cloud accepted is not an outcome yet (GCE can still refuse the insert in its operation):
      // were it to reset the backoff, each accepted-then-refused create would start the waits over and a quota
      // storm would become a tight loop of launches. The backoff starts over once the instance has shown up.
      if (isMachineProvisioned(draft.machine) || draft.machine.metadata.deletionTimestamp) this.pacing.succeeded(key);
      return result;
    } catch (err) {
      // Someone else wrote the Machine after it was read (NodeLink's nodeRef beside our phase, as a Node joins):
      // the watch brings the newer copy, and with it this key, at once. Thrown, the conflict would wait out the
      // queue's backoff, whose shared 10/s bucket held each of the hundreds of conflicts of a 1,000-Machine
      // scale-up for up to half a minute.
      if (isConflict(err) && !isAlreadyExists(err)) {
        ctx.log.debug(
          'the machine changed while it was reconciled; its newer copy comes back through the watch',
          {},
          4,
        );
        return;
      }
      // A wait (a missing Secret, a capacity retry) becomes a requeue; a failure is held back and thrown again.
      return this.pacing.failed(key, fp, started, err);
    } finally {
      const wrote = draft.base.metadata.resourceVersion !== cached.metadata.resourceVersion;
      if (wrote) this.written.record(key, draft.base.metadata.resourceVersion);
      // Only an echo that reaches a reconcile may be answered by this one's notes: the next reconcile at the
      // version of a noted write (its echo dropped) was brought by something else (a Node gone, a requeue) and
      // reads afresh.
      this.notes.end(key, wrote && !noted ? draft.base.metadata.resourceVersion : undefined, notes);
    }
  }

  /** `afterCreate`: the pass that follows a create in the same reconcile (see the end of this method). */
  private async reconcileMachine(
    draft: MachineDraft,
    ctx: ReconcileContext,
    notes: ReconcileNotes,
    afterCreate = false,
  ): Promise<Result | void> {
    const { d } = this;
    const log = ctx.log.child({ machine: `${draft.key.namespace}/${draft.key.name}` });
    const deleting = !!draft.machine.metadata.deletionTimestamp;

    if (d.migrationEnabled) {
      const proceed = await this.migrationGate(draft, log, ctx.signal);
      if (!proceed) return;
    }

    // Validation runs after this branch (the reference validates first), so a machine that became invalid while
    // being deleted, e.g. its cluster label removed, is still deleted rather than stuck.
    if (deleting) return this.deletion.reconcile(draft, this.actuatorContext(ctx, log, notes));

    const errs = validateMachine(draft.machine);
    if (errs.length > 0) {
      const err = new MachineValidationError(draft.key.name, errs);
      d.events.event(draft.machine, 'Warning', 'FailedValidate', 'Validate', err.message);
      throw err;
    }
    if (!(draft.machine.metadata.finalizers ?? []).includes(MachineFinalizer)) {
      const m = clone(draft.machine);
      m.metadata.finalizers = [...(m.metadata.finalizers ?? []), MachineFinalizer];
      // The reference returns here and goes on in the reconcile of the update's echo; this pass goes on from
      // the written copy instead, and the echo costs nothing.
      draft.beforeWrite?.(m);
      draft.rebase(await d.client.update(Machines, m, { signal: ctx.signal }));
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
      this.status.setCondition(
        draft,
        unknownCondition(
          InstanceExistsCondition,
          ErrorCheckingProviderReason,
          `Failed to check if machine exists: ${messageOf(err)}`,
        ),
      );
      const verb = isMachineProvisioned(draft.machine) ? 'Update' : 'Create';
      reportMissingSecret(draft.machine, err, verb, d.events, d.clock.now());
      reportRefusedCredentials(draft.machine, err, verb, d.events);
      await this.status.updateStatusLogged(draft, currentPhase(draft.machine), err, log, ctx.signal);
      const after = requeueAfterOf(err);
      if (after !== undefined) return { requeueAfterMs: after };
      throw asError(err);
    }

    if (exists) {
      markSecretsAvailable(draft.machine, d.clock.now());
      // The instance is there: a run of capacity refusals is over. (Not when create returns: an accepted
      // request can still be refused later, as GCE does in the insert operation.)
      this.capacity.ended(draft, 'created');
      try {
        await d.actuator.update(draft.machine, actx);
      } catch (err) {
        log.warn('actuator update failed', { error: messageOf(err) });
        await this.status.updateStatusLogged(draft, currentPhase(draft.machine), err, log, ctx.signal);
        return { requeueAfterMs: requeueAfterOf(err) ?? d.requeueAfterMs };
      }
      // Set after Update so that the actuator cannot clobber it.
      this.status.setCondition(draft, trueCondition(InstanceExistsCondition));
      if (!isMachineProvisioned(draft.machine)) {
        await this.status.updateStatus(draft, currentPhase(draft.machine), undefined, ctx.signal);
        return { requeueAfterMs: d.requeueAfterMs };
      }
      const nodeName = draft.machine.status?.nodeRef?.name;
      if (!draft.machine.status?.nodeRef) {
        await this.status.updateStatus(draft, PhaseProvisioned, undefined, ctx.signal);
        return { requeueAfterMs: d.requeueAfterMs };
      }
      await this.status.updateStatus(draft, PhaseRunning, undefined, ctx.signal);
      // The Node went before the instance did (it is shutting down, or was removed out of band): nothing
      // else will bring this Machine back until the resync, so look again until the instance is gone.
      if (d.nodeExists && !d.nodeExists(nodeName ?? '')) return { requeueAfterMs: d.requeueAfterMs };
      return;
    }

    if (isMachineProvisioned(draft.machine)) {
      // The instance was removed outside the Machine API.
      this.status.setCondition(
        draft,
        falseCondition(InstanceExistsCondition, InstanceMissingReason, 'Warning', 'Instance not found on provider'),
      );
      await this.status.updateStatus(draft, PhaseFailed, new Error("can't find created instance"), ctx.signal);
      return;
    }

    this.status.setCondition(
      draft,
      falseCondition(InstanceExistsCondition, InstanceNotCreatedReason, 'Warning', 'Instance has not been created'),
    );
    // The reference writes Provisioning and waits for its own watch event to call Create;
    // here one pass does both, and Provisioning lands in the same status write as what Create learnt.
    let createErr: unknown;
    try {
      await d.actuator.create(draft.machine, actx);
    } catch (err) {
      createErr = err;
      // A wait the actuator asks for (the cloud's rate, a requeue) is not a failure; anything else is logged
      // at warning level, as the reference does, so `grep ^W` finds why a Machine is not coming up.
      if (requeueAfterOf(err) === undefined) log.warn('failed to create machine', { error: messageOf(err) });
    }
    if (createErr === undefined) markSecretsAvailable(draft.machine, d.clock.now());
    else reportMissingSecret(draft.machine, createErr, 'Create', d.events, d.clock.now());
    if (createErr !== undefined && isInvalidMachineConfiguration(createErr)) {
      await this.status.updateStatus(draft, PhaseFailed, createErr, ctx.signal);
      return;
    }
    const refusal = findError(createErr, InsufficientCapacityError);
    if (refusal) return this.capacity.refused(draft, refusal, ctx.signal);
    // A RequeueAfter is a wait the actuator asks for, not an outcome: it neither extends nor ends the window.
    if (createErr !== undefined && requeueAfterOf(createErr) === undefined) this.capacity.ended(draft, 'other-error');
    // A launch deferred for the cloud's rate was never sent and taught nothing: the pass at its turn writes
    // Provisioning together with what its launch learns, one status write instead of two.
    const deferredMs = isCloudCallDeferred(createErr) ? requeueAfterOf(createErr) : undefined;
    if (deferredMs !== undefined) return { requeueAfterMs: deferredMs };
    // Whatever the actuator learnt (above all the new instance's id) is written before anything else can
    // fail, so a created instance is never forgotten.
    await this.status.updateStatus(draft, currentPhase(draft.machine) || PhaseProvisioning, undefined, ctx.signal);
    if (createErr !== undefined) {
      const after = requeueAfterOf(createErr);
      if (after !== undefined) return { requeueAfterMs: after };
      throw asError(createErr);
    }
    if (afterCreate) return { requeueAfterMs: d.requeueAfterMs };
    // What the reconcile of this write's echo would do (look at the new instance, record it, go Provisioned)
    // is done now, from the written copy and with what the launch learnt in the notes: one reconcile, not two.
    return this.reconcileMachine(draft, ctx, notes, true);
  }

  /** Returns whether reconciliation may continue. */
  private async migrationGate(draft: MachineDraft, log: Logger, signal: AbortSignal): Promise<boolean> {
    const gate = machineMigrationDecision(draft.machine);
    switch (gate.kind) {
      case 'sync-authority':
        (draft.machine.status ??= {}).authoritativeAPI = gate.authoritativeAPI;
        // The reconcile of this write's echo goes on.
        await draft.persist(signal, { echo: true });
        return false;
      case 'unknown':
        log.error('unknown status.authoritativeAPI; not reconciling', { authoritativeAPI: gate.authoritativeAPI });
        return false;
      default:
        if (gate.condition) {
          this.status.setCondition(draft, gate.condition);
          await this.status.updateStatus(draft, currentPhase(draft.machine), undefined, signal);
        }
        return gate.kind === 'active';
    }
  }

  private actuatorContext(ctx: ReconcileContext, log: Logger, notes: ReconcileNotes): ActuatorContext {
    return { signal: ctx.signal, log, events: this.d.events, metrics: this.d.metrics, notes };
  }
}

const requestOf = (obj: KubeObject): Request => ({
  namespace: obj.metadata.namespace || undefined,
  name: obj.metadata.name ?? '',
});

export const asError = (err: unknown): Error => (err instanceof Error ? err : new Error(String(err)));
