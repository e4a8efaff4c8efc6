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
  failureStep,
  isMachineProvisioned,
  type Actuator,
  type ActuatorContext,
  type CapacityEntry,
  type CloudActuatorOptions,
  type LaunchRateLine,
  type Machine,
} from '../../lib/index.js';
import type { Instance } from './compute-api.js';
import { classifyGceError, describeFailure, gceDeleteFailure } from './errors.js';
import { GcpClientFactory, type GcpClientFactoryOptions } from './gcp-clients.js';
import { InstanceBodyBuilder, type InstanceBodyOptions } from './instance-body.js';
import { InstanceInserts } from './instance-inserts.js';
import { getForDelete, getInstance, lookUpInstance } from './instance-lookup.js';
import { recordInstance } from './instance-recorder.js';
import { deleteRequestIdFor, instanceStatus, isBooting } from './instances.js';
import {
  deregisterFromInstanceGroup,
  deregisterFromTargetPools,
  isControlPlane,
  joinLoadBalancers,
} from './load-balancers.js';
import { gcpCapacityChoice } from './fallbacks.js';
import {
  launchProjectOf,
  newMachineScope,
  scopeForSpec,
  secretsReferencedBy,
  type MachineScope,
} from './machine-scope.js';

type SharedClientOptions = 'endpoint' | 'rateLimits' | 'batchWindowMs' | 'createComputeApi';
type BodyOptions = 'infrastructureLabels' | 'infrastructureTags' | 'tagValueLookup';

/** The client options are the factory's (when the actuator builds its own), the body options the insert body's. */
export interface GcpActuatorOptions
  extends
    CloudActuatorOptions,
    Pick<GcpClientFactoryOptions, SharedClientOptions>,
    Pick<InstanceBodyOptions, BodyOptions> {
  /** Share one factory (and so one rate limiter) with the instance-type catalog; else one is built. */
  clientFactory?: GcpClientFactory;
  /** The project for specs and credentials that name none. */
  defaultProject?: string;
  /** The installer's boot image, for specs without disks. */
  defaultImage?: string;
}

export interface GcpActuator extends Actuator {
  /** Closes the Compute clients' connections (only those this actuator built). */
  close(): Promise<void>;
}

const CREATED_MESSAGE = 'machine successfully created';

export function createGcpActuator(opts: GcpActuatorOptions): GcpActuator {
  return new GcpMachineActuator(opts);
}

class GcpMachineActuator extends CloudActuator<MachineScope, Instance> implements GcpActuator {
  private readonly factory: GcpClientFactory;
  private readonly ownsFactory: boolean;
  private readonly inserts: InstanceInserts;

  constructor(private readonly o: GcpActuatorOptions) {
    super(o, {
      // GCE has no "deleted" state: STOPPING is what delete() records once GCE accepted the delete.
      isTerminating: (state) => state === 'STOPPING',
      // The instance id (its name) is on record before the insert is sent.
      idFromLaunchReply: false,
      creationCondition: MachineCreatedCondition,
      failureReasons: {
        create: 'failed to create instance via compute service',
        update: 'failed to add instance to target pool',
        delete: 'failed to delete instance via compute service',
      },
      describeError: describeFailure,
      refusesCredentials: (err) => classifyGceError(err) === 'unauthorized',
    });
    this.ownsFactory = !o.clientFactory;
    this.factory = o.clientFactory ?? new GcpClientFactory(o);
    this.inserts = new InstanceInserts(new InstanceBodyBuilder(o), {
      creationFailed: (scope, message) => this.creationFailed(scope, message),
      launchFailed: (scope, err, failure) => this.launchFailed(scope, err, failure),
    });
  }

  async close(): Promise<void> {
    if (this.ownsFactory) await this.factory.close();
  }

  referencedSecrets(machine: Machine): string[] {
    return secretsReferencedBy(machine);
  }

  protected override launchRateLine(machine: Machine): LaunchRateLine | undefined {
    const scope = launchProjectOf(machine);
    return scope ? { limiter: this.factory.limiter, scope } : undefined;
  }

  protected newScope(machine: Machine, signal: AbortSignal): Promise<MachineScope> {
    return newMachineScope(machine, { ...this.o, clients: this.factory }, signal);
  }

  protected override capacityEntries(scope: MachineScope): CapacityEntry<MachineScope>[] | undefined {
    if (scope.fallbacks.length === 0) return undefined;
    const region = scope.spec.region;
    return [scope.spec, ...scope.fallbacks].map((spec) => ({
      scope: scopeForSpec(scope, spec),
      choice: gcpCapacityChoice(spec),
      region,
    }));
  }

  protected idOf(instance: Instance): string | undefined {
    return instance.name ?? undefined;
  }

  protected isBooting(instance: Instance): boolean {
    return isBooting(instance);
  }

  protected lookUp(scope: MachineScope, ctx: ActuatorContext): Promise<Instance | 'ended' | undefined> {
    return lookUpInstance(scope, ctx.signal);
  }

  /** An inserted instance no read shows: wait only while its insert operation may still make it. */
  protected override async mayStillShow(scope: MachineScope, ctx: ActuatorContext): Promise<boolean> {
    // 'unknown': create() sends the insert again under the same requestId, and GCE answers with the original
    // operation instead of making a second instance.
    return (await this.inserts.outcomeOf(scope, ctx.signal)) === 'pending';
  }

  protected async createInstance(scope: MachineScope, ctx: ActuatorContext): Promise<void> {
    const operation = await this.inserts.insert(scope, ctx);
    // With fallbacks, one look at the zone operation: GCE refuses a zone out of the machine type there at once,
    // and the next entry is then tried in this reconcile rather than a requeue later.
    if (operation !== undefined && scope.fallbacks.length > 0) {
      const refused = await this.inserts.refusedAlready(scope, ctx.signal);
      if (refused) throw refused;
    }
    // GCE took the insert (or the instance was there already): the name is on record, and the boot is not waited for.
    this.creationSucceeded(scope, CREATED_MESSAGE);
    this.announceCreated(scope.machine, ctx, { instance: scope.instanceName, operation });
  }

  protected async updateInstance(scope: MachineScope, seen: Instance | undefined, ctx: ActuatorContext): Promise<void> {
    const instance = this.toRecord(seen ?? (await getInstance(scope, ctx.signal)));
    recordInstance(scope, instance);
    this.inserts.seen(scope);
    this.creationSucceeded(scope, CREATED_MESSAGE);
    await joinLoadBalancers(scope, instance, ctx.signal, (what, ensure) => this.ensureOnce(scope, what, ensure));
  }

  protected async deleteInstance(scope: MachineScope, ctx: ActuatorContext): Promise<boolean> {
    const { machine } = scope;
    const uid = machine.metadata.uid ?? '';
    const { compute } = scope.clients;
    await failureStep('failed to remove instance from target pool', () =>
      deregisterFromTargetPools(compute, scope, ctx.signal),
    );
    const instance = await getForDelete(scope, ctx.signal);
    if (instance === 'nowhere') {
      this.forget(uid);
      return false;
    }
    if (!instance) {
      // An insert whose operation failed made nothing (its outcome takes the name off the record).
      if (!isMachineProvisioned(machine) && this.guard.mayNotShowYet(machine, this.recordedLaunch(scope)))
        await this.inserts.outcomeOf(scope, ctx.signal);
      this.released(scope, ctx, { instance: scope.instanceName });
      return false;
    }
    this.foundWhileDeleting(uid);
    const before = instanceStatus(instance);
    // A delete already sent shows as STOPPING until GCE removes the instance: sending it again would only spend
    // the project's write quota, which a scale-down shares with the inserts of the next scale-up.
    if (before !== 'STOPPING' || !this.guard.terminationSeen(machine)) {
      if (isControlPlane(scope))
        await failureStep('failed to unregister instance from instance group', () =>
          deregisterFromInstanceGroup(compute, scope, ctx.signal),
        );
      const send = () =>
        compute.deleteInstance(scope.project, scope.spec.zone, scope.instanceName, deleteRequestIdFor(uid), {
          signal: ctx.signal,
        });
      if (!(await this.sendTerminate(scope, ctx, send, gceDeleteFailure(instance, { instance: scope.instanceName }))))
        return false;
    }
    // GCE stops any instance it was told to delete (provisioning, staging or running alike) before it removes it;
    // only one already stopped goes straight away.
    this.terminating(scope, ctx, before === 'TERMINATED' || before === 'STOPPING' ? before : 'STOPPING', {
      instance: scope.instanceName,
    });
    return true;
  }

  protected override forget(uid: string): void {
    super.forget(uid);
    this.inserts.forget(uid);
  }
}
