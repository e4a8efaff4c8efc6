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
// - the typing of a failed launch (InvalidConfiguration, InsufficientCapacity or retried) and of a failed
//   terminate call, the terminating record, and the requeue delay while waiting on the cloud (steps.ts);
// - what a reconcile read travels through that reconcile in the actuator context (exists → update,
//   delete → exists), and to the echo of its own write, instead of living in per-provider maps;
// - capacity fallback for specs with `fallbacks`: which entry to launch next, the pending-launch rule that keeps
//   a Machine to one instance, the memory of refused choices and the recording of the chosen entry
//   (capacity-entries.ts); the provider only says what its entries are (capacityEntries());
// - the per-Machine memory that is left (announcements, ensured memberships), forgotten in one place when the
//   Machine's deletion completes.
import type { Machine } from '../../apis/machine-types.js';
import { isMachineProvisioned } from '../../apis/machine-predicates.js';
import { readCommonProviderStatus } from '../../cloud/provider-condition.js';
import type { RegionalRateLimiter } from '../../cloud/rate-limiter.js';
import { notesOf, type Actuator, type ActuatorContext } from '../actuator.js';
import {
  emitUpdatedWhenChanged,
  machineChangeFingerprint,
  reportActuatorFailures,
  scopeForDelete,
  type MachineChangeMark,
} from '../actuator-reporting.js';
import { isInvalidMachineConfiguration, RequeueAfterError } from '../../apis/errors.js';
import type { InstanceAction } from '../metrics.js';
import { anyCause, credentialsSecretOf, markRefusedCredentials } from '../refused-credentials.js';
import { NoteKey } from '../reconcile-notes.js';
import type { CloudMachineScope } from './settings.js';
import { CapacityFallback, recordedEntry, type CapacityEntry } from './capacity-entries.js';
import { CloudActuatorSteps } from './steps.js';

/** Where a launch waits for the cloud's write rate: a limiter and the scope it meters. */
export interface LaunchRateLine {
  limiter: RegionalRateLimiter;
  scope: string;
}

/** What delete() learnt: whether an instance of the Machine is still there (terminating). */
const DELETE_LEFT_INSTANCE = new NoteKey<boolean>('cloud-actuator/delete-left-instance');

export abstract class CloudActuator<S extends CloudMachineScope, I> extends CloudActuatorSteps<S> implements Actuator {
  /** What a read of this reconcile showed of the Machine's instance. */
  private readonly seenKey = new NoteKey<I>('cloud-actuator/seen');
  private readonly fallback = new CapacityFallback(this.capacityMemory);

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
    await this.reported('create', machine, ctx, async () => {
      const primary = await this.newScopeOnce(machine, ctx);
      const entries = this.capacityEntries(primary);
      if (!entries) return this.createInstance(primary, ctx);
      await this.fallback.create(entries, ctx, (scope) => this.createInstance(scope, ctx));
    });
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
    const found = await this.withRefusalsNamed(machine, () => this.lookUp(scope, ctx));
    if (found === 'ended') {
      notes.delete(this.seenKey);
      return false;
    }
    if (found !== undefined) {
      notes.set(this.seenKey, found);
      this.guard.seen(uid);
      this.fallback.forget(uid);
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
    ctx.log.info('instance recorded but not yet visible; possible eventual-consistency discrepancy', {
      instanceId: this.instanceIdOnRecord(scope),
    });
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
      const scope = await scopeForDelete(
        machine,
        () => this.scope(machine, ctx),
        (err) => this.settings.describeError(err),
      );
      notes.set(DELETE_LEFT_INSTANCE, await this.deleteInstance(scope, ctx));
    });
  }

  /** See Actuator.launchTurnInMs: asked of the limiter where the launch will wait (launchRateLine). */
  launchTurnInMs(machine: Machine, deferBeyondMs: number): number | undefined {
    const uid = machine.metadata.uid;
    if (!uid || machine.metadata.deletionTimestamp || !this.neverLaunched(machine)) return undefined;
    const line = this.launchRateLine(machine);
    return line?.limiter.turnIn(line.scope, 'mutate', uid, deferBeyondMs);
  }

  // ---- hooks a provider may override ----

  /**
   * Where the Machine's launch will wait for the cloud's write rate: the provider's limiter and the scope it
   * meters (the spec's region or project), told from the Machine alone; undefined when that takes a call or a
   * Secret. With it, a new Machine's first reconcile waits for its launch's turn (launchTurnInMs).
   */
  protected launchRateLine(_machine: Machine): LaunchRateLine | undefined {
    return undefined;
  }

  /**
   * The Machine's capacity entries, the primary first and then each of its providerSpec's fallbacks, each as a
   * scope of its own (the merged spec; the same machine, status and saveStatus); undefined when the spec has no
   * fallbacks. The template picks the entry to launch and the one the Machine runs on (capacity-entries.ts).
   */
  protected capacityEntries(_scope: S): CapacityEntry<S>[] | undefined {
    return undefined;
  }

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

  /** The cloud refused the credentials of this Secret ("namespace/name"): a provider caching Secret reads drops it. */
  protected credentialsRefused(_secret: string): void {}

  // ---- helpers for the provider's steps (the rest are in steps.ts) ----

  /**
   * The provider deleted the Machine's instance to make it again (under the same identity): what this reconcile
   * read no longer describes it, and nothing launched before is waited for.
   */
  protected instanceReplaced(scope: S, ctx: ActuatorContext): void {
    notesOf(ctx).delete(this.seenKey);
    this.launches?.forget(scope.machine.metadata.uid ?? '');
  }

  /** The instance update() records (what this reconcile's read saw, else a fresh read); none yet is waited for. */
  protected toRecord(found: I | 'ended' | undefined): I {
    if (found === undefined || found === 'ended') throw new RequeueAfterError(this.requeueAfterMs);
    return found;
  }

  protected override forget(uid: string): void {
    super.forget(uid);
    this.fallback.forget(uid);
  }

  // ---- internals ----

  /** The scope of the entry the Machine runs on (or is launching on): its primary unless a fallback is recorded. */
  private async scope(machine: Machine, ctx: ActuatorContext): Promise<S> {
    const primary = await this.newScopeOnce(machine, ctx);
    const entries = this.capacityEntries(primary);
    if (!entries) return primary;
    const recorded = recordedEntry(primary.status, entries.length);
    return recorded ? entries[recorded.index]!.scope : primary;
  }

  private async newScopeOnce(machine: Machine, ctx: ActuatorContext): Promise<S> {
    const scope = await this.newScope(machine, ctx.signal);
    if (scope.unknownFields.length > 0) {
      const uid = machine.metadata.uid ?? machine.metadata.name ?? '';
      const generation = `unknown-fields/${machine.metadata.generation ?? 0}`;
      if (!this.memory.has(uid, generation)) {
        this.memory.forgetStartingWith(uid, 'unknown-fields/');
        this.memory.add(uid, generation);
        ctx.events.event(
          machine,
          'Warning',
          'UnknownFields',
          'Validate',
          `providerSpec fields not known to this provider are ignored: ${scope.unknownFields.join(', ')}`,
        );
      }
    }
    return scope;
  }

  private reported(
    op: InstanceAction,
    machine: Machine,
    ctx: ActuatorContext,
    work: () => Promise<void>,
  ): Promise<void> {
    return reportActuatorFailures(
      op,
      machine,
      ctx,
      { reason: this.settings.failureReasons[op], describe: (err) => this.settings.describeError(err) },
      () => this.withRefusalsNamed(machine, work),
    );
  }

  /** Runs cloud work; a refusal of the credentials is marked with the Secret the Machine names. */
  private async withRefusalsNamed<T>(machine: Machine, work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (err) {
      const secret = credentialsSecretOf(machine);
      const refuses = this.settings.refusesCredentials;
      if (secret && refuses && anyCause(err, refuses)) {
        markRefusedCredentials(err, secret, this.settings.describeError(err));
        this.credentialsRefused(secret);
      }
      throw err;
    }
  }

  /** Nothing was ever launched for the Machine: not provisioned, no id on record, none answered to a launch here. */
  private neverLaunched(machine: Machine): boolean {
    const { recordedInstanceId } = this.settings;
    const recorded = recordedInstanceId
      ? recordedInstanceId(machine)
      : readCommonProviderStatus(machine.status?.providerStatus).status.instanceId;
    if (isMachineProvisioned(machine) || recorded) return false;
    return !this.launches?.instanceIdOf(machine.metadata.uid ?? '', undefined);
  }

  /** Whether what the previous reconcile read still describes the instance on record. */
  private stillCurrent(scope: S, seen: I): boolean {
    const recorded = scope.status.instanceId;
    if (!recorded || this.idOf(seen) !== recorded) return false;
    return !scope.machine.status?.nodeRef || !this.isBooting(seen);
  }
}
