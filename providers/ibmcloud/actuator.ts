// The IBM Cloud VPC actuator: the VPC's ports and steps on the cloud actuator template (lib/machine/cloud-actuator).
// Reference: https://github.com/openshift/machine-api-provider-ibmcloud/blob/main/pkg/actuators/machine/reconciler.go
// Where it departs from the reference, on purpose:
// - one IAM-authenticated client per API key and one endpoint look-up per region, reused (the reference gets
//   a new token and GETs the region on every Exists, Create and Update), and client-construction failures
//   are retried, never terminal;
// - the spec's names are resolved to ids once per spec and cached; every list is paged to the end; security
//   groups are looked up in the network resource group; look-up failures are never swallowed;
// - the instance is looked up by id once known, by name within the VPC before that; creation is idempotent
//   by name: create() POSTs without looking first, and a name taken (a create racing another, or replayed
//   after a lost reply) answers 409 and the instance is adopted; the id is recorded as soon as POST answers;
// - existence checks are batched into one instance list per VPC and window, and update uses what exists()
//   just saw;
// - 429, 5xx and lost replies are retried, never terminal; bad requests are InvalidConfiguration naming the
//   field; spec tags are attached (Global Tagging); "0.0.0.0" is never recorded as an address;
// - DELETE is issued once (not every 20 s while the instance is `deleting`);
// - the stuck-machine replacement (stuck-machine.ts) is kept, without rewriting the phase: the instance is
//   deleted and forgotten, and the machine controller's create makes it again under the same name.
import {
  CloudActuator,
  InsufficientCapacityError,
  InvalidMachineConfigurationError,
  MachineInstanceStateAnnotation,
  RequeueAfterError,
  createMachineError,
  deleteMachineError,
  failureStep,
  machineChangeFingerprint,
  setFailureReason,
  updateMachineError,
  viewCanBeCurrent,
  type Actuator,
  type ActuatorContext,
  type Clock,
  type CloudRateLimits,
  type KubeClient,
  type Machine,
  type MachineChangeMark,
} from '../../lib/index.js';
import { classifyVpcError, describeVpcError } from './errors.js';
import { isVpcApiError } from './vpc-api-error.js';
import { IbmClientFactory, type IbmClientFactoryOptions, type IbmEndpoints } from './ibm-clients.js';
import { addressesOf, buildInstancePrototype, isBooting, machineLabelsFor, providerIdOf, stateToRecord, tagNamesOf } from './instances.js';
import { newMachineScope, secretsReferencedBy, userDataFor, type MachineScope } from './machine-scope.js';
import type { RetryPolicy } from './metered-vpc-api.js';
import { NameResolver } from './name-resolver.js';
import { MachineCreatedConditionType, decodeProviderStatus, setCondition, type IBMCloudMachineProviderStatus } from './provider-spec.js';
import { StuckMachines, STUCK_MACHINE_TIMEOUT_MS } from './stuck-machine.js';
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
  /** How long after a create the VPC's reads may not show the instance (default DEFAULT_VISIBILITY_WINDOW_MS, as every cloud). */
  eventualConsistencyWindowMs?: number;
  /** How long resolved name → id mappings are kept (default 1 h). */
  resolutionTtlMs?: number;
  /**
   * How long an instance may run without its Machine getting a Node before it is replaced once, when its
   * Ignition merges the machine config server's config (the reference's 15 min; see stuck-machine.ts); 0 = never.
   */
  stuckMachineTimeoutMs?: number;
}

export type IbmCloudActuator = Actuator;

const DEFAULT_REQUEUE_AFTER_MS = 20_000;

/**
 * Whether a failed POST /instances may have left this Machine an instance: no answer, a 5xx or a timeout (it may
 * have been made), or a 409 (the name is taken: most likely by what an earlier POST of ours made, which a
 * lagging list may not show yet).
 */
const mayHaveLaunched = (err: unknown): boolean => !(isVpcApiError(err) && err.status >= 400 && err.status < 500 && err.status !== 408 && err.status !== 409);

export function createIbmCloudActuator(opts: IbmCloudActuatorOptions): IbmCloudActuator {
  return new IbmCloudMachineActuator(opts);
}

class IbmCloudMachineActuator extends CloudActuator<MachineScope, VpcInstance> {
  private readonly factory: IbmClientFactory;
  private readonly resolver: NameResolver;
  private readonly requeueAfterMs: number;
  private readonly stuck: StuckMachines;

  constructor(private readonly o: IbmCloudActuatorOptions) {
    super({
      clock: o.clock,
      isTerminating: (state) => state === 'deleting',
      idFromLaunchReply: true,
      visibilityWindowMs: o.eventualConsistencyWindowMs,
      creationCondition: MachineCreatedConditionType,
      setCondition: (status, cond, now) => setCondition(status as IBMCloudMachineProviderStatus, cond, now),
      failureReasons: { create: 'failed to create instance via ibm vpc client', update: 'failed to update machine', delete: 'failed to delete instance via ibmClient' },
      describeError: describeVpcError,
      recordedInstanceId: (m) => decodeProviderStatus(m.status?.providerStatus).instanceId ?? undefined,
    });
    this.factory = o.clientFactory ?? new IbmClientFactory(o);
    this.resolver = new NameResolver(o.clock, o.resolutionTtlMs);
    this.requeueAfterMs = o.requeueAfterMs ?? DEFAULT_REQUEUE_AFTER_MS;
    this.stuck = new StuckMachines({ clock: o.clock, client: o.client, timeoutMs: o.stuckMachineTimeoutMs ?? STUCK_MACHINE_TIMEOUT_MS });
  }

  referencedSecrets(machine: Machine): string[] {
    return secretsReferencedBy(machine);
  }

  protected newScope(machine: Machine, signal: AbortSignal): Promise<MachineScope> {
    return newMachineScope(machine, { client: this.o.client, clients: this.factory }, signal);
  }

  protected idOf(instance: VpcInstance): string | undefined {
    return instance.id;
  }

  protected isBooting(instance: VpcInstance): boolean {
    return isBooting(instance);
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

  protected async lookUp(scope: MachineScope, ctx: ActuatorContext): Promise<VpcInstance | undefined> {
    // By the recorded id (a batched list of the VPC, a miss confirmed by GET), else by name within the VPC.
    const id = this.instanceIdOnRecord(scope);
    const current = viewCanBeCurrent(scope.machine, isBooting);
    const found = id
      ? ((await scope.clients.findInstance(scope.spec.vpc, { id }, ctx.signal, current)) ?? (await this.getById(scope, id, ctx.signal)))
      : await scope.clients.findInstance(scope.spec.vpc, { name: scope.instanceName }, ctx.signal, current);
    // Found by name only while being deleted: a predecessor's of the same name, not this Machine's.
    return found && !(found.status === 'deleting' && !scope.status.instanceId) ? found : undefined;
  }

  /**
   * What create records the moment the VPC names the instance: enough for exists() to find it by id. Only
   * the provider status: the Machine's metadata (instance-state annotation, labels, providerID) waits for the
   * update that follows, so that creating costs one status write and no metadata write of its own.
   */
  private recordCreated(scope: MachineScope, instance: VpcInstance): void {
    scope.status.instanceId = instance.id;
    scope.status.instanceState = stateToRecord(scope.status.instanceState, instance);
    this.stuck.replaced(scope, this.nowIso());
    this.creationSucceeded(scope);
  }

  protected async createInstance(scope: MachineScope, ctx: ActuatorContext): Promise<void> {
    const { machine } = scope;
    const { vpc } = scope.clients;
    const ids = await failureStep('failed to resolve the providerSpec names', () => this.resolver.resolve(scope.clients, scope.spec, ctx.signal));
    const userData = await failureStep('failed to get user data', () => userDataFor(machine, scope.spec, this.o.client, ctx.signal));
    const prototype = buildInstancePrototype(scope.instanceName, scope.spec, ids, userData);
    let instance: VpcInstance;
    try {
      instance = await this.launch(scope, () => vpc.createInstance(prototype, { signal: ctx.signal }), (i) => i.id, mayHaveLaunched);
    } catch (err) {
      if (classifyVpcError(err) !== 'alreadyExists') throw this.createFailed(scope, err);
      // The name is taken in this VPC: an earlier or racing create of this Machine made it, or a predecessor
      // of the same name is still going away. A fresh read tells which.
      const taken = (await vpc.listInstances({ name: scope.instanceName, vpcName: scope.spec.vpc }, { signal: ctx.signal }))[0];
      if (!taken || taken.status === 'deleting') {
        ctx.log.info('instance name taken by an instance not listed yet, or still being deleted; requeueing', { instance: scope.instanceName });
        throw new RequeueAfterError(this.requeueAfterMs);
      }
      ctx.log.info('instance name already taken in the VPC; adopting the instance', { instanceId: taken.id, state: taken.status });
      this.recordCreated(scope, taken);
      this.adopted(scope, taken.id);
      return;
    }
    // Recorded before anything else can fail: the controller persists it as soon as create returns.
    this.recordCreated(scope, instance);
    this.announceCreated(machine, ctx, { instanceId: instance.id, state: instance.status });
  }

  private createFailed(scope: MachineScope, err: unknown): Error {
    const message = describeVpcError(err);
    this.creationFailed(scope, message);
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

  /**
   * The VPC allocates the address only as the instance leaves `pending`, after its providerID was recorded:
   * recording that first address is still part of creating the instance, which "Created" announced.
   */
  protected override changeMark(machine: Machine): MachineChangeMark {
    const mark = machineChangeFingerprint(machine);
    return { ...mark, provisioned: mark.provisioned && !!machine.status?.addresses?.some((a) => a.type === 'InternalIP') };
  }

  protected async updateInstance(scope: MachineScope, seen: VpcInstance | undefined, ctx: ActuatorContext): Promise<void> {
    const m = scope.machine;
    const instance = seen ?? (await this.lookUp(scope, ctx));
    if (!instance) throw new RequeueAfterError(this.requeueAfterMs);
    if (await this.stuck.shouldReplace(scope, instance, ctx)) {
      await this.stuck.replace(scope, instance, ctx, this.nowIso());
      this.forgetSeen(ctx);
      this.launches?.forget(m.metadata.uid ?? '');
      return;
    }
    const accountId = await scope.clients.accountId(ctx.signal);
    m.spec = { ...m.spec, providerID: providerIdOf(accountId, scope.clusterId, instance.id) };
    m.status = { ...m.status, addresses: addressesOf(scope.instanceName, instance) };
    m.metadata.labels = { ...m.metadata.labels, ...machineLabelsFor(scope.spec) };
    this.recordCreated(scope, instance);
    m.metadata.annotations = { ...m.metadata.annotations, [MachineInstanceStateAnnotation]: scope.status.instanceState ?? instance.status };

    const tags = tagNamesOf(scope.spec);
    if (tags.length > 0 && instance.status !== 'deleting') {
      try {
        await this.ensureOnce(scope, `tags|${instance.id}|${JSON.stringify(tags)}`, async () => {
          const failed = (await scope.clients.vpc.attachTags([instance.crn], tags, { signal: ctx.signal })).filter((r) => r.is_error);
          if (failed.length > 0) throw new Error(failed.map((r) => r.message ?? 'attach failed').join('; '));
        });
      } catch (tagError) {
        const err = updateMachineError(`failed to tag instance ${instance.id}: ${describeVpcError(tagError)}`, tagError);
        setFailureReason(err, 'failed to tag instance');
        throw err;
      }
    }
  }

  protected async deleteInstance(scope: MachineScope, ctx: ActuatorContext): Promise<boolean> {
    const { machine } = scope;
    const uid = machine.metadata.uid ?? '';
    const id = this.instanceIdOnRecord(scope);
    // Fresh reads, not the batch: deciding to delete deserves the current state. By id when one is known; by
    // the Machine's identity (its name in the VPC) otherwise, and when the id misses an instance that was never
    // seen terminating (the id's read may lag, or the instance was made again under the same name).
    let instance = id ? await failureStep('failed to get instance', () => this.getById(scope, id, ctx.signal)) : undefined;
    if (!instance && (!id || !this.guard.terminationSeen(machine))) {
      const named = (await failureStep('failed to get instance', () => scope.clients.vpc.listInstances({ name: scope.instanceName, vpcName: scope.spec.vpc }, { signal: ctx.signal })))[0];
      // Another instance of the name already going away is a predecessor's, not the one on record.
      instance = named && id && named.id !== id && named.status === 'deleting' ? undefined : named;
    }
    if (!instance) {
      this.released(scope, ctx, { instance: scope.instanceName, instanceId: id });
      return false;
    }
    this.foundWhileDeleting(uid);
    if (instance.status !== 'deleting') {
      try {
        await scope.clients.vpc.deleteInstance(instance.id, { signal: ctx.signal });
      } catch (err) {
        if (classifyVpcError(err) === 'notFound') {
          this.released(scope, ctx, { instance: scope.instanceName, instanceId: instance.id });
          return false;
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
    this.announceDeleting(machine, ctx, { instanceId: instance.id });
    return true;
  }
}
