// The IBM Cloud VPC actuator.
// Reference: https://github.com/openshift/machine-api-provider-ibmcloud/blob/main/pkg/actuators/machine/reconciler.go
// Where it departs from the reference, on purpose:
// - one IAM-authenticated client per API key and one endpoint look-up per region, reused (the reference gets
//   a new token and GETs the region on every Exists, Create and Update), and client-construction failures
//   are retried, never terminal;
// - the spec's names are resolved to ids once per spec and cached; every list is paged to the end; security
//   groups are looked up in the network resource group; look-up failures are never swallowed;
// - the instance is looked up by id once known, by name within the VPC before that; creation is idempotent
//   by name (a create racing another, or replayed after a lost reply, finds the name taken and adopts the
//   instance), and the instance id is recorded as soon as POST /instances answers;
// - existence checks are batched into one instance list per VPC and window, and update reuses what
//   exists() just saw; a recorded instance that is not visible yet makes exists() wait, not say "gone";
// - one read per decision: create() POSTs on the strength of the look-up exists() just made (a name taken
//   meanwhile answers 409, and the instance is adopted), and the exists() that follows a delete answers
//   from the delete's own fresh read;
// - 429, 5xx and lost replies are retried, never terminal; bad requests are InvalidConfiguration naming the
//   field; spec tags are attached (Global Tagging); "0.0.0.0" is never recorded as an address;
// - DELETE is issued once (not every 20 s while the instance is `deleting`), and Update/Delete events are
//   emitted only when something changed;
// - the stuck-machine replacement (stuck-machine.ts) is kept, without rewriting the phase: the instance is
//   deleted and forgotten, and the machine controller's create makes it again under the same name.
import {
  DEFAULT_VISIBILITY_WINDOW_MS,
  DeleteGuard,
  InsufficientCapacityError,
  InvalidMachineConfigurationError,
  MachineInstanceStateAnnotation,
  LaunchLedger,
  RequeueAfterError,
  TtlCache,
  isMachineProvisioned,
  createMachineError,
  deleteMachineError,
  emitUpdatedWhenChanged,
  failureStep,
  isInvalidMachineConfiguration,
  machineChangeFingerprint,
  reportActuatorFailures,
  scopeForDelete,
  setFailureReason,
  updateMachineError,
  viewCanBeCurrent,
  type Actuator,
  type ActuatorContext,
  type Clock,
  type CloudRateLimits,
  type KubeClient,
  type Machine,
} from '../../lib/index.js';
import { classifyVpcError, describeVpcError } from './errors.js';
import { isVpcApiError } from './vpc-api-error.js';
import { IbmClientFactory, type IbmClientFactoryOptions, type IbmEndpoints } from './ibm-clients.js';
import { addressesOf, buildInstancePrototype, isBooting, machineLabelsFor, providerIdOf, stateToRecord, tagNamesOf } from './instances.js';
import { newMachineScope, secretsReferencedBy, userDataFor, type MachineScope } from './machine-scope.js';
import type { RetryPolicy } from './metered-vpc-api.js';
import { NameResolver } from './name-resolver.js';
import {
  MachineCreatedConditionType,
  MachineCreationFailedReason,
  MachineCreationSucceededReason,
  decodeProviderStatus,
  setCondition,
} from './provider-spec.js';
import {
  looksStuck,
  MachineReplacementConditionType,
  mergesMachineConfigServer,
  ReplacementCompletedReason,
  ReplacementRequestedReason,
  STUCK_MACHINE_TIMEOUT_MS,
} from './stuck-machine.js';
import type { VpcInstance } from './vpc-types.js';

export interface IbmCloudActuatorOptions {
  /** Reads the credentials and user-data Secrets. */
  client: KubeClient;
  clock: Clock;
  /** Endpoint overrides (an emulator, private endpoints); unset = IBM's public endpoints. */
  endpoints?: IbmEndpoints;
  /** Share one factory (and so one rate limiter and one token per API key) with the instance-type catalog. */
  clientFactory?: IbmClientFactory;
  rateLimits?: CloudRateLimits;
  retry?: Partial<RetryPolicy>;
  batchWindowMs?: number;
  createVpcApi?: IbmClientFactoryOptions['createVpcApi'];
  /** Requeue delay while waiting on the VPC (default 20 s, as the reference). */
  requeueAfterMs?: number;
  /**
   * How long a recorded-but-invisible instance is waited for before exists() says false (default 10 min).
   * When set, also the window the delete guard waits for a launched instance to show (default
   * DEFAULT_VISIBILITY_WINDOW_MS, the same for every cloud).
   */
  eventualConsistencyWindowMs?: number;
  /** How long update() may reuse the instance exists() just saw (default 5 s). */
  snapshotTtlMs?: number;
  /**
   * How long what exists() read may answer that Machine's next exists() once, instead of another list
   * (default 1 s; 0 = never): the reconcile that the previous one's own writes trigger.
   */
  repeatCheckReuseMs?: number;
  /** How long resolved name → id mappings are kept (default 1 h). */
  resolutionTtlMs?: number;
  /**
   * How long an instance may run without its Machine getting a Node before it is replaced once, when its
   * Ignition merges the machine config server's config (the reference's 15 min; see stuck-machine.ts); 0 = never.
   */
  stuckMachineTimeoutMs?: number;
}

export type IbmCloudActuator = Actuator;

/**
 * What this process learnt of a Machine's instance moments ago:
 * - unclaimed: a look-up by name showed no instance, and none is on record (create() may POST at once);
 * - seen: delete()'s fresh read (undefined = gone); it answers the exists() that follows, once. (Not the
 *   POST's reply: until a read shows the new instance, exists() must be able to say "not visible yet" before
 *   update() records a providerID, or a lagging VPC would make the Machine look deleted out of band.)
 */
type Sighting = { kind: 'unclaimed' } | { kind: 'seen'; instance: VpcInstance | undefined };

const DEFAULTS = {
  requeueAfterMs: 20_000,
  eventualConsistencyWindowMs: 10 * 60_000,
  snapshotTtlMs: 5_000,
  repeatCheckReuseMs: 1_000,
  stuckMachineTimeoutMs: STUCK_MACHINE_TIMEOUT_MS,
};


/** Whether a failed POST /instances may still have made the instance: no answer, a 5xx or a timeout. */
const mayHaveLaunched = (err: unknown): boolean => !(isVpcApiError(err) && err.status >= 400 && err.status < 500 && err.status !== 408);

export function createIbmCloudActuator(opts: IbmCloudActuatorOptions): IbmCloudActuator {
  return new IbmCloudMachineActuator(opts);
}

class IbmCloudMachineActuator implements Actuator {
  private readonly o: IbmCloudActuatorOptions & typeof DEFAULTS;
  private readonly factory: IbmClientFactory;
  private readonly resolver: NameResolver;
  /** What exists() last saw per Machine UID, for update() in the same reconcile. */
  private readonly snapshots: TtlCache<VpcInstance>;
  /** What a read made moments ago settled per Machine UID, so that the next step need not read again. */
  private readonly sightings: TtlCache<Sighting>;
  /** What exists() last read per Machine UID, for that Machine's next exists(), once. */
  private readonly lastRead: TtlCache<VpcInstance>;
  /** "<instance id>|<tags>" attached by this process. */
  private readonly tagged = new Set<string>();
  /** What this process launched per Machine UID until the status records it (see LaunchLedger). */
  private readonly launches: LaunchLedger;
  /** Keeps a deleted Machine's finalizer while its launched instance may be invisible (see DeleteGuard). */
  private readonly guard: DeleteGuard;
  /** Machine UIDs whose delete was already announced by an event. */
  private readonly deleting = new Set<string>();
  /** "<uid>/<generation>" whose unknown fields were already reported. */
  private readonly warned = new Set<string>();

  constructor(opts: IbmCloudActuatorOptions) {
    this.o = { ...DEFAULTS, ...opts };
    this.factory =
      opts.clientFactory ??
      new IbmClientFactory({
        clock: opts.clock,
        endpoints: opts.endpoints,
        rateLimits: opts.rateLimits,
        retry: opts.retry,
        batchWindowMs: opts.batchWindowMs,
        createVpcApi: opts.createVpcApi,
      });
    this.resolver = new NameResolver(opts.clock, opts.resolutionTtlMs);
    const visibilityWindowMs = opts.eventualConsistencyWindowMs ?? DEFAULT_VISIBILITY_WINDOW_MS;
    this.launches = new LaunchLedger({ clock: opts.clock, windowMs: visibilityWindowMs });
    this.guard = new DeleteGuard({ clock: opts.clock, ledger: this.launches, windowMs: visibilityWindowMs, isTerminating: (state) => state === 'deleting' });
    this.snapshots = new TtlCache(opts.clock, this.o.snapshotTtlMs);
    this.sightings = new TtlCache(opts.clock, this.o.snapshotTtlMs);
    this.lastRead = new TtlCache(opts.clock, this.o.repeatCheckReuseMs);
  }

  private nowIso(): string {
    return new Date(this.o.clock.now()).toISOString();
  }

  private async scope(machine: Machine, ctx: ActuatorContext): Promise<MachineScope> {
    const scope = await newMachineScope(machine, { client: this.o.client, clients: this.factory }, ctx.signal);
    const key = `${machine.metadata.uid ?? machine.metadata.name ?? ''}/${machine.metadata.generation ?? 0}`;
    if (scope.unknownFields.length > 0 && !this.warned.has(key)) {
      this.warned.add(key);
      ctx.events.event(machine, 'Warning', 'UnknownFields', 'Validate', `providerSpec fields not known to this provider are ignored: ${scope.unknownFields.join(', ')}`);
    }
    return scope;
  }

  /** GET /instances/{id}, with 404 as undefined. */
  private async getById(scope: MachineScope, id: string, signal: AbortSignal): Promise<VpcInstance | undefined> {
    try {
      return await scope.clients.vpc.getInstance(id, { signal });
    } catch (err) {
      if (classifyVpcError(err) === 'notFound') return undefined;
      throw err;
    }
  }

  /**
   * The Machine's instance: by the recorded id (a batched list of the VPC, a miss confirmed by GET), else by
   * name within the VPC.
   */
  private async lookup(scope: MachineScope, signal: AbortSignal): Promise<VpcInstance | undefined> {
    const id = this.instanceIdOf(scope);
    const current = viewCanBeCurrent(scope.machine, isBooting);
    if (id) return (await scope.clients.findInstance(scope.spec.vpc, { id }, signal, current)) ?? (await this.getById(scope, id, signal));
    return scope.clients.findInstance(scope.spec.vpc, { name: scope.instanceName }, signal, current);
  }

  /**
   * The instance for exists(): what the delete of this reconcile just read (once), else a look-up.
   * - A Machine with no instance on record that a look-up showed nothing for moments ago is not looked up
   *   again until create() acts on it: creation is safe against a stale "nothing", since a name taken
   *   meanwhile gets 409.
   * - What a look-up found answers the Machine's next check once, within repeatCheckReuseMs: that check is
   *   the reconcile that the writes of the one that read trigger, and the check after it reads afresh.
   */
  private async observe(scope: MachineScope, signal: AbortSignal): Promise<VpcInstance | undefined> {
    const m = scope.machine;
    const uid = m.metadata.uid ?? '';
    const claimless = !scope.status.instanceId && !isMachineProvisioned(m) && !m.metadata.deletionTimestamp;
    const seen = this.sightings.get(uid);
    if (seen?.kind === 'seen') {
      this.sightings.delete(uid);
      this.lastRead.delete(uid);
      return seen.instance;
    }
    if (seen?.kind === 'unclaimed' && claimless) return undefined;
    this.sightings.delete(uid);
    const last = this.lastRead.take(uid);
    if (last && !m.metadata.deletionTimestamp && last.id === scope.status.instanceId && viewCanBeCurrent(m, isBooting)(last)) return last;
    const found = await this.lookup(scope, signal);
    if (!found && claimless) this.sightings.set(uid, { kind: 'unclaimed' });
    if (found && this.o.repeatCheckReuseMs > 0) this.lastRead.set(uid, found);
    return found;
  }

  /** The recorded instance id, else the one this process created for the Machine and has not seen recorded. */
  private instanceIdOf(scope: MachineScope): string | undefined {
    return this.launches.instanceIdOf(scope.machine.metadata.uid ?? '', scope.status.instanceId);
  }

  /** Whether a recorded instance may still be invisible to reads: recorded (MachineCreated) within the window. */
  private recentlyCreated(scope: MachineScope): boolean {
    // Once delete was requested, an instance that is not visible is gone, not late.
    if (scope.status.instanceState === 'deleting') return false;
    const t = createdAt(scope);
    return t === undefined || this.o.clock.now() - t < this.o.eventualConsistencyWindowMs;
  }

  /**
   * What create records the moment the VPC names the instance: enough for exists() to find it by id. Only
   * the provider status: the Machine's metadata (instance-state annotation, labels, providerID) waits for the
   * update that follows, so that creating costs one status write and no metadata write of its own.
   */
  private recordCreated(scope: MachineScope, instance: VpcInstance): void {
    scope.status.instanceId = instance.id;
    scope.status.instanceState = stateToRecord(scope.status.instanceState, instance);
    setCondition(scope.status, { type: MachineCreatedConditionType, status: 'True', reason: MachineCreationSucceededReason, message: 'Machine successfully created' }, this.nowIso());
    if (scope.status.conditions?.some((c) => c.type === MachineReplacementConditionType)) {
      setCondition(scope.status, { type: MachineReplacementConditionType, status: 'True', reason: ReplacementCompletedReason, message: 'Machine replacement completed successfully' }, this.nowIso());
    }
    scope.saveStatus();
  }

  /** Writes what the instance says onto the Machine: providerID, addresses, labels, instance state. */
  private async record(scope: MachineScope, instance: VpcInstance, signal: AbortSignal): Promise<void> {
    const accountId = await scope.clients.accountId(signal);
    const m = scope.machine;
    m.spec = { ...m.spec, providerID: providerIdOf(accountId, scope.clusterId, instance.id) };
    m.status = { ...m.status, addresses: addressesOf(scope.instanceName, instance) };
    m.metadata.labels = { ...m.metadata.labels, ...machineLabelsFor(scope.spec) };
    this.recordCreated(scope, instance);
    m.metadata.annotations = { ...m.metadata.annotations, [MachineInstanceStateAnnotation]: scope.status.instanceState ?? instance.status };
  }

  private failCreation(scope: MachineScope, message: string): void {
    setCondition(scope.status, { type: MachineCreatedConditionType, status: 'False', reason: MachineCreationFailedReason, message }, this.nowIso());
    scope.saveStatus();
  }

  referencedSecrets(machine: Machine): string[] {
    return secretsReferencedBy(machine);
  }

  async create(machine: Machine, ctx: ActuatorContext): Promise<void> {
    return reportActuatorFailures('create', machine, ctx, { reason: 'failed to create instance via ibm vpc client', describe: describeVpcError }, () => this.doCreate(machine, ctx));
  }

  private async doCreate(machine: Machine, ctx: ActuatorContext): Promise<void> {
    const scope = await this.scope(machine, ctx);
    const { vpc } = scope.clients;
    const uid = machine.metadata.uid ?? '';

    // Adopt what an earlier attempt made (a lost reply, a restart between the call and the status patch),
    // unless exists() has just looked and seen nothing: then a name taken since answers the POST with 409.
    const unclaimed = this.sightings.get(uid)?.kind === 'unclaimed' && !scope.status.instanceId;
    this.sightings.delete(uid);
    const existing = unclaimed ? undefined : await this.lookup(scope, ctx.signal);
    if (existing) {
      if (existing.status === 'deleting' && !scope.status.instanceId) {
        // A predecessor of the same name is going away; its name is free once it is gone.
        ctx.log.info('an instance of the same name is still being deleted; waiting before creating', { instanceId: existing.id });
        throw new RequeueAfterError(this.o.requeueAfterMs);
      }
      ctx.log.info('adopting existing instance', { instanceId: existing.id, state: existing.status });
      this.recordCreated(scope, existing);
      this.launches.launched(uid, existing.id);
      return;
    }

    const ids = await failureStep('failed to resolve the providerSpec names', () => this.resolver.resolve(scope.clients, scope.spec, ctx.signal));
    const userData = await failureStep('failed to get user data', () => userDataFor(machine, scope.spec, this.o.client, ctx.signal));
    const prototype = buildInstancePrototype(scope.instanceName, scope.spec, ids, userData);

    let instance: VpcInstance;
    this.launches.sending(uid);
    try {
      instance = await vpc.createInstance(prototype, { signal: ctx.signal });
    } catch (err) {
      const cls = classifyVpcError(err);
      if (cls !== 'alreadyExists') {
        if (!mayHaveLaunched(err)) this.launches.refused(uid);
        throw this.createFailed(scope, err);
      }
      // The name is taken in this VPC: an earlier or racing create of this Machine made it. Adopt it (a
      // fresh read: the batched view may predate the instance).
      const taken = (await vpc.listInstances({ name: scope.instanceName, vpcName: scope.spec.vpc }, { signal: ctx.signal }))[0];
      if (!taken || taken.status === 'deleting') {
        ctx.log.info('instance name taken by an instance not listed yet, or still being deleted; requeueing', { instance: scope.instanceName });
        throw new RequeueAfterError(this.o.requeueAfterMs);
      }
      ctx.log.info('instance name already taken in the VPC; adopting the instance', { instanceId: taken.id });
      instance = taken;
    }
    // Recorded before anything else can fail: the controller persists it as soon as create returns.
    this.recordCreated(scope, instance);
    this.launches.launched(uid, instance.id);
    ctx.log.info('created instance', { instanceId: instance.id, state: instance.status });
    ctx.events.event(machine, 'Normal', 'Create', 'Create', `Created Machine ${machine.metadata.name ?? ''}`);
  }

  private createFailed(scope: MachineScope, err: unknown): Error {
    const message = describeVpcError(err);
    this.failCreation(scope, message);
    const cls = classifyVpcError(err);
    // An id the VPC no longer knows, or a request it refuses, may come from stale resolved ids: look them up again.
    if (cls === 'notFound' || cls === 'invalid') this.resolver.invalidate(scope.clients, scope.spec);
    const wrapped =
      cls === 'invalid'
        ? new InvalidMachineConfigurationError(`failed to create instance via ibm vpc client: ${message}`, { cause: err })
        : cls === 'capacity' && isVpcApiError(err)
          ? new InsufficientCapacityError(err.code, scope.spec.zone, scope.spec.profile, message, { cause: err })
          : createMachineError(`failed to create instance via ibm vpc client: ${message}`, err);
    setFailureReason(wrapped, 'failed to create instance via ibm vpc client');
    return wrapped;
  }

  async exists(machine: Machine, ctx: ActuatorContext): Promise<boolean> {
    let scope: MachineScope;
    try {
      scope = await this.scope(machine, ctx);
    } catch (err) {
      // An invalid spec never made anything unless an instance is on record: say so, and let create()
      // report the configuration error (the Machine goes Failed instead of retrying forever).
      if (isInvalidMachineConfiguration(err) && !isMachineProvisioned(machine) && !decodeProviderStatus(machine.status?.providerStatus).instanceId) return false;
      throw err;
    }
    const uid = machine.metadata.uid ?? '';
    const found = await this.observe(scope, ctx.signal);
    // Found by name only while being deleted: a predecessor's of the same name, not this Machine's.
    if (found && !(found.status === 'deleting' && !scope.status.instanceId)) {
      this.snapshots.set(uid, found);
      return true;
    }
    this.snapshots.delete(uid);
    // Being deleted: exists() follows this reconcile's delete(), which held the finalizer for as long as the
    // delete guard's visibility window asks; once it let go, an instance no read shows is gone. A second,
    // longer hold here kept such Machines deleting for the rest of the eventual-consistency window.
    if (machine.metadata.deletionTimestamp) return false;
    if (scope.status.instanceId && !isMachineProvisioned(machine) && this.recentlyCreated(scope)) {
      ctx.log.info('instance recorded but not yet visible; possible eventual-consistency discrepancy', { instanceId: scope.status.instanceId });
      throw new RequeueAfterError(this.o.requeueAfterMs);
    }
    return false;
  }

  async update(machine: Machine, ctx: ActuatorContext): Promise<void> {
    return reportActuatorFailures('update', machine, ctx, { reason: 'failed to update machine', describe: describeVpcError }, () => this.doUpdate(machine, ctx));
  }

  private async doUpdate(machine: Machine, ctx: ActuatorContext): Promise<void> {
    const scope = await this.scope(machine, ctx);
    const mark = machineChangeFingerprint(machine);
    // The VPC allocates the address only as the instance leaves `pending`, after its providerID was recorded:
    // recording that first address is still part of creating the instance, which "Created" announced.
    const before = { ...mark, provisioned: mark.provisioned && !!machine.status?.addresses?.some((a) => a.type === 'InternalIP') };
    const uid = machine.metadata.uid ?? '';
    const instance = this.snapshots.get(uid) ?? (await this.lookup(scope, ctx.signal));
    if (!instance) throw new RequeueAfterError(this.o.requeueAfterMs);
    if (await this.isStuck(scope, instance, ctx)) {
      await this.replace(scope, instance, ctx);
      return;
    }
    await this.record(scope, instance, ctx.signal);

    const tags = tagNamesOf(scope.spec);
    const tagKey = `${instance.id}|${JSON.stringify(tags)}`;
    let tagError: unknown;
    if (tags.length > 0 && instance.status !== 'deleting' && !this.tagged.has(tagKey)) {
      try {
        const failed = (await scope.clients.vpc.attachTags([instance.crn], tags, { signal: ctx.signal })).filter((r) => r.is_error);
        if (failed.length > 0) throw new Error(failed.map((r) => r.message ?? 'attach failed').join('; '));
        this.tagged.add(tagKey);
      } catch (err) {
        tagError = err;
      }
    }
    emitUpdatedWhenChanged(machine, ctx, before);
    if (tagError !== undefined) {
      const err = updateMachineError(`failed to tag instance ${instance.id}: ${describeVpcError(tagError)}`, tagError);
      setFailureReason(err, 'failed to tag instance');
      throw err;
    }
  }

  private async isStuck(scope: MachineScope, instance: VpcInstance, ctx: ActuatorContext): Promise<boolean> {
    const timeout = this.o.stuckMachineTimeoutMs;
    if (timeout <= 0 || !looksStuck(scope.machine, scope.status, instance, this.o.clock.now(), timeout)) return false;
    try {
      return mergesMachineConfigServer(await userDataFor(scope.machine, scope.spec, this.o.client, ctx.signal));
    } catch (err) {
      ctx.log.info('could not read the user data to check for a stuck machine; not replacing it', { error: describeVpcError(err) });
      return false;
    }
  }

  /**
   * Deletes a stuck instance and forgets it, so that the machine controller creates it again under the same
   * name (create waits while the old one is still deleting). Done at most once per Machine.
   */
  private async replace(scope: MachineScope, instance: VpcInstance, ctx: ActuatorContext): Promise<void> {
    const m = scope.machine;
    ctx.log.info('instance has run without a node for too long; replacing it', { instanceId: instance.id, createdAt: instance.created_at });
    try {
      await scope.clients.vpc.deleteInstance(instance.id, { signal: ctx.signal });
    } catch (err) {
      if (classifyVpcError(err) !== 'notFound') throw updateMachineError(`attempt to delete stuck machine failed: ${describeVpcError(err)}`, err);
    }
    setCondition(scope.status, { type: MachineReplacementConditionType, status: 'True', reason: ReplacementRequestedReason, message: 'Machine replacement requested' }, this.nowIso());
    scope.status.instanceId = undefined;
    scope.status.instanceState = undefined;
    scope.saveStatus();
    this.snapshots.delete(m.metadata.uid ?? '');
    this.sightings.delete(m.metadata.uid ?? '');
    this.lastRead.delete(m.metadata.uid ?? '');
    this.launches.forget(m.metadata.uid ?? '');
    if (m.spec) delete m.spec.providerID;
    if (m.status) delete m.status.addresses;
    m.metadata.annotations = { ...m.metadata.annotations, [MachineInstanceStateAnnotation]: 'deleting' };
    ctx.events.event(m, 'Warning', 'MachineReplacement', 'Update', `instance ${instance.id} ran for more than ${Math.round(this.o.stuckMachineTimeoutMs / 60_000)}m without a node; deleted it to create it again`);
  }

  async delete(machine: Machine, ctx: ActuatorContext): Promise<void> {
    return reportActuatorFailures('delete', machine, ctx, { reason: 'failed to delete instance via ibmClient', describe: describeVpcError }, () => this.doDelete(machine, ctx));
  }

  private async doDelete(machine: Machine, ctx: ActuatorContext): Promise<void> {
    const scope = await scopeForDelete(machine, () => this.scope(machine, ctx), describeVpcError);
    const uid = machine.metadata.uid ?? '';
    this.snapshots.delete(uid);
    this.lastRead.delete(uid);
    const id = this.instanceIdOf(scope);
    // Fresh reads, not the batch: deciding to delete deserves the current state. By id when one is known; by
    // the Machine's identity (its name in the VPC) otherwise, and when the id misses an instance that was never
    // seen terminating (the id's read may lag, or the instance was made again under the same name).
    const byName = async () => (await failureStep('failed to get instance', () => scope.clients.vpc.listInstances({ name: scope.instanceName, vpcName: scope.spec.vpc }, { signal: ctx.signal })))[0];
    let instance = id ? await failureStep('failed to get instance', () => this.getById(scope, id, ctx.signal)) : undefined;
    if (!instance && (!id || !this.guard.terminationSeen(machine))) {
      const named = await byName();
      // Another instance of the name already going away is a predecessor's, not the one on record.
      instance = named && id && named.id !== id && named.status === 'deleting' ? undefined : named;
    }
    if (!instance) {
      this.gone(scope, id, ctx);
      return;
    }
    // Found: what a launch may have left behind is this instance, now being deleted.
    this.launches.forget(uid);
    this.guard.seen(uid);
    if (instance.status !== 'deleting') {
      try {
        await scope.clients.vpc.deleteInstance(instance.id, { signal: ctx.signal });
      } catch (err) {
        if (classifyVpcError(err) === 'notFound') {
          this.gone(scope, instance.id, ctx);
          return;
        }
        const wrapped = deleteMachineError(`failed to delete instance via ibmClient: ${describeVpcError(err)}`, err);
        setFailureReason(wrapped, 'failed to delete instance via ibmClient');
        throw wrapped;
      }
    }
    this.guard.seenTerminating(uid);
    scope.status.instanceState = 'deleting';
    scope.saveStatus();
    machine.metadata.annotations = { ...machine.metadata.annotations, [MachineInstanceStateAnnotation]: 'deleting' };
    // The exists() that follows needs no read of its own: the instance is there, being deleted.
    this.sightings.set(uid, { kind: 'seen', instance: { ...instance, status: 'deleting' } });
    if (!this.deleting.has(uid)) {
      this.deleting.add(uid);
      ctx.log.info('deleting instance', { instanceId: instance.id });
      ctx.events.event(machine, 'Normal', 'Delete', 'Delete', `Deleted machine ${machine.metadata.name ?? ''}`);
    }
  }

  /**
   * No read shows the Machine's instance: finishes the delete once the guard agrees it is gone (throws a
   * requeue while it may be a launched instance the VPC does not show yet).
   */
  private gone(scope: MachineScope, instanceId: string | null | undefined, ctx: ActuatorContext): void {
    const m = scope.machine;
    const uid = m.metadata.uid ?? '';
    try {
      this.guard.nothingFound(m, { instanceId: scope.status.instanceId, recordedAt: createdAt(scope) });
    } catch (err) {
      ctx.log.info('instance launched but not visible yet; keeping the finalizer until it shows or the window passes', { instance: scope.instanceName, instanceId });
      throw err;
    }
    ctx.log.info('instance is gone; deletion complete', { instance: scope.instanceName, instanceId });
    this.forget(uid, instanceId);
    this.sightings.set(uid, { kind: 'seen', instance: undefined });
  }

  private forget(uid: string, instanceId: string | null | undefined): void {
    this.deleting.delete(uid);
    this.launches.forget(uid);
    this.snapshots.delete(uid);
    if (instanceId) for (const key of [...this.tagged]) if (key.startsWith(`${instanceId}|`)) this.tagged.delete(key);
  }
}

/** When the provider status recorded the instance as created (MachineCreated turning True), if it says. */
function createdAt(scope: MachineScope): number | undefined {
  const c = scope.status.conditions?.find((x) => x.type === MachineCreatedConditionType && x.status === 'True');
  const t = c?.lastTransitionTime ? Date.parse(c.lastTransitionTime) : NaN;
  return Number.isNaN(t) ? undefined : t;
}
