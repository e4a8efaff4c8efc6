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
  type Actuator,
  type ActuatorContext,
  type CapacityEntry,
  type CloudActuatorOptions,
  type LaunchRateLine,
  type Machine,
  type MachineChangeMark,
} from '../../lib/index.js';
import { ibmCapacityChoice } from './fallbacks.js';
import { classifyVpcError, describeVpcError, mayHaveLaunched, vpcDeleteFailure, vpcLaunchFailure } from './errors.js';
import { IbmClientFactory, type IbmClientFactoryOptions } from './ibm-clients.js';
import { findForDelete, holderOfName, lookUpInstance } from './instance-lookup.js';
import { attachSpecTags, changeMarkOnceAddressed, recordInstance } from './instance-recorder.js';
import { isBooting, stateToRecord } from './instances.js';
import { LaunchRequests } from './launch-request.js';
import { launchRegionOf, newMachineScope, secretsReferencedBy, type MachineScope } from './machine-scope.js';
import { NameResolver } from './name-resolver.js';
import { MachineCreatedConditionType, setCondition, type IBMCloudMachineProviderStatus } from './provider-spec.js';
import { StuckMachines, STUCK_MACHINE_TIMEOUT_MS } from './stuck-machine.js';
import type { VpcInstance } from './vpc-types.js';

/** The client options are the factory's (when the actuator builds its own); the rest are the actuator's. */
export interface IbmCloudActuatorOptions
  extends
    CloudActuatorOptions,
    Pick<IbmClientFactoryOptions, 'endpoints' | 'rateLimits' | 'retry' | 'batchWindowMs' | 'createVpcApi'> {
  /** Share one factory (and so one rate limiter and one token per API key) with the instance-type catalog. */
  clientFactory?: IbmClientFactory;
  /** How long resolved name → id mappings are kept (default 1 h). */
  resolutionTtlMs?: number;
  /**
   * How long an instance may run without its Machine getting a Node before it is replaced once, when its
   * Ignition merges the machine config server's config (the reference's 15 min; see stuck-machine.ts); 0 = never.
   */
  stuckMachineTimeoutMs?: number;
}

export type IbmCloudActuator = Actuator;

export function createIbmCloudActuator(opts: IbmCloudActuatorOptions): IbmCloudActuator {
  return new IbmCloudMachineActuator(opts);
}

class IbmCloudMachineActuator extends CloudActuator<MachineScope, VpcInstance> {
  private readonly factory: IbmClientFactory;
  private readonly requests: LaunchRequests;
  private readonly stuck: StuckMachines;

  constructor(private readonly o: IbmCloudActuatorOptions) {
    super(o, {
      isTerminating: (state) => state === 'deleting',
      idFromLaunchReply: true,
      creationCondition: MachineCreatedConditionType,
      setCondition: (status, cond, now) => setCondition(status as IBMCloudMachineProviderStatus, cond, now),
      failureReasons: {
        create: 'failed to create instance via ibm vpc client',
        update: 'failed to update machine',
        delete: 'failed to delete instance via ibmClient',
      },
      describeError: describeVpcError,
      refusesCredentials: (err) => classifyVpcError(err) === 'unauthorized',
    });
    this.factory = o.clientFactory ?? new IbmClientFactory(o);
    this.stuck = new StuckMachines({ ...o, timeoutMs: o.stuckMachineTimeoutMs ?? STUCK_MACHINE_TIMEOUT_MS });
    this.requests = new LaunchRequests(new NameResolver(o.clock, o.resolutionTtlMs), o.client);
  }

  referencedSecrets(machine: Machine): string[] {
    return secretsReferencedBy(machine);
  }

  protected override launchRateLine(machine: Machine): LaunchRateLine | undefined {
    const scope = launchRegionOf(machine);
    return scope ? { limiter: this.factory.limiter, scope } : undefined;
  }

  protected newScope(machine: Machine, signal: AbortSignal): Promise<MachineScope> {
    return newMachineScope(machine, { client: this.o.client, clients: this.factory }, signal);
  }

  protected override capacityEntries(scope: MachineScope): CapacityEntry<MachineScope>[] | undefined {
    if (scope.fallbacks.length === 0) return undefined;
    return [scope.spec, ...scope.fallbacks].map((spec) => ({
      scope: { ...scope, spec },
      choice: ibmCapacityChoice(spec),
      region: scope.spec.region,
    }));
  }

  protected idOf(instance: VpcInstance): string | undefined {
    return instance.id;
  }

  protected isBooting(instance: VpcInstance): boolean {
    return isBooting(instance);
  }

  protected lookUp(scope: MachineScope, ctx: ActuatorContext): Promise<VpcInstance | undefined> {
    return lookUpInstance(scope, this.instanceIdOnRecord(scope), ctx.signal);
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
    const prototype = await this.requests.prototypeFor(scope, ctx.signal);
    const send = () => scope.clients.vpc.createInstance(prototype, { signal: ctx.signal });
    let instance: VpcInstance;
    try {
      instance = await this.launch(scope, send, (i) => i.id, mayHaveLaunched);
    } catch (err) {
      if (classifyVpcError(err) !== 'alreadyExists') {
        this.requests.refused(scope, err);
        throw this.launchFailed(scope, err, vpcLaunchFailure(err, scope.spec));
      }
      // The name is taken in this VPC: adopt the instance an earlier or racing create of this Machine made.
      const taken = await holderOfName(scope, this.requeueAfterMs, ctx);
      this.recordCreated(scope, taken);
      this.adopted(scope, taken.id);
      return;
    }
    // Recorded before anything else can fail: the controller persists it as soon as create returns.
    this.recordCreated(scope, instance);
    this.announceCreated(scope.machine, ctx, { instanceId: instance.id, state: instance.status });
  }

  /** The first address is still part of creating the instance (see changeMarkOnceAddressed). */
  protected override changeMark(machine: Machine): MachineChangeMark {
    return changeMarkOnceAddressed(machine);
  }

  protected async updateInstance(
    scope: MachineScope,
    seen: VpcInstance | undefined,
    ctx: ActuatorContext,
  ): Promise<void> {
    const instance = this.toRecord(seen ?? (await this.lookUp(scope, ctx)));
    if (await this.stuck.replaceIfStuck(scope, instance, ctx, this.nowIso())) {
      this.instanceReplaced(scope, ctx);
      return;
    }
    await recordInstance(scope, instance, ctx.signal, () => this.recordCreated(scope, instance));
    await attachSpecTags(scope, instance, ctx, (what, ensure) => this.ensureOnce(scope, what, ensure));
  }

  protected async deleteInstance(scope: MachineScope, ctx: ActuatorContext): Promise<boolean> {
    const id = this.instanceIdOnRecord(scope);
    const instance = await findForDelete(scope, id, this.guard.terminationSeen(scope.machine), ctx.signal);
    if (!instance) {
      this.released(scope, ctx, { instance: scope.instanceName, instanceId: id });
      return false;
    }
    this.foundWhileDeleting(scope.machine.metadata.uid ?? '');
    // DELETE is sent once: an instance already `deleting` is waited for.
    if (instance.status !== 'deleting') {
      const send = () => scope.clients.vpc.deleteInstance(instance.id, { signal: ctx.signal });
      if (
        !(await this.sendTerminate(
          scope,
          ctx,
          send,
          vpcDeleteFailure({ instance: scope.instanceName, instanceId: instance.id }),
        ))
      )
        return false;
    }
    this.terminating(scope, ctx, 'deleting', { instanceId: instance.id });
    return true;
  }
}
