// The AWS actuator: EC2's ports and steps on the cloud actuator template (lib/machine/cloud-actuator).
// Reference: https://github.com/openshift/machine-api-provider-aws/blob/main/pkg/actuators/machine/reconciler.go
// Where it departs from the reference, on purpose:
// - creation is idempotent at EC2: the ClientToken is derived from the Machine UID, so a retried or
//   replayed RunInstances (lost reply, controller restart) returns the instance launched first;
// - the instance id goes into providerStatus as soon as RunInstances answers, and nothing that can fail
//   runs after it in create (load balancers are joined by update once the instance runs);
// - instances launched for an earlier Machine of the same name are told apart by the UID tag / token;
// - duplicates are cleaned up (the oldest is kept); throttling and 5xx never fail a Machine;
// - existence checks are batched, and update uses what exists() just saw.
import type { Instance } from '@aws-sdk/client-ec2';
import {
  CloudActuator,
  MachineCreationCondition,
  type Actuator,
  type ActuatorContext,
  type CapacityEntry,
  type CloudActuatorOptions,
  type LaunchRateLine,
  type Machine,
} from '../../lib/index.js';
import { AwsClientFactory, type AwsClientFactoryOptions } from './aws-clients.js';
import { releaseHostOfRefusedLaunch } from './dedicated-hosts.js';
import { classifyEc2Error, describeEc2Error, ec2LaunchFailure, mayHaveLaunched } from './errors.js';
import { awsCapacityChoice } from './fallbacks.js';
import { InstanceFinder, instanceEndedError } from './instance-finder.js';
import { InstanceRecorder } from './instance-recorder.js';
import { InstanceTeardown } from './instance-teardown.js';
import { instanceState, isBooting, isGone, isTerminated, type IpFamily } from './instances.js';
import { launchRequestFor } from './launch-request.js';
import { launchRegionOf, newMachineScope, secretsReferencedBy, type MachineScope } from './machine-scope.js';
import type { TagSpecification } from './provider-spec.js';
import { withSecretCache, type SecretCachingClient } from './secret-cache.js';

type SharedClientOptions =
  | 'endpoint'
  | 'endpoints'
  | 'defaultCredentials'
  | 'rateLimits'
  | 'maxAttempts'
  | 'retryDelayMs'
  | 'batchWindowMs'
  | 'createEc2Api';

/** The client options are the factory's (when the actuator builds its own); the rest are the actuator's. */
export interface AwsActuatorOptions extends CloudActuatorOptions, Pick<AwsClientFactoryOptions, SharedClientOptions> {
  /** Forces every client to this region. */
  regionOverride?: string;
  /** The cluster's region: the default for specs that name none. */
  defaultRegion?: string;
  /** Infrastructure status.platformStatus.aws.resourceTags, added to every instance and volume. */
  infrastructureTags?: TagSpecification[];
  ipFamily?: IpFamily;
  /** Share one factory (and so one rate limiter) with the instance-type catalog; else one is built. */
  clientFactory?: AwsClientFactory;
  /** How long a credentials or user-data Secret read is shared by reconciles (default 10 s; 0 = read every time). */
  secretCacheTtlMs?: number;
  /** How long VPC DHCP domain names are cached (default 1 h). */
  dhcpCacheTtlMs?: number;
}

export interface AwsActuator extends Actuator {
  /** Closes the SDK clients' connections. */
  close(): void;
}

export function createAwsActuator(opts: AwsActuatorOptions): AwsActuator {
  return new AwsMachineActuator(opts);
}

class AwsMachineActuator extends CloudActuator<MachineScope, Instance> implements AwsActuator {
  private readonly client: SecretCachingClient;
  private readonly factory: AwsClientFactory;
  private readonly ownsFactory: boolean;
  private readonly finder: InstanceFinder;
  private readonly recorder: InstanceRecorder;
  private readonly teardown: InstanceTeardown;

  constructor(private readonly o: AwsActuatorOptions) {
    super(o, {
      isTerminating: (state) => state === 'shutting-down' || state === 'terminated',
      idFromLaunchReply: true,
      creationCondition: MachineCreationCondition,
      failureReasons: {
        create: 'failed to create machine',
        update: 'failed to update machine',
        delete: 'failed to delete machine',
      },
      describeError: describeEc2Error,
      refusesCredentials: (err) => classifyEc2Error(err) === 'unauthorized',
    });
    this.client = withSecretCache(o.client, o.clock, o.secretCacheTtlMs);
    this.ownsFactory = !o.clientFactory;
    this.factory = o.clientFactory ?? new AwsClientFactory(o);
    this.finder = new InstanceFinder((scope) => this.instanceIdOnRecord(scope), this.memory);
    this.recorder = new InstanceRecorder({ ...o, record: (scope, i) => this.record(scope, i) });
    this.teardown = new InstanceTeardown({ client: this.client, requeueAfterMs: this.requeueAfterMs });
  }

  close(): void {
    if (this.ownsFactory) this.factory.destroy();
  }

  referencedSecrets(machine: Machine): string[] {
    return secretsReferencedBy(machine);
  }

  protected override launchRateLine(machine: Machine): LaunchRateLine | undefined {
    const region = launchRegionOf(machine, this.o);
    return region ? { limiter: this.factory.limiter, scope: region } : undefined;
  }

  protected override credentialsRefused(secret: string): void {
    this.client.distrust(secret);
  }

  protected newScope(machine: Machine, signal: AbortSignal): Promise<MachineScope> {
    return newMachineScope(machine, { ...this.o, client: this.client, clients: this.factory }, signal);
  }

  protected override capacityEntries(scope: MachineScope): CapacityEntry<MachineScope>[] | undefined {
    if (scope.fallbacks.length === 0) return undefined;
    return [scope.spec, ...scope.fallbacks].map((spec) => ({
      scope: { ...scope, spec },
      choice: awsCapacityChoice(spec),
      region: scope.region,
    }));
  }

  protected idOf(instance: Instance): string | undefined {
    return instance.InstanceId;
  }

  protected isBooting(instance: Instance): boolean {
    return isBooting(instance);
  }

  private record(scope: MachineScope, instance: Instance): void {
    scope.status.instanceId = instance.InstanceId ?? null;
    scope.status.instanceState = instanceState(instance);
    this.creationSucceeded(scope);
  }

  protected lookUp(scope: MachineScope, ctx: ActuatorContext): Promise<Instance | 'ended' | undefined> {
    return this.finder.lookUp(scope, ctx.signal);
  }

  protected async createInstance(scope: MachineScope, ctx: ActuatorContext): Promise<void> {
    // Adopt what an earlier attempt launched, if describe already shows it.
    const existing = await this.finder.adoptable(scope, ctx.signal);
    if (existing) {
      ctx.log.info('adopting existing instance', { instanceId: existing.InstanceId });
      this.record(scope, existing);
      this.adopted(scope, existing.InstanceId);
      return;
    }
    const { ec2 } = scope.clients;
    const request = await launchRequestFor(scope, { ...this.o, client: this.client }, ctx);
    const send = () => ec2.runInstances(request.input, { signal: ctx.signal });
    let instance: Instance;
    try {
      instance = await this.launch(scope, send, (i) => i.InstanceId, mayHaveLaunched);
    } catch (err) {
      const failure = ec2LaunchFailure(err, { zone: request.zone, instanceType: request.input.InstanceType ?? '' });
      const typed = this.launchFailed(scope, err, failure);
      if (failure.kind === 'invalid')
        await releaseHostOfRefusedLaunch(scope, ec2, request.dedicatedHostId, this.requeueAfterMs, ctx);
      throw typed;
    }
    // Recorded before anything else can fail: the controller persists it as soon as create returns.
    this.record(scope, instance);
    // EC2 replayed the ClientToken of an instance that has since died: this Machine's instance is gone.
    if (isGone(instance)) throw instanceEndedError(instance);
    this.announceCreated(scope.machine, ctx, { instanceId: instance.InstanceId, state: instanceState(instance) });
  }

  protected async updateInstance(scope: MachineScope, seen: Instance | undefined, ctx: ActuatorContext): Promise<void> {
    // Not `seen` alone: the Machine's duplicates are swept once per process before what exists() saw is trusted.
    const instance = this.toRecord(await this.finder.kept(scope, seen, ctx));
    await this.recorder.apply(scope, instance, ctx, (what, join) => this.ensureOnce(scope, what, join));
  }

  protected async deleteInstance(scope: MachineScope, ctx: ActuatorContext): Promise<boolean> {
    const uid = scope.machine.metadata.uid ?? '';
    const all = await this.finder.all(scope, ctx.signal);
    const live = all.filter((i) => !isTerminated(i));
    if (live.length === 0) {
      // Nothing found: right after launch EC2 may not show the instance yet, and finishing now would leak it.
      if (all.length === 0) this.released(scope, ctx, { instanceId: this.instanceIdOnRecord(scope) });
      else this.forget(uid);
      await this.teardown.afterInstancesGone(scope, ctx.signal);
      return false;
    }
    this.foundWhileDeleting(uid);
    const { terminated, state } = await this.teardown.terminate(scope, live, ctx.signal);
    if (terminated.length > 0) {
      this.guard.seenTerminating(uid);
      this.announceDeleting(scope.machine, ctx, { instanceIds: terminated });
    }
    for (const i of all) this.memory.forgetStartingWith(uid, `lb|${i.InstanceId ?? ''}|`);
    await this.teardown.whileTerminating(scope, state, ctx.signal);
    return true;
  }
}
