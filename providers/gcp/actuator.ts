// The GCP actuator: GCE's ports and steps on the cloud actuator template (lib/machine/cloud-actuator).
// Reference: https://github.com/openshift/machine-api-provider-gcp/blob/main/pkg/cloud/gcp/actuators/machine/reconciler.go
// Where it departs from the reference, on purpose:
// - the instance name is the Machine name and insert carries a requestId derived from the Machine UID, so a
//   retried insert (lost reply, controller restart) is GCE's same request, and a 409 from a racing insert
//   adopts the instance instead of failing the Machine;
// - no worker waits for an instance to boot: create() records the instance name as soon as GCE accepts the
//   insert and returns; the zone operation, not a read that may lag, says whether the insert failed later
//   (quota, stock-out), and one non-blocking zoneOperations.get asks it only while the instance is not seen
//   (insert-outcomes.ts);
// - quota, stock-outs, throttling (403 rateLimitExceeded, 429) and 5xx are never terminal;
// - existence checks are batched into one instances.list per zone and window, a miss is confirmed with
//   instances.get before anything is called gone, and update uses what exists() just saw;
// - a missing master instance group does not block deletion.
import {
  CloudActuator,
  MachineCreatedCondition,
  MachineInstanceStateAnnotation,
  MachineInterruptibleInstanceLabel,
  RequeueAfterError,
  deleteMachineError,
  failureStep,
  isInvalidMachineConfiguration,
  isMachineProvisioned,
  setFailureReason,
  type Actuator,
  type ActuatorContext,
  type Clock,
  type CloudRateLimits,
  type KubeClient,
  type Machine,
} from '../../lib/index.js';
import { InstanceBodyBuilder } from './instance-body.js';
import { isOperationDone, throwIfOperationFailed, type Instance, type Operation } from './compute-api.js';
import { classifyGceError, describeGceError } from './errors.js';
import { checkGpuQuota } from './gpu-quota.js';
import { GcpClientFactory, type GcpClientFactoryOptions } from './gcp-clients.js';
import { getInstance, locationError } from './instance-lookup.js';
import { InsertOutcomes, describeFailure, refusedOutright } from './insert-outcomes.js';
import { addressesOf, deleteRequestIdFor, instanceStatus, isBooting, isInterruptible, machineLabelsFor, requestIdFor, stateToRecord } from './instances.js';
import { deregisterFromInstanceGroup, deregisterFromTargetPools, isControlPlane, registerWithInstanceGroup, registerWithTargetPools } from './load-balancers.js';
import { newMachineScope, secretsReferencedBy, type MachineScope } from './machine-scope.js';
import { PendingInserts } from './pending-inserts.js';
import { decodeProviderStatus, type ResourceManagerTag } from './provider-spec.js';
import type { TagValueLookup } from './resource-manager-tags.js';

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
  /** How long after an insert GCE's reads may not show the instance (default DEFAULT_VISIBILITY_WINDOW_MS, as every cloud). */
  eventualConsistencyWindowMs?: number;
}

export interface GcpActuator extends Actuator {
  /** Closes the Compute clients' connections (only those this actuator built). */
  close(): Promise<void>;
}

const DEFAULT_REQUEUE_AFTER_MS = 20_000;
const CREATED_MESSAGE = 'machine successfully created';

export function createGcpActuator(opts: GcpActuatorOptions): GcpActuator {
  return new GcpMachineActuator(opts);
}

class GcpMachineActuator extends CloudActuator<MachineScope, Instance> implements GcpActuator {
  private readonly factory: GcpClientFactory;
  private readonly ownsFactory: boolean;
  private readonly bodies: InstanceBodyBuilder;
  /** Per Machine UID: inserts GCE accepted that no read has shown yet (attempt, operation, insert backoff). */
  private readonly inserts: PendingInserts;
  private readonly outcomes: InsertOutcomes;

  constructor(private readonly o: GcpActuatorOptions) {
    super({
      clock: o.clock,
      // GCE has no "deleted" state: STOPPING is what delete() records once GCE accepted the delete.
      isTerminating: (state) => state === 'STOPPING',
      // The instance id (its name) is on record before the insert is sent.
      idFromLaunchReply: false,
      visibilityWindowMs: o.eventualConsistencyWindowMs,
      creationCondition: MachineCreatedCondition,
      failureReasons: { create: 'failed to create instance via compute service', update: 'failed to add instance to target pool', delete: 'failed to delete instance via compute service' },
      describeError: describeFailure,
      recordedInstanceId: (m) => decodeProviderStatus(m.status?.providerStatus).instanceId ?? undefined,
    });
    this.ownsFactory = !o.clientFactory;
    this.factory = o.clientFactory ?? new GcpClientFactory(o);
    this.inserts = new PendingInserts();
    this.outcomes = new InsertOutcomes(this.inserts, (scope, message) => this.creationFailed(scope, message));
    this.bodies = new InstanceBodyBuilder(o);
  }

  async close(): Promise<void> {
    if (this.ownsFactory) await this.factory.close();
  }

  referencedSecrets(machine: Machine): string[] {
    return secretsReferencedBy(machine);
  }

  protected newScope(machine: Machine, signal: AbortSignal): Promise<MachineScope> {
    return newMachineScope(machine, { client: this.o.client, clients: this.factory, defaultProject: this.o.defaultProject, defaultImage: this.o.defaultImage }, signal);
  }

  protected idOf(instance: Instance): string | undefined {
    return instance.name ?? undefined;
  }

  protected isBooting(instance: Instance): boolean {
    return isBooting(instance);
  }

  protected async lookUp(scope: MachineScope, ctx: ActuatorContext): Promise<Instance | 'ended' | undefined> {
    try {
      const listed = await scope.clients.findInstance(scope.project, scope.spec.zone, scope.instanceName, ctx.signal);
      // A list may lag behind a fresh insert: only instances.get may call an instance gone.
      return listed ?? (await getInstance(scope, ctx.signal));
    } catch (err) {
      const located = locationError(scope, err) ?? err;
      // A project or zone that does not exist holds nothing, unless an instance is on record.
      if (isInvalidMachineConfiguration(located) && !scope.status.instanceId && !scope.machine.spec?.providerID) return 'ended';
      throw located;
    }
  }

  /** An inserted instance no read shows: wait only while its insert operation may still make it. */
  protected override async mayStillShow(scope: MachineScope, ctx: ActuatorContext): Promise<boolean> {
    // 'unknown': create() sends the insert again under the same requestId, and GCE answers with the original
    // operation instead of making a second instance.
    return (await this.outcomes.of(scope, scope.machine.metadata.uid ?? '', ctx.signal)) === 'pending';
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
    this.inserts.seen(m.metadata.uid ?? '');
    this.creationSucceeded(scope, CREATED_MESSAGE);
  }

  protected async createInstance(scope: MachineScope, ctx: ActuatorContext): Promise<void> {
    const { compute } = scope.clients;
    const uid = scope.machine.metadata.uid ?? scope.machine.metadata.name ?? '';
    // An insert GCE accepted and then failed in its operation (quota, stock-out) is reported here, as any
    // other create failure; the next pass, after the controller's backoff, sends a new insert.
    const failure = this.inserts.takeFailure(uid);
    if (failure) throw this.outcomes.failed(scope, failure);
    try {
      await checkGpuQuota(compute, scope.project, scope.spec, ctx.signal);
    } catch (err) {
      throw this.outcomes.failed(scope, err);
    }
    const body = await failureStep('failed to create instance via compute service', () => this.bodies.build(scope, ctx.signal));
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
      throw this.outcomes.failed(scope, locationError(scope, err) ?? err);
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
          throw this.outcomes.failed(scope, err);
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
    this.creationSucceeded(scope, CREATED_MESSAGE);
    this.announceCreated(m, ctx, { instance: scope.instanceName, operation });
  }

  protected async updateInstance(scope: MachineScope, seen: Instance | undefined, ctx: ActuatorContext): Promise<void> {
    const instance = seen ?? (await getInstance(scope, ctx.signal));
    if (!instance) throw new RequeueAfterError(this.o.requeueAfterMs ?? DEFAULT_REQUEUE_AFTER_MS);
    this.record(scope, instance);

    const errors: string[] = [];
    const link = scope.providerID;
    const pools = scope.spec.targetPools ?? [];
    if (pools.length > 0) {
      try {
        await this.ensureOnce(scope, `pools|${link}|${JSON.stringify(pools)}`, () => registerWithTargetPools(scope.clients.compute, scope, ctx.signal));
      } catch (err) {
        errors.push(describeFailure(err));
      }
    }
    if (instanceStatus(instance) === 'RUNNING' && isControlPlane(scope)) {
      try {
        await this.ensureOnce(scope, `group|${link}`, () => registerWithInstanceGroup(scope.clients.compute, scope, ctx.signal));
      } catch (err) {
        errors.push(`failed to register instance to instance group: ${describeFailure(err)}`);
      }
    }
    if (errors.length > 0) {
      const err = new Error(errors.join('; '));
      setFailureReason(err, 'failed to add instance to target pool');
      throw err;
    }
  }

  protected async deleteInstance(scope: MachineScope, ctx: ActuatorContext): Promise<boolean> {
    const { machine } = scope;
    const uid = machine.metadata.uid ?? '';
    const { compute } = scope.clients;
    await failureStep('failed to remove instance from target pool', () => deregisterFromTargetPools(compute, scope, ctx.signal));
    let instance: Instance | undefined;
    try {
      instance = await getInstance(scope, ctx.signal);
    } catch (err) {
      // An invalid project or zone never held an instance unless one is on record.
      if (isInvalidMachineConfiguration(err) && !machine.spec?.providerID) {
        this.forget(uid);
        return false;
      }
      throw err;
    }
    if (!instance) {
      // An insert whose operation failed made nothing (its outcome takes the name off the record).
      if (!isMachineProvisioned(machine) && this.guard.mayNotShowYet(machine, this.recordedLaunch(scope))) await this.outcomes.of(scope, uid, ctx.signal);
      this.released(scope, ctx, { instance: scope.instanceName });
      return false;
    }
    this.foundWhileDeleting(uid);
    const before = instanceStatus(instance);
    // A delete already sent shows as STOPPING until GCE removes the instance: sending it again would only spend
    // the project's write quota, which a scale-down shares with the inserts of the next scale-up.
    if (before !== 'STOPPING' || !this.guard.terminationSeen(machine)) {
      if (isControlPlane(scope)) {
        await failureStep('failed to unregister instance from instance group', () => deregisterFromInstanceGroup(compute, scope, ctx.signal));
      }
      try {
        await compute.deleteInstance(scope.project, scope.spec.zone, scope.instanceName, deleteRequestIdFor(uid), { signal: ctx.signal });
      } catch (err) {
        if (classifyGceError(err) === 'notFound') {
          this.released(scope, ctx, { instance: scope.instanceName });
          return false;
        }
        const detail = instance.deletionProtection ? ' (deletionProtection is enabled on the instance: turn it off to let the Machine go)' : '';
        const wrapped = deleteMachineError(`failed to delete instance via compute service: ${describeGceError(err)}${detail}`, err);
        setFailureReason(wrapped, 'failed to delete instance via compute service');
        throw wrapped;
      }
    }
    // GCE stops any instance it was told to delete (provisioning, staging or running alike) before it removes it;
    // only one already stopped goes straight away.
    const state = before === 'TERMINATED' || before === 'STOPPING' ? before : 'STOPPING';
    machine.metadata.annotations = { ...machine.metadata.annotations, [MachineInstanceStateAnnotation]: state };
    // Seen: from now on, no read showing it means it is gone.
    this.guard.seenTerminating(uid);
    scope.status.instanceState = state;
    scope.saveStatus();
    this.announceDeleting(machine, ctx, { instance: scope.instanceName });
    return true;
  }

  protected override forget(uid: string): void {
    super.forget(uid);
    this.inserts.forget(uid);
  }
}
