// The cloud actuator template: what every cloud's actuator does the same way, written once. A provider extends
// CloudActuator with its cloud ports (build the scope, look the Machine's instance up, launch, terminate, what
// to record from an instance) and inherits:
// - the scope, and the unknown-fields warning once per Machine generation;
// - invalid-spec handling: a spec that does not decode never launched anything unless an instance is on record,
//   so exists() says false and create() fails the Machine with InvalidConfiguration;
// - no look-up for a Machine that never launched anything: creation is idempotent at every cloud (a launch
//   token, or the Machine's name), so exists() answers false without a call;
// - ONE eventual-consistency rule (DeleteGuard): an instance whose id is known that no read shows, and that was
//   not seen terminating, is waited for with a short and growing requeue within one visibility window after its
//   launch (reads may lag behind a launch); a deleted Machine keeps its
//   finalizer until its instance was seen terminating or the window passed with nothing found;
// - the launch ledger for clouds that learn the instance id only from the launch's reply;
// - failure reporting (metrics, Failed<Op> events), the Create and Delete events (Delete once), the Updated
//   event only on change, and the creation condition;
// - what a reconcile read travels through that reconcile in the actuator context (exists → update,
//   delete → exists), and to the echo of its own write, instead of living in per-provider maps;
// - the per-Machine memory that is left (announcements, ensured memberships), forgotten in one place when the
//   Machine's deletion completes.
import type { Machine } from '../../apis/machine-types.js';
import { isMachineProvisioned } from '../../apis/machine-predicates.js';
import type { Clock } from '../../base/clock.js';
import { DEFAULT_VISIBILITY_WINDOW_MS, DeleteGuard, type RecordedLaunch } from '../../cloud/delete-guard.js';
import { LaunchLedger } from '../../cloud/launch-ledger.js';
import { setProviderCondition } from '../../cloud/provider-condition.js';
import { notesOf, type Actuator, type ActuatorContext } from '../actuator.js';
import { emitUpdatedWhenChanged, machineChangeFingerprint, reportActuatorFailures, scopeForDelete, type MachineChangeMark } from '../actuator-reporting.js';
import { isInvalidMachineConfiguration } from '../errors.js';
import type { InstanceAction } from '../metrics.js';
import { MachineCreationFailedReason, MachineCreationSucceededReason } from '../../apis/constants.js';
import { NoteKey } from '../reconcile-notes.js';
import { MachineMemory } from './machine-memory.js';

/** The provider status fields the template reads and writes; every provider's status has them. */
export interface CloudProviderStatus {
  instanceId?: string | null;
  instanceState?: string | null;
  conditions?: Array<{ type: string; status: string; lastTransitionTime?: string }>;
}

/** What the template needs of a provider's per-call scope. */
export interface CloudMachineScope {
  readonly machine: Machine;
  readonly status: CloudProviderStatus;
  readonly unknownFields: readonly string[];
  /** Writes `status` back onto machine.status.providerStatus. */
  saveStatus(): void;
}

export interface CreationCondition {
  type: string;
  status: 'True' | 'False';
  reason: string;
  message: string;
}

export interface CloudActuatorSettings {
  clock: Clock;
  /** Whether a state on the instance-state annotation means the instance is terminating or terminated. */
  isTerminating(state: string): boolean;
  /** The cloud names the instance only in the launch's reply: a launch ledger guards the gap until it is on record. */
  idFromLaunchReply: boolean;
  /** How long after a launch reads may not show the instance (default DEFAULT_VISIBILITY_WINDOW_MS). */
  visibilityWindowMs?: number;
  /** The provider condition that records creation (MachineCreation, MachineCreated). */
  creationCondition: string;
  /** Upserts a condition into the provider status; providers whose conditions have their own shape pass theirs. */
  setCondition?: (status: CloudProviderStatus, cond: CreationCondition, nowIso: string) => void;
  /** The mapi_instance_*_failed reason of each operation when no step named one (the reference's words). */
  failureReasons: Record<InstanceAction, string>;
  /** A failure in the words the Machine's events show. */
  describeError(err: unknown): string;
  /** The instance id in the provider status, read without decoding the spec (which may be invalid). */
  recordedInstanceId(machine: Machine): string | undefined;
}

/** What delete() learnt: whether an instance of the Machine is still there (terminating). */
const DELETE_LEFT_INSTANCE = new NoteKey<boolean>('cloud-actuator/delete-left-instance');

export abstract class CloudActuator<S extends CloudMachineScope, I> implements Actuator {
  protected readonly clock: Clock;
  protected readonly guard: DeleteGuard;
  /** Present when the cloud names the instance only in the launch's reply. */
  protected readonly launches: LaunchLedger | undefined;
  protected readonly memory = new MachineMemory();
  /** What a read of this reconcile showed of the Machine's instance. */
  private readonly seenKey = new NoteKey<I>('cloud-actuator/seen');

  constructor(private readonly settings: CloudActuatorSettings) {
    this.clock = settings.clock;
    this.launches = settings.idFromLaunchReply ? new LaunchLedger({ clock: settings.clock, windowMs: settings.visibilityWindowMs ?? DEFAULT_VISIBILITY_WINDOW_MS }) : undefined;
    this.guard = new DeleteGuard({ clock: settings.clock, ledger: this.launches, windowMs: settings.visibilityWindowMs, isTerminating: settings.isTerminating });
  }

  // ---- the provider's ports ----

  /** Decodes the spec and status, reads credentials, picks clients. Throws InvalidMachineConfigurationError for a bad spec. */
  protected abstract newScope(machine: Machine, signal: AbortSignal): Promise<S>;
  /** Launches the Machine's instance (idempotently) and records it; see launch() and creationSucceeded(). */
  protected abstract createInstance(scope: S, ctx: ActuatorContext): Promise<void>;
  /**
   * The Machine's instance as exists() counts it (not terminated); 'ended' when a read showed it terminated
   * (gone for good: nothing to wait for); undefined when no read shows it. Batched reads are welcome.
   */
  protected abstract lookUp(scope: S, ctx: ActuatorContext): Promise<I | 'ended' | undefined>;
  /** Records what `seen` (this reconcile's read, if any) says onto the Machine; joins load balancers, tags. */
  protected abstract updateInstance(scope: S, seen: I | undefined, ctx: ActuatorContext): Promise<void>;
  /** Starts terminating the instance. Returns whether an instance is still there; see released() for none. */
  protected abstract deleteInstance(scope: S, ctx: ActuatorContext): Promise<boolean>;
  /** The id of an instance as the provider status records it. */
  protected abstract idOf(instance: I): string | undefined;
  /** Whether the instance is still booting (a view of it taken before the Node registered is outdated). */
  protected abstract isBooting(instance: I): boolean;
  abstract referencedSecrets(machine: Machine): string[];

  // ---- the Actuator ----

  async create(machine: Machine, ctx: ActuatorContext): Promise<void> {
    await this.reported('create', machine, ctx, async () => this.createInstance(await this.scope(machine, ctx), ctx));
  }

  async exists(machine: Machine, ctx: ActuatorContext): Promise<boolean> {
    const notes = notesOf(ctx);
    const deleting = !!machine.metadata.deletionTimestamp;
    // Being deleted: the delete of this reconcile has just read both ways; its answer stands. Not deleting
    // and nothing ever launched: create() is idempotent, so asking the cloud would change nothing. A Machine
    // being deleted is always looked up: nothing may leak.
    const afterDelete = deleting ? notes.get(DELETE_LEFT_INSTANCE) : undefined;
    if (afterDelete !== undefined) return afterDelete;
    if (!deleting && this.neverLaunched(machine)) return false;
    let scope: S;
    try {
      scope = await this.scope(machine, ctx);
    } catch (err) {
      if (isInvalidMachineConfiguration(err) && this.neverLaunched(machine)) return false;
      throw err;
    }
    const uid = machine.metadata.uid ?? '';
    const echoed = deleting ? undefined : notes.takeCarried(this.seenKey);
    if (echoed !== undefined && this.stillCurrent(scope, echoed)) {
      notes.setHandedOn(this.seenKey, echoed);
      return true;
    }
    const found = await this.lookUp(scope, ctx);
    if (found === 'ended') {
      notes.delete(this.seenKey);
      return false;
    }
    if (found !== undefined) {
      notes.set(this.seenKey, found);
      this.guard.seen(uid);
      return true;
    }
    notes.delete(this.seenKey);
    if (deleting) {
      // Asked on its own (no delete() before it in this reconcile): the delete guard's rule decides.
      this.guard.nothingFound(machine, this.recordedLaunch(scope));
      return false;
    }
    if (!this.guard.mayNotShowYet(machine, this.recordedLaunch(scope))) return false;
    if (!(await this.mayStillShow(scope, ctx))) return false;
    ctx.log.info('instance recorded but not yet visible; possible eventual-consistency discrepancy', { instanceId: this.instanceIdOnRecord(scope) });
    throw this.guard.waitForSight(machine);
  }

  async update(machine: Machine, ctx: ActuatorContext): Promise<void> {
    await this.reported('update', machine, ctx, async () => {
      const scope = await this.scope(machine, ctx);
      const before = this.changeMark(machine);
      try {
        await this.updateInstance(scope, notesOf(ctx).get(this.seenKey), ctx);
      } finally {
        emitUpdatedWhenChanged(machine, ctx, before);
      }
    });
  }

  async delete(machine: Machine, ctx: ActuatorContext): Promise<void> {
    await this.reported('delete', machine, ctx, async () => {
      const notes = notesOf(ctx);
      notes.delete(this.seenKey);
      notes.delete(DELETE_LEFT_INSTANCE);
      const scope = await scopeForDelete(machine, () => this.scope(machine, ctx), (err) => this.settings.describeError(err));
      notes.set(DELETE_LEFT_INSTANCE, await this.deleteInstance(scope, ctx));
    });
  }

  // ---- hooks a provider may override ----

  /** What update() compares to decide on the Updated event (see machineChangeFingerprint). */
  protected changeMark(machine: Machine): MachineChangeMark {
    return machineChangeFingerprint(machine);
  }

  /**
   * exists() found nothing for an instance on record that was never seen, within the visibility window: false
   * when the provider knows better than to wait (the cloud said the launch failed, or create() may safely replay it).
   */
  protected async mayStillShow(_scope: S, _ctx: ActuatorContext): Promise<boolean> {
    return true;
  }

  // ---- helpers for the provider's steps ----

  /** The id on record, else the one this process launched and has not seen recorded yet. */
  protected instanceIdOnRecord(scope: S): string | undefined {
    const recorded = scope.status.instanceId ?? undefined;
    return this.launches ? this.launches.instanceIdOf(scope.machine.metadata.uid ?? '', recorded) : recorded || undefined;
  }

  /**
   * Sends a launch under the ledger: until it answers, the Machine may have an instance whose id is unknown.
   * `mayHaveMade` says whether a failed launch may still have made one (a lost reply, a timeout, a 5xx).
   */
  protected async launch<T>(scope: S, send: () => Promise<T>, idOf: (made: T) => string | undefined, mayHaveMade: (err: unknown) => boolean): Promise<T> {
    const uid = scope.machine.metadata.uid ?? '';
    this.launches?.sending(uid);
    let made: T;
    try {
      made = await send();
    } catch (err) {
      if (!mayHaveMade(err)) this.launches?.refused(uid);
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

  /** What this reconcile read no longer describes the Machine's instance (the provider replaced it). */
  protected forgetSeen(ctx: ActuatorContext): void {
    notesOf(ctx).delete(this.seenKey);
  }

  /** The creation condition turned True, and the status written back. */
  protected creationSucceeded(scope: S, message = 'Machine successfully created'): void {
    this.setCreation(scope, { type: this.settings.creationCondition, status: 'True', reason: MachineCreationSucceededReason, message });
  }

  /** The creation condition turned False with the cloud's words, and the status written back. */
  protected creationFailed(scope: S, message: string): void {
    this.setCreation(scope, { type: this.settings.creationCondition, status: 'False', reason: MachineCreationFailedReason, message });
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
      ctx.log.info('instance launched but not visible yet; keeping the finalizer until it shows or the window passes', fields);
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

  // ---- internals ----

  private async scope(machine: Machine, ctx: ActuatorContext): Promise<S> {
    const scope = await this.newScope(machine, ctx.signal);
    if (scope.unknownFields.length > 0) {
      const uid = machine.metadata.uid ?? machine.metadata.name ?? '';
      const generation = `unknown-fields/${machine.metadata.generation ?? 0}`;
      if (!this.memory.has(uid, generation)) {
        this.memory.forgetStartingWith(uid, 'unknown-fields/');
        this.memory.add(uid, generation);
        ctx.events.event(machine, 'Warning', 'UnknownFields', 'Validate', `providerSpec fields not known to this provider are ignored: ${scope.unknownFields.join(', ')}`);
      }
    }
    return scope;
  }

  private reported(op: InstanceAction, machine: Machine, ctx: ActuatorContext, work: () => Promise<void>): Promise<void> {
    return reportActuatorFailures(op, machine, ctx, { reason: this.settings.failureReasons[op], describe: (err) => this.settings.describeError(err) }, work);
  }

  /** Nothing was ever launched for the Machine: not provisioned, no id on record, none answered to a launch here. */
  private neverLaunched(machine: Machine): boolean {
    if (isMachineProvisioned(machine) || this.settings.recordedInstanceId(machine)) return false;
    return !this.launches?.instanceIdOf(machine.metadata.uid ?? '', undefined);
  }

  /** Whether what the previous reconcile read still describes the instance on record. */
  private stillCurrent(scope: S, seen: I): boolean {
    const recorded = scope.status.instanceId;
    if (!recorded || this.idOf(seen) !== recorded) return false;
    return !scope.machine.status?.nodeRef || !this.isBooting(seen);
  }

  /** What the provider status says of the launch: the instance id and when creation was recorded. */
  protected recordedLaunch(scope: S): RecordedLaunch {
    return { instanceId: scope.status.instanceId, recordedAt: this.createdAt(scope) };
  }

  private setCreation(scope: S, cond: CreationCondition): void {
    const set = this.settings.setCondition ?? ((status: CloudProviderStatus, c: CreationCondition, now: string) => setProviderCondition(status as Parameters<typeof setProviderCondition>[0], c, now));
    set(scope.status, cond, this.nowIso());
    scope.saveStatus();
  }
}
