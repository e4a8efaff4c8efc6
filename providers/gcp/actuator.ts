// The GCP actuator.
// Reference: https://github.com/openshift/machine-api-provider-gcp/blob/main/pkg/cloud/gcp/actuators/machine/reconciler.go
// Where it departs from the reference, on purpose:
// - the instance name is the Machine name and insert carries a requestId derived from the Machine UID, so a
//   retried insert (lost reply, controller restart) is GCE's same request, and a 409 from a racing insert
//   adopts the instance instead of failing the Machine;
// - no worker waits for an instance to boot: create() records the instance name as soon as GCE accepts the
//   insert and returns; the zone operation, not a read that may lag, says whether the insert failed later
//   (quota, stock-out), and one non-blocking zoneOperations.get asks it only while the instance is not seen;
// - an instance that was inserted or adopted but never seen makes exists() and delete() wait (requeue)
//   within an eventual-consistency window instead of calling it gone, so deleting such a Machine cannot
//   leak it; an instance that was seen once is never waited for;
// - quota, stock-outs, throttling (403 rateLimitExceeded, 429) and 5xx are never terminal;
// - existence checks are batched into one instances.list per zone and window, a miss is confirmed with
//   instances.get before anything is called gone, and update reuses what exists() just saw;
// - a missing master instance group does not block deletion, and delete does not emit an event per pass.
import {
  DEFAULT_VISIBILITY_WINDOW_MS,
  DeleteGuard,
  InsufficientCapacityError,
  InvalidMachineConfigurationError,
  MachineCreatedCondition,
  MachineCreationFailedReason,
  MachineCreationSucceededReason,
  MachineInstanceStateAnnotation,
  MachineInterruptibleInstanceLabel,
  RequeueAfterError,
  TtlCache,
  isMachineProvisioned,
  createMachineError,
  deleteMachineError,
  isInvalidMachineConfiguration,
  reportActuatorFailures,
  scopeForDelete,
  failureStep,
  setFailureReason,
  machineChangeFingerprint,
  emitUpdatedWhenChanged,
  setProviderCondition,
  type Actuator,
  type ActuatorContext,
  type Clock,
  type CloudRateLimits,
  type KubeClient,
  type Machine,
} from '../../lib/index.js';
import { BootImageChecker, ImageReferenceError } from './boot-image.js';
import { isOperationDone, throwIfOperationFailed, type Instance, type Operation } from './compute-api.js';
import { classifyGceError, describeGceError, gceCapacityCode, GceOperationError } from './errors.js';
import { checkGpuQuota } from './gpu-quota.js';
import { GcpClientFactory, type GcpClientFactoryOptions } from './gcp-clients.js';
import {
  addressesOf,
  buildInstance,
  deleteRequestIdFor,
  instanceStatus,
  isInterruptible,
  machineLabelsFor,
  requestIdFor,
  stateToRecord,
} from './instances.js';
import { deregisterFromInstanceGroup, deregisterFromTargetPools, isControlPlane, registerWithInstanceGroup, registerWithTargetPools } from './load-balancers.js';
import { newMachineScope, secretsReferencedBy, userDataFor, type MachineScope } from './machine-scope.js';
import { PendingInserts, type InsertBackoff } from './pending-inserts.js';
import { PROVIDER_SPEC_PATH, decodeProviderStatus, type ResourceManagerTag } from './provider-spec.js';
import { TagResolver, mergeTags, restTagValueLookup, type TagValueLookup } from './resource-manager-tags.js';

export interface GcpActuatorOptions {
  /** Reads the credentials and user-data Secrets. */
  client: KubeClient;
  clock: Clock;
  /** Compute endpoint override (an emulator, a private endpoint). */
  endpoint?: string;
  /** Share one factory (and so one rate limiter) with the instance-type catalog; else one is built. */
  clientFactory?: GcpClientFactory;
  rateLimits?: CloudRateLimits;
  batchWindowMs?: number;
  createComputeApi?: GcpClientFactoryOptions['createComputeApi'];
  /** The project for specs and credentials that name none. */
  defaultProject?: string;
  /** The installer's boot image, for specs without disks. */
  defaultImage?: string;
  /** Infrastructure status.platformStatus.gcp.resourceLabels, on every instance and disk. */
  infrastructureLabels?: Record<string, string>;
  /** Infrastructure status.platformStatus.gcp.resourceTags, bound to every instance and disk. */
  infrastructureTags?: ResourceManagerTag[];
  /** Resolves resource-manager tag values (default: the Resource Manager REST API). */
  tagValueLookup?: TagValueLookup;
  /** Requeue delay while waiting on GCE (default 20 s, as the reference). */
  requeueAfterMs?: number;
  /**
   * How long an inserted instance no read has shown yet is waited for before exists() calls it gone (default
   * 60 s). When set, also the window the delete guard waits for a launched instance to show (default
   * DEFAULT_VISIBILITY_WINDOW_MS, the same for every cloud).
   */
  eventualConsistencyWindowMs?: number;
  /** Requeue delay while an inserted instance is not visible yet (default: requeueAfterMs, at most 5 s). */
  visibilityRequeueMs?: number;
  /** Wait before an insert that follows one failed in its operation: doubling from 1 s up to 5 min. */
  insertBackoff?: InsertBackoff;
  /** How long update() may reuse the instance exists() just saw (default 5 s). */
  snapshotTtlMs?: number;
}

export interface GcpActuator extends Actuator {
  /** Closes the Compute clients' connections (only those this actuator built). */
  close(): Promise<void>;
}

/** How long a read may answer the check of the pass that the reconcile's own write triggers. */
const REPEAT_CHECK_REUSE_MS = 1_000;

const DEFAULTS = { requeueAfterMs: 20_000, eventualConsistencyWindowMs: 60_000, snapshotTtlMs: 5_000 };

/** Nothing can exist for a Machine that was never provisioned and has no instance on record. */
const neverCreated = (m: Machine): boolean => !isMachineProvisioned(m) && !decodeProviderStatus(m.status?.providerStatus).instanceId;

export function createGcpActuator(opts: GcpActuatorOptions): GcpActuator {
  return new GcpMachineActuator(opts);
}

class GcpMachineActuator implements GcpActuator {
  private readonly o: GcpActuatorOptions & typeof DEFAULTS;
  private readonly factory: GcpClientFactory;
  private readonly ownsFactory: boolean;
  /** What exists() last saw per Machine UID, for update() in the same reconcile. */
  private readonly snapshots: TtlCache<Instance>;
  /**
   * Per Machine UID, the last read, with the Machine's resourceVersion and node then. The pass that a write
   * to the Machine triggers (the reconcile's own, most often) comes within milliseconds and answers from it,
   * once, instead of listing again. Anything else (a Node event, a requeue, a resync) finds the Machine
   * unchanged and reads afresh, as does a Machine that gained a node since (about to go Running).
   */
  private readonly lastRead: TtlCache<{ instance: Instance; node: string | undefined; resourceVersion: string | undefined }>;
  private readonly images: BootImageChecker;
  private readonly tags: TagResolver;
  /** Per Machine UID: inserts GCE accepted that no read has shown yet. */
  private readonly inserts: PendingInserts;
  private readonly visibilityRequeueMs: number;
  /** "<selfLink>|<what>" memberships already ensured by this process. */
  private readonly registered = new Set<string>();
  /** Keeps a deleted Machine's finalizer while its inserted instance may be invisible (see DeleteGuard). */
  private readonly guard: DeleteGuard;
  /** Machine UIDs whose delete was already announced by an event. */
  private readonly deleting = new Set<string>();
  /** "<uid>/<generation>" whose unknown fields were already reported. */
  private readonly warned = new Set<string>();

  constructor(opts: GcpActuatorOptions) {
    this.o = { ...DEFAULTS, ...opts };
    // The instance id (its name) is on record before the insert is sent, so no launch ledger is needed. GCE
    // has no "deleted" state: STOPPING is what delete() records once GCE accepted the delete.
    this.guard = new DeleteGuard({ clock: opts.clock, windowMs: opts.eventualConsistencyWindowMs ?? DEFAULT_VISIBILITY_WINDOW_MS, isTerminating: (state) => state === 'STOPPING' });
    this.ownsFactory = !opts.clientFactory;
    this.factory =
      opts.clientFactory ??
      new GcpClientFactory({ clock: opts.clock, endpoint: opts.endpoint, rateLimits: opts.rateLimits, batchWindowMs: opts.batchWindowMs, createComputeApi: opts.createComputeApi });
    this.snapshots = new TtlCache(opts.clock, this.o.snapshotTtlMs);
    this.lastRead = new TtlCache(opts.clock, REPEAT_CHECK_REUSE_MS);
    this.inserts = new PendingInserts(opts.clock, this.o.eventualConsistencyWindowMs, opts.insertBackoff);
    this.visibilityRequeueMs = opts.visibilityRequeueMs ?? Math.min(this.o.requeueAfterMs, 5_000);
    this.images = new BootImageChecker(opts.clock);
    this.tags = new TagResolver(opts.tagValueLookup ?? restTagValueLookup(), opts.clock);
  }

  async close(): Promise<void> {
    if (this.ownsFactory) await this.factory.close();
  }

  private async scope(machine: Machine, ctx: ActuatorContext): Promise<MachineScope> {
    const scope = await newMachineScope(machine, { client: this.o.client, clients: this.factory, defaultProject: this.o.defaultProject, defaultImage: this.o.defaultImage }, ctx.signal);
    const key = `${machine.metadata.uid ?? machine.metadata.name ?? ''}/${machine.metadata.generation ?? 0}`;
    if (scope.unknownFields.length > 0 && !this.warned.has(key)) {
      this.warned.add(key);
      ctx.events.event(machine, 'Warning', 'UnknownFields', 'Validate', `providerSpec fields not known to this provider are ignored: ${scope.unknownFields.join(', ')}`);
    }
    return scope;
  }

  /** instances.get, with "not found" as undefined; a missing project or zone is the spec's fault. */
  private async getInstance(scope: MachineScope, signal: AbortSignal): Promise<Instance | undefined> {
    try {
      return await scope.clients.compute.getInstance(scope.project, scope.spec.zone, scope.instanceName, { signal });
    } catch (err) {
      throw this.locationError(scope, err) ?? err;
    }
  }

  /** The reference's project/zone classification: these make the Machine Failed rather than retry forever. */
  private locationError(scope: MachineScope, err: unknown): Error | undefined {
    const cls = classifyGceError(err);
    const text = err instanceof Error ? err.message : '';
    if (cls === 'notFound' && text.includes(`'projects/${scope.project}'`)) {
      return new InvalidMachineConfigurationError(`${scope.project}: Project does not exist`, { field: `${PROVIDER_SPEC_PATH}.projectID`, cause: err });
    }
    if (cls === 'invalid' && text.includes("'zone'")) {
      return new InvalidMachineConfigurationError(`${scope.spec.zone}: Zone does not exist`, { field: `${PROVIDER_SPEC_PATH}.zone`, cause: err });
    }
    return undefined;
  }

  private async lookup(scope: MachineScope, signal: AbortSignal): Promise<Instance | undefined> {
    try {
      return await this.getInstance(scope, signal);
    } catch (err) {
      if (isInvalidMachineConfiguration(err)) throw err;
      if (classifyGceError(err) === 'notFound') return undefined;
      throw err;
    }
  }

  /** Writes what the instance says onto the Machine after create and update: providerID, addresses, labels, state. */
  private record(scope: MachineScope, instance: Instance): void {
    const m = scope.machine;
    const state = stateToRecord(scope.status.instanceState, instance);
    m.spec = { ...m.spec, providerID: scope.providerID };
    m.status = { ...m.status, addresses: addressesOf(instance, scope.project, scope.spec.zone) };
    m.metadata.labels = { ...m.metadata.labels, ...machineLabelsFor(scope.spec) };
    if (isInterruptible(scope.spec, instance)) {
      m.metadata.labels[MachineInterruptibleInstanceLabel] = '';
      const nodeMeta = m.spec.metadata ?? {};
      m.spec.metadata = { ...nodeMeta, labels: { ...nodeMeta.labels, [MachineInterruptibleInstanceLabel]: '' } };
    }
    m.metadata.annotations = { ...m.metadata.annotations, [MachineInstanceStateAnnotation]: state };
    scope.status.instanceId = instance.name ?? scope.instanceName;
    scope.status.instanceState = state;
    this.inserts.seen(scope.machine.metadata.uid ?? '');
    setProviderCondition(scope.status, { type: MachineCreatedCondition, status: 'True', reason: MachineCreationSucceededReason, message: 'machine successfully created' }, this.nowIso());
    scope.saveStatus();
  }

  private nowIso(): string {
    return new Date(this.o.clock.now()).toISOString();
  }

  private failCreation(scope: MachineScope, message: string): void {
    setProviderCondition(scope.status, { type: MachineCreatedCondition, status: 'False', reason: MachineCreationFailedReason, message }, this.nowIso());
    scope.saveStatus();
  }

  referencedSecrets(machine: Machine): string[] {
    return secretsReferencedBy(machine);
  }

  async create(machine: Machine, ctx: ActuatorContext): Promise<void> {
    await reportActuatorFailures('create', machine, ctx, { reason: 'failed to create instance via compute service', describe: describeFailure }, () => this.doCreate(machine, ctx));
  }

  private async instanceBody(scope: MachineScope, signal: AbortSignal): Promise<Instance> {
    const { spec, clients } = scope;
    const userData = await userDataFor(scope.machine, spec, this.o.client, signal);
    const resourceManagerTags = await this.tags.resolve(mergeTags(spec.resourceManagerTags, this.o.infrastructureTags), scope.credentials, signal);
    let uefiCompatible: boolean | undefined;
    if (!spec.shieldedInstanceConfig.secureBoot && !spec.shieldedInstanceConfig.virtualizedTrustedPlatformModule && !spec.shieldedInstanceConfig.integrityMonitoring) {
      try {
        uefiCompatible = await this.images.uefiCompatible(clients.compute, spec, scope.project, signal);
      } catch (err) {
        if (err instanceof ImageReferenceError) throw new InvalidMachineConfigurationError(err.message, { field: `${PROVIDER_SPEC_PATH}.disks`, cause: err });
        if (classifyGceError(err) === 'notFound') {
          throw new InvalidMachineConfigurationError(`boot image of ${PROVIDER_SPEC_PATH}.disks does not exist: ${describeGceError(err)}`, { field: `${PROVIDER_SPEC_PATH}.disks`, cause: err });
        }
        throw new Error(`error fetching disk information: ${describeGceError(err)}`, { cause: err });
      }
    }
    return buildInstance(scope.machine, spec, {
      project: scope.project,
      clusterId: scope.clusterId,
      userData,
      infrastructureLabels: this.o.infrastructureLabels,
      resourceManagerTags,
      uefiCompatible,
    });
  }

  private async doCreate(machine: Machine, ctx: ActuatorContext): Promise<void> {
    const scope = await this.scope(machine, ctx);
    const { compute } = scope.clients;
    const uid = machine.metadata.uid ?? machine.metadata.name ?? '';
    // An insert GCE accepted and then failed in its operation (quota, stock-out) is reported here, as any
    // other create failure; the next pass sends a new insert.
    const failure = this.inserts.takeFailure(uid);
    if (failure) throw this.insertFailed(scope, failure);
    const hold = this.inserts.holdMs(uid);
    if (hold > 0) {
      ctx.log.info('the last insert failed in its operation; waiting before the next one', { instance: scope.instanceName, waitMs: hold });
      throw new RequeueAfterError(hold);
    }

    try {
      await checkGpuQuota(compute, scope.project, scope.spec, ctx.signal);
    } catch (err) {
      throw this.insertFailed(scope, err);
    }
    const body = await failureStep('failed to create instance via compute service', () => this.instanceBody(scope, ctx.signal));
    // On record before the call: a reply lost on its way back must not leave the instance unknown.
    scope.status.instanceId = scope.instanceName;
    scope.saveStatus();
    this.inserts.sending(uid);
    let op: Operation;
    try {
      op = await compute.insertInstance(scope.project, scope.spec.zone, body, requestIdFor(uid, 'insert', this.inserts.attempt(uid)), { signal: ctx.signal });
    } catch (err) {
      if (classifyGceError(err) === 'alreadyExists') {
        // A racing or earlier insert made it (the name is ours): adopt it rather than fail the Machine.
        ctx.log.info('instance already exists; adopting it', { instance: scope.instanceName });
        this.accepted(scope, undefined, ctx);
        return;
      }
      // GCE refused the request itself, so nothing was made; after a 5xx or a lost reply it may have been.
      if (refusedOutright(err)) scope.status.instanceId = null;
      throw this.insertFailed(scope, this.locationError(scope, err) ?? err);
    }
    if (isOperationDone(op)) {
      // GCE answers a new insert with a queued operation: a finished one replays an earlier request of ours,
      // whose requestId is spent whatever it says.
      this.inserts.nextAttempt(uid);
      try {
        throwIfOperationFailed(op);
      } catch (err) {
        if (classifyGceError(err) !== 'alreadyExists') {
          scope.status.instanceId = null;
          throw this.insertFailed(scope, err);
        }
      }
      // It made the instance earlier. If no read shows it, it has gone or lags: the next insert, a new
      // request, either adopts it (409) or makes it again.
      this.accepted(scope, undefined, ctx);
      return;
    }
    this.accepted(scope, op.name ?? undefined, ctx);
  }

  /** GCE took the insert (or the instance was there already): the name is on record, and the boot is not waited for. */
  private accepted(scope: MachineScope, operation: string | undefined, ctx: ActuatorContext): void {
    const m = scope.machine;
    this.inserts.accepted(m.metadata.uid ?? m.metadata.name ?? '', operation);
    setProviderCondition(scope.status, { type: MachineCreatedCondition, status: 'True', reason: MachineCreationSucceededReason, message: 'machine successfully created' }, this.nowIso());
    scope.saveStatus();
    ctx.log.info('created instance', { instance: scope.instanceName, operation });
    ctx.events.event(m, 'Normal', 'Create', 'Create', `Created Machine ${m.metadata.name ?? ''}`);
  }

  /**
   * For an inserted instance no read shows: what its insert operation says, with one non-blocking
   * zoneOperations.get. 'failed' (recorded for create() to report; nothing was made), 'pending' (running, or
   * done and the reads lag), or 'unknown' (this process did not see the operation: a restart, a lost reply).
   */
  private async insertOutcome(scope: MachineScope, uid: string, signal: AbortSignal): Promise<'failed' | 'pending' | 'unknown'> {
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
      this.failCreation(scope, describeGceError(err));
      return 'failed';
    }
    return 'pending';
  }

  private insertFailed(scope: MachineScope, err: unknown): Error {
    const message = describeGceError(err);
    this.failCreation(scope, message);
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

  async exists(machine: Machine, ctx: ActuatorContext): Promise<boolean> {
    // Nothing on record and not being deleted: the answer only decides whether create() runs, and create()
    // is idempotent (same requestId, or a 409 adopts the instance of the Machine's name), so asking GCE would
    // cost a call and change nothing. A Machine being deleted is always looked up: nothing may leak.
    if (!machine.metadata.deletionTimestamp && neverCreated(machine)) return false;
    let scope: MachineScope;
    try {
      scope = await this.scope(machine, ctx);
    } catch (err) {
      // An invalid spec never made anything unless an instance is on record: say so, and let create()
      // report the configuration error (the Machine goes Failed instead of retrying forever).
      if (isInvalidMachineConfiguration(err) && neverCreated(machine)) return false;
      throw err;
    }
    const uid = machine.metadata.uid ?? '';
    const node = machine.status?.nodeRef?.name;
    const recent = this.lastRead.take(uid);
    const rewritten = recent !== undefined && recent.resourceVersion !== undefined && recent.resourceVersion !== machine.metadata.resourceVersion;
    if (recent && rewritten && !machine.metadata.deletionTimestamp && recent.node === node) {
      this.snapshots.set(uid, recent.instance);
      return true;
    }
    let found: Instance | undefined;
    try {
      found = await scope.clients.findInstance(scope.project, scope.spec.zone, scope.instanceName, ctx.signal);
      // A list may lag behind a fresh insert: only instances.get may call an instance gone.
      found ??= await this.lookup(scope, ctx.signal);
    } catch (err) {
      const located = this.locationError(scope, err) ?? err;
      // A project or zone that does not exist holds nothing: let create() fail the Machine for it.
      if (isInvalidMachineConfiguration(located) && neverCreated(machine)) return false;
      throw located;
    }
    if (found) {
      this.snapshots.set(uid, found);
      this.lastRead.set(uid, { instance: found, node, resourceVersion: machine.metadata.resourceVersion });
      return true;
    }
    this.snapshots.delete(uid);
    if (!this.inserts.awaitingFirstSight(uid, machine, scope.status)) return false;
    const outcome = await this.insertOutcome(scope, uid, ctx.signal);
    if (outcome === 'failed') return false;
    // Not deleting: create() sends the insert again under the same requestId, and GCE answers with the
    // original operation instead of making a second instance.
    if (outcome === 'unknown' && !machine.metadata.deletionTimestamp) return false;
    ctx.log.info('instance inserted but not visible yet; waiting for GCE to show it', { instance: scope.instanceName });
    throw new RequeueAfterError(this.visibilityRequeueMs);
  }

  async update(machine: Machine, ctx: ActuatorContext): Promise<void> {
    await reportActuatorFailures('update', machine, ctx, { reason: 'failed to add instance to target pool', describe: describeFailure }, () => this.doUpdate(machine, ctx));
  }

  private async doUpdate(machine: Machine, ctx: ActuatorContext): Promise<void> {
    const scope = await this.scope(machine, ctx);
    const before = machineChangeFingerprint(machine);
    const uid = machine.metadata.uid ?? '';
    const instance = this.snapshots.get(uid) ?? (await this.lookup(scope, ctx.signal));
    if (!instance) throw new RequeueAfterError(this.o.requeueAfterMs);
    this.record(scope, instance);

    const errors: string[] = [];
    const running = instanceStatus(instance) === 'RUNNING';
    const link = scope.providerID;
    const pools = scope.spec.targetPools ?? [];
    const poolKey = `${link}|pools:${JSON.stringify(pools)}`;
    if (pools.length > 0 && !this.registered.has(poolKey)) {
      try {
        await registerWithTargetPools(scope.clients.compute, scope, ctx.signal);
        this.registered.add(poolKey);
      } catch (err) {
        errors.push(describeFailure(err));
      }
    }
    const groupKey = `${link}|group`;
    if (running && isControlPlane(scope) && !this.registered.has(groupKey)) {
      try {
        await registerWithInstanceGroup(scope.clients.compute, scope, ctx.signal);
        this.registered.add(groupKey);
      } catch (err) {
        errors.push(`failed to register instance to instance group: ${describeFailure(err)}`);
      }
    }
    emitUpdatedWhenChanged(machine, ctx, before);
    if (errors.length > 0) {
      const err = new Error(errors.join('; '));
      setFailureReason(err, 'failed to add instance to target pool');
      throw err;
    }
  }

  async delete(machine: Machine, ctx: ActuatorContext): Promise<void> {
    await reportActuatorFailures('delete', machine, ctx, { reason: 'failed to delete instance via compute service', describe: describeFailure }, () => this.doDelete(machine, ctx));
  }

  private async doDelete(machine: Machine, ctx: ActuatorContext): Promise<void> {
    const scope = await scopeForDelete(machine, () => this.scope(machine, ctx), describeFailure);
    const uid = machine.metadata.uid ?? '';
    this.snapshots.delete(uid);
    this.lastRead.delete(uid);
    const { compute } = scope.clients;
    await failureStep('failed to remove instance from target pool', () => deregisterFromTargetPools(compute, scope, ctx.signal));
    let instance: Instance | undefined;
    try {
      instance = await this.lookup(scope, ctx.signal);
    } catch (err) {
      // An invalid project or zone never held an instance unless one is on record.
      if (isInvalidMachineConfiguration(err) && !machine.spec?.providerID) return;
      throw err;
    }
    if (!instance) {
      // An insert whose operation failed made nothing (insertOutcome takes its name off the record).
      if (this.inserts.awaitingFirstSight(uid, machine, scope.status)) await this.insertOutcome(scope, uid, ctx.signal);
      this.gone(scope, uid, ctx);
      return;
    }
    this.guard.seen(uid);
    if (isControlPlane(scope)) {
      await failureStep('failed to unregister instance from instance group', () => deregisterFromInstanceGroup(compute, scope, ctx.signal));
    }
    try {
      await compute.deleteInstance(scope.project, scope.spec.zone, scope.instanceName, deleteRequestIdFor(uid), { signal: ctx.signal });
    } catch (err) {
      const cls = classifyGceError(err);
      if (cls === 'notFound') {
        this.gone(scope, uid, ctx);
        return;
      }
      const detail = instance.deletionProtection ? ' (deletionProtection is enabled on the instance: turn it off to let the Machine go)' : '';
      const wrapped = deleteMachineError(`failed to delete instance via compute service: ${describeGceError(err)}${detail}`, err);
      setFailureReason(wrapped, 'failed to delete instance via compute service');
      throw wrapped;
    }
    // GCE stops any instance it was told to delete (provisioning, staging or running alike) before it removes it;
    // only one already stopped goes straight away.
    const before = instanceStatus(instance);
    const state = before === 'TERMINATED' || before === 'STOPPING' ? before : 'STOPPING';
    machine.metadata.annotations = { ...machine.metadata.annotations, [MachineInstanceStateAnnotation]: state };
    // Seen: from now on, no read showing it means it is gone.
    this.guard.seenTerminating(uid);
    scope.status.instanceState = state;
    scope.saveStatus();
    if (!this.deleting.has(uid)) {
      this.deleting.add(uid);
      ctx.log.info('deleting instance', { instance: scope.instanceName });
      ctx.events.event(machine, 'Normal', 'Delete', 'Delete', `Deleted machine ${machine.metadata.name ?? ''}`);
    }
  }

  /**
   * No read shows the Machine's instance: finishes the delete once the guard agrees it is gone (throws a
   * requeue while it may be an inserted instance GCE does not show yet).
   */
  private gone(scope: MachineScope, uid: string, ctx: ActuatorContext): void {
    const created = scope.status.conditions?.find((c) => c.type === MachineCreatedCondition && c.status === 'True')?.lastTransitionTime;
    const recordedAt = created ? Date.parse(created) : NaN;
    try {
      this.guard.nothingFound(scope.machine, { instanceId: scope.status.instanceId, recordedAt: Number.isNaN(recordedAt) ? undefined : recordedAt });
    } catch (err) {
      ctx.log.info('instance inserted but not visible yet; keeping the finalizer until it shows or the window passes', { instance: scope.instanceName });
      throw err;
    }
    ctx.log.info('instance is gone; deletion complete', { instance: scope.instanceName });
    this.forget(scope, uid);
  }

  private forget(scope: MachineScope, uid: string): void {
    for (const key of [...this.registered]) if (key.startsWith(`${scope.providerID}|`)) this.registered.delete(key);
    this.deleting.delete(uid);
    this.inserts.forget(uid);
  }
}

/** GCE refused the request itself (bad request, throttled, forbidden, unknown project or zone): nothing was done. */
function refusedOutright(err: unknown): boolean {
  const cls = classifyGceError(err);
  return cls === 'invalid' || cls === 'throttled' || cls === 'unauthorized' || cls === 'notFound';
}

/** A failure as the Machine shows it: our own errors in their own words, GCE's with its HTTP status and text. */
function describeFailure(err: unknown): string {
  if (err instanceof InvalidMachineConfigurationError || err instanceof RequeueAfterError) return err.message;
  return describeGceError(err);
}

/** GCE's own words of a failed operation, without the operation name and codes (the error carries the code). */
function operationMessages(err: unknown): string {
  if (err instanceof GceOperationError) return err.errors.map((e) => e.message).join('; ');
  return describeGceError(err);
}
