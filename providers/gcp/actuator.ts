// The GCP actuator. Where it departs from the reference, on purpose (spec/gcp.md A7):
// - the instance name is the Machine name and insert carries a requestId derived from the Machine UID, so a
//   retried insert (lost reply, controller restart) is GCE's same request, and a 409 from a racing insert
//   adopts the instance instead of failing the Machine;
// - insert waits on the zone operation, so errors GCE reports only in the operation (quota, stock-out) are
//   seen and retried, never assumed away by read-after-write;
// - quota, stock-outs, throttling (403 rateLimitExceeded, 429) and 5xx are never terminal;
// - existence checks are batched into one instances.list per zone and window, a miss is confirmed with
//   instances.get before anything is called gone, and update reuses what exists() just saw;
// - a missing master instance group does not block deletion, and delete does not emit an event per pass.
import {
  InvalidMachineConfigurationError,
  MachineCreatedCondition,
  MachineCreationFailedReason,
  MachineCreationSucceededReason,
  MachineInstanceStateAnnotation,
  MachineInterruptibleInstanceLabel,
  RequeueAfterError,
  TtlCache,
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
import { isOperationDone, throwIfOperationFailed, type ComputeApi, type Instance, type Operation } from './compute-api.js';
import { classifyGceError, describeGceError } from './errors.js';
import { GcpClientFactory, type GcpClientFactoryOptions } from './gcp-clients.js';
import {
  addressesOf,
  buildInstance,
  deleteRequestIdFor,
  instanceStatus,
  isInterruptible,
  machineLabelsFor,
  requestIdFor,
} from './instances.js';
import { deregisterFromInstanceGroup, deregisterFromTargetPools, isControlPlane, registerWithInstanceGroup, registerWithTargetPools } from './load-balancers.js';
import { newMachineScope, userDataFor, type MachineScope } from './machine-scope.js';
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
  /** How long create waits on the insert operation before requeueing (default 60 s). */
  operationWaitMs?: number;
  /** How long update() may reuse the instance exists() just saw (default 5 s). */
  snapshotTtlMs?: number;
}

export interface GcpActuator extends Actuator {
  /** Closes the Compute clients' connections (only those this actuator built). */
  close(): Promise<void>;
}

const DEFAULTS = { requeueAfterMs: 20_000, operationWaitMs: 60_000, snapshotTtlMs: 5_000 };

/** What update() may change, serialised: an Update event is emitted only when it differs. */
const isProvisioned = (m: Machine): boolean => !!m.spec?.providerID || (m.status?.addresses?.length ?? 0) > 0;

/** Nothing can exist for a Machine that was never provisioned and has no instance on record. */
const neverCreated = (m: Machine): boolean => !isProvisioned(m) && !decodeProviderStatus(m.status?.providerStatus).instanceId;

export function createGcpActuator(opts: GcpActuatorOptions): GcpActuator {
  return new GcpMachineActuator(opts);
}

class GcpMachineActuator implements GcpActuator {
  private readonly o: GcpActuatorOptions & typeof DEFAULTS;
  private readonly factory: GcpClientFactory;
  private readonly ownsFactory: boolean;
  /** What exists() last saw per Machine UID, for update() in the same reconcile. */
  private readonly snapshots: TtlCache<Instance>;
  private readonly images: BootImageChecker;
  private readonly tags: TagResolver;
  /** Per Machine UID: how many insert operations failed, so the next insert gets a fresh requestId. */
  private readonly insertAttempts = new Map<string, number>();
  /** "<selfLink>|<what>" memberships already ensured by this process. */
  private readonly registered = new Set<string>();
  /** Machine UIDs whose delete was already announced by an event. */
  private readonly deleting = new Set<string>();
  /** "<uid>/<generation>" whose unknown fields were already reported. */
  private readonly warned = new Set<string>();

  constructor(opts: GcpActuatorOptions) {
    this.o = { ...DEFAULTS, ...opts };
    this.ownsFactory = !opts.clientFactory;
    this.factory =
      opts.clientFactory ??
      new GcpClientFactory({ clock: opts.clock, endpoint: opts.endpoint, rateLimits: opts.rateLimits, batchWindowMs: opts.batchWindowMs, createComputeApi: opts.createComputeApi });
    this.snapshots = new TtlCache(opts.clock, this.o.snapshotTtlMs);
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

  /** Writes what the instance says onto the Machine (A2.3): providerID, addresses, labels, state. */
  private record(scope: MachineScope, instance: Instance): void {
    const m = scope.machine;
    const state = instanceStatus(instance);
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

  async create(machine: Machine, ctx: ActuatorContext): Promise<void> {
    await reportActuatorFailures('create', machine, ctx, { reason: 'failed to create instance via compute service', describe: messageOf }, () => this.doCreate(machine, ctx));
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

  /** Waits for a zone operation to finish, up to operationWaitMs; undefined when it is still running. */
  private async waitForOperation(compute: ComputeApi, scope: MachineScope, op: Operation, signal: AbortSignal): Promise<Operation | undefined> {
    let cur = op;
    const deadline = this.o.clock.now() + this.o.operationWaitMs;
    while (!isOperationDone(cur)) {
      const left = deadline - this.o.clock.now();
      if (left <= 0 || !cur.name) return undefined;
      const expiry = new AbortController();
      const timer = this.o.clock.setTimeout(() => expiry.abort(), left);
      const bounded = AbortSignal.any([signal, expiry.signal]);
      try {
        cur = await compute.waitZoneOperation(scope.project, scope.spec.zone, cur.name, { signal: bounded });
      } catch (err) {
        if (signal.aborted) throw err;
        if (expiry.signal.aborted) return undefined;
        throw err;
      } finally {
        timer.cancel();
      }
    }
    return cur;
  }

  private async doCreate(machine: Machine, ctx: ActuatorContext): Promise<void> {
    const scope = await this.scope(machine, ctx);
    const { compute } = scope.clients;
    const uid = machine.metadata.uid ?? machine.metadata.name ?? '';
    const body = await failureStep('failed to create instance via compute service', () => this.instanceBody(scope, ctx.signal));
    const attemptNo = this.insertAttempts.get(uid) ?? 0;

    let op: Operation | undefined;
    try {
      op = await compute.insertInstance(scope.project, scope.spec.zone, body, requestIdFor(uid, 'insert', attemptNo), { signal: ctx.signal });
    } catch (err) {
      if (classifyGceError(err) === 'alreadyExists') {
        // A racing or earlier insert made it (the name is ours): adopt it rather than fail the Machine.
        ctx.log.info('instance already exists; adopting it', { instance: scope.instanceName });
      } else {
        throw this.insertFailed(scope, this.locationError(scope, err) ?? err);
      }
    }
    // Known before anything else can fail: exists() confirms by name from now on.
    scope.status.instanceId = scope.instanceName;
    scope.saveStatus();

    if (op) {
      const done = await this.waitForOperation(compute, scope, op, ctx.signal);
      if (!done) {
        ctx.log.info('insert operation still running; requeueing', { operation: op.name });
        throw new RequeueAfterError(this.o.requeueAfterMs);
      }
      try {
        throwIfOperationFailed(done);
      } catch (err) {
        if (classifyGceError(err) !== 'alreadyExists') {
          // GCE replays a requestId's operation, failed ones too: the next insert must be a new request.
          this.insertAttempts.set(uid, attemptNo + 1);
          scope.status.instanceId = null;
          throw this.insertFailed(scope, err);
        }
      }
    }
    const instance = await this.lookup(scope, ctx.signal);
    if (!instance) {
      // instances.get is consistent once the operation is DONE: the instance was made and has gone since
      // (GCE replayed an old operation for this requestId), so the next insert must be a new request.
      if (op) this.insertAttempts.set(uid, attemptNo + 1);
      scope.status.instanceId = null;
      scope.saveStatus();
      throw new RequeueAfterError(this.o.requeueAfterMs);
    }
    this.insertAttempts.delete(uid);
    this.record(scope, instance);
    this.snapshots.set(uid, instance);
    ctx.log.info('created instance', { instance: scope.instanceName, state: instanceStatus(instance) });
    ctx.events.event(machine, 'Normal', 'Create', 'Create', `Created Machine ${machine.metadata.name ?? ''}`);
  }

  private insertFailed(scope: MachineScope, err: unknown): Error {
    const message = describeGceError(err);
    this.failCreation(scope, message);
    if (err instanceof InvalidMachineConfigurationError) return err;
    const wrapped =
      classifyGceError(err) === 'invalid'
        ? new InvalidMachineConfigurationError(`error launching instance: ${message}`, { cause: err })
        : createMachineError(`failed to create instance via compute service: ${message}`, err);
    setFailureReason(wrapped, 'failed to create instance via compute service');
    return wrapped;
  }

  async exists(machine: Machine, ctx: ActuatorContext): Promise<boolean> {
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
      return true;
    }
    this.snapshots.delete(uid);
    return false;
  }

  async update(machine: Machine, ctx: ActuatorContext): Promise<void> {
    await reportActuatorFailures('update', machine, ctx, { reason: 'failed to add instance to target pool', describe: messageOf }, () => this.doUpdate(machine, ctx));
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
        errors.push(messageOf(err));
      }
    }
    const groupKey = `${link}|group`;
    if (running && isControlPlane(scope) && !this.registered.has(groupKey)) {
      try {
        await registerWithInstanceGroup(scope.clients.compute, scope, ctx.signal);
        this.registered.add(groupKey);
      } catch (err) {
        errors.push(`failed to register instance to instance group: ${messageOf(err)}`);
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
    await reportActuatorFailures('delete', machine, ctx, { reason: 'failed to delete instance via compute service', describe: messageOf }, () => this.doDelete(machine, ctx));
  }

  private async doDelete(machine: Machine, ctx: ActuatorContext): Promise<void> {
    const scope = await scopeForDelete(machine, () => this.scope(machine, ctx), messageOf);
    const uid = machine.metadata.uid ?? '';
    this.snapshots.delete(uid);
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
      ctx.log.info('instance not found during delete; nothing to do', { instance: scope.instanceName });
      this.forget(scope, uid);
      return;
    }
    if (isControlPlane(scope)) {
      await failureStep('failed to unregister instance from instance group', () => deregisterFromInstanceGroup(compute, scope, ctx.signal));
    }
    try {
      await compute.deleteInstance(scope.project, scope.spec.zone, scope.instanceName, deleteRequestIdFor(uid), { signal: ctx.signal });
    } catch (err) {
      const cls = classifyGceError(err);
      if (cls === 'notFound') {
        this.forget(scope, uid);
        return;
      }
      const detail = instance.deletionProtection ? ' (deletionProtection is enabled on the instance: turn it off to let the Machine go)' : '';
      const wrapped = deleteMachineError(`failed to delete instance via compute service: ${describeGceError(err)}${detail}`, err);
      setFailureReason(wrapped, 'failed to delete instance via compute service');
      throw wrapped;
    }
    machine.metadata.annotations = { ...machine.metadata.annotations, [MachineInstanceStateAnnotation]: instanceStatus(instance) === 'RUNNING' ? 'STOPPING' : instanceStatus(instance) };
    if (!this.deleting.has(uid)) {
      this.deleting.add(uid);
      ctx.log.info('deleting instance', { instance: scope.instanceName });
      ctx.events.event(machine, 'Normal', 'Delete', 'Delete', `Deleted machine ${machine.metadata.name ?? ''}`);
    }
  }

  private forget(scope: MachineScope, uid: string): void {
    for (const key of [...this.registered]) if (key.startsWith(`${scope.providerID}|`)) this.registered.delete(key);
    this.deleting.delete(uid);
    this.insertAttempts.delete(uid);
  }
}

function messageOf(err: unknown): string {
  if (err instanceof InvalidMachineConfigurationError || err instanceof RequeueAfterError) return err.message;
  return err instanceof Error ? describeGceError(err) : String(err);
}
