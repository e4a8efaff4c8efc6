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
  InvalidMachineConfigurationError,
  MachineCreationCondition,
  MachineInstanceStateAnnotation,
  RequeueAfterError,
  failureStep,
  messageOf,
  type Actuator,
  type ActuatorContext,
  type Clock,
  type KubeClient,
  type Machine,
} from '../../lib/index.js';
import { AwsClientFactory, type AwsClientFactoryOptions } from './aws-clients.js';
import type { AwsCredentials } from './credentials.js';
import { classifyEc2Error, describeEc2Error, launchError } from './errors.js';
import { buildRunInstancesInput, instanceState, isBooting, isGone, isTerminated, type IpFamily } from './instances.js';
import { ensureDynamicHost, isDynamicHost, releaseDynamicHost, tagUserProvidedHost } from './dedicated-hosts.js';
import { resolveLaunchInputs } from './launch-resolver.js';
import { machineAddressHolderJudge } from './address-holder.js';
import { deregisterEndedInstanceAddresses, deregisterFromLoadBalancers } from './load-balancers.js';
import { newMachineScope, secretsReferencedBy, userDataFor, type MachineScope } from './machine-scope.js';
import { withSecretCache } from './secret-cache.js';
import { decodeProviderStatus, type TagSpecification } from './provider-spec.js';
import { InstanceFinder } from './instance-finder.js';
import { InstanceRecorder } from './instance-recorder.js';

export interface AwsActuatorOptions {
  /** Reads the credentials and user-data Secrets. */
  client: KubeClient;
  clock: Clock;
  /** EC2/ELB endpoint override for all services (emulator, private or FIPS endpoints). */
  endpoint?: string;
  endpoints?: AwsClientFactoryOptions['endpoints'];
  /** Forces every client to this region. */
  regionOverride?: string;
  /** The cluster's region: the default for specs that name none. */
  defaultRegion?: string;
  /** Credentials when a spec names no Secret (default: the SDK chain). */
  defaultCredentials?: AwsCredentials;
  /** Infrastructure status.platformStatus.aws.resourceTags, added to every instance and volume. */
  infrastructureTags?: TagSpecification[];
  ipFamily?: IpFamily;
  /** Share one factory (and so one rate limiter) with the instance-type catalog; else one is built. */
  clientFactory?: AwsClientFactory;
  rateLimits?: AwsClientFactoryOptions['rateLimits'];
  maxAttempts?: number;
  retryDelayMs?: AwsClientFactoryOptions['retryDelayMs'];
  batchWindowMs?: number;
  createEc2Api?: AwsClientFactoryOptions['createEc2Api'];
  /** How long after a launch EC2's reads may not show the instance (default DEFAULT_VISIBILITY_WINDOW_MS, as every cloud). */
  eventualConsistencyWindowMs?: number;
  /** Requeue delay while waiting on EC2 (default 20 s, as the reference). */
  requeueAfterMs?: number;
  /** How long a credentials or user-data Secret read is shared by reconciles (default 10 s; 0 = read every time). */
  secretCacheTtlMs?: number;
  /** How long VPC DHCP domain names are cached (default 1 h). */
  dhcpCacheTtlMs?: number;
}

export interface AwsActuator extends Actuator {
  /** Closes the SDK clients' connections. */
  close(): void;
}

const DEFAULT_REQUEUE_AFTER_MS = 20_000;

export function createAwsActuator(opts: AwsActuatorOptions): AwsActuator {
  return new AwsMachineActuator(opts);
}

class AwsMachineActuator extends CloudActuator<MachineScope, Instance> implements AwsActuator {
  private readonly client: KubeClient;
  private readonly factory: AwsClientFactory;
  private readonly ownsFactory: boolean;
  private readonly requeueAfterMs: number;
  private readonly finder: InstanceFinder;
  private readonly recorder: InstanceRecorder;

  constructor(private readonly o: AwsActuatorOptions) {
    super({
      clock: o.clock,
      isTerminating: (state) => state === 'shutting-down' || state === 'terminated',
      idFromLaunchReply: true,
      visibilityWindowMs: o.eventualConsistencyWindowMs,
      creationCondition: MachineCreationCondition,
      failureReasons: { create: 'failed to create machine', update: 'failed to update machine', delete: 'failed to delete machine' },
      describeError: messageOf,
      recordedInstanceId: (m) => decodeProviderStatus(m.status?.providerStatus).instanceId ?? undefined,
    });
    this.client = withSecretCache(o.client, o.clock, o.secretCacheTtlMs);
    this.requeueAfterMs = o.requeueAfterMs ?? DEFAULT_REQUEUE_AFTER_MS;
    this.ownsFactory = !o.clientFactory;
    this.factory = o.clientFactory ?? new AwsClientFactory(o);
    this.finder = new InstanceFinder((scope) => this.instanceIdOnRecord(scope));
    this.recorder = new InstanceRecorder({ clock: o.clock, dhcpCacheTtlMs: o.dhcpCacheTtlMs, infrastructureTags: o.infrastructureTags, record: (scope, i) => this.record(scope, i) });
  }

  close(): void {
    if (this.ownsFactory) this.factory.destroy();
  }

  referencedSecrets(machine: Machine): string[] {
    return secretsReferencedBy(machine);
  }

  protected newScope(machine: Machine, signal: AbortSignal): Promise<MachineScope> {
    return newMachineScope(machine, { client: this.client, clients: this.factory, regionOverride: this.o.regionOverride, defaultRegion: this.o.defaultRegion }, signal);
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

  protected async lookUp(scope: MachineScope, ctx: ActuatorContext): Promise<Instance | 'ended' | undefined> {
    const byId = await this.finder.byRecordedId(scope, ctx.signal);
    if (byId && !isTerminated(byId)) return byId;
    // Our own instance exists until terminated (delete waits for that); an untagged one that is already
    // going away may be a predecessor's of the same name, so it does not count.
    const live = (await this.finder.byTags(scope, ctx.signal)).find((x) => (x.owner === 'ours' ? !isTerminated(x.instance) : !isGone(x.instance)));
    if (live) return live.instance;
    // EC2 keeps a terminated instance visible for an hour: one seen terminated is gone, not late.
    return byId ? 'ended' : undefined;
  }

  protected async createInstance(scope: MachineScope, ctx: ActuatorContext): Promise<void> {
    const { machine } = scope;
    const { ec2 } = scope.clients;
    // Adopt what an earlier attempt launched, if describe already shows it.
    const existing = await failureStep('error getting existing instances', () => this.finder.byTags(scope, ctx.signal));
    const first = existing.find((x) => !isGone(x.instance));
    if (first) {
      ctx.log.info('adopting existing instance', { instanceId: first.instance.InstanceId });
      this.record(scope, first.instance);
      this.adopted(scope, first.instance.InstanceId);
      return;
    }
    const dead = existing.find((x) => x.owner === 'ours');
    if (dead) throw new InvalidMachineConfigurationError(`Instance ${dead.instance.InstanceId ?? ''} is in a terminated state`);
    const resolved = await failureStep('error resolving launch parameters', () => resolveLaunchInputs(ec2, scope.spec, ctx.signal));
    const userData = await failureStep('error reading user data', () => userDataFor(machine, scope.spec, this.client, ctx.signal));
    const dedicatedHostId = isDynamicHost(scope) ? await failureStep('failed to allocate dedicated host', () => ensureDynamicHost(scope, ec2, resolved, ctx.signal)) : undefined;
    await tagUserProvidedHost(scope, ec2, ctx.signal, ctx.log);
    const input = buildRunInstancesInput(machine, scope.spec, scope.clusterId, { ...resolved, userData, infrastructureTags: this.o.infrastructureTags, ipFamily: this.o.ipFamily, dedicatedHostId });

    let instance: Instance;
    try {
      // A refusal made nothing; a lost reply, a timeout or a 5xx may have launched the instance.
      const mayHaveMade = (err: unknown) => ['transient', 'other'].includes(classifyEc2Error(err));
      instance = await this.launch(scope, () => ec2.runInstances(input, { signal: ctx.signal }), (i) => i.InstanceId, mayHaveMade);
    } catch (err) {
      this.creationFailed(scope, describeEc2Error(err));
      if (classifyEc2Error(err) === 'invalid' && dedicatedHostId) {
        // The Machine is about to fail for good: give its host back rather than leak it.
        await releaseDynamicHost(scope, ec2, true, this.requeueAfterMs, ctx.signal).catch((e: unknown) =>
          ctx.log.error('could not release the dedicated host of a failed launch', { hostId: dedicatedHostId, error: messageOf(e) }),
        );
      }
      throw launchError(err, { zone: scope.spec.placement?.availabilityZone || resolved.subnetZone || '', instanceType: input.InstanceType ?? '' });
    }
    // Recorded before anything else can fail: the controller persists it as soon as create returns.
    this.record(scope, instance);
    // EC2 replayed the ClientToken of an instance that has since died: this Machine's instance is gone.
    if (isGone(instance)) throw new InvalidMachineConfigurationError(`Instance ${instance.InstanceId ?? ''} is in a terminated state`);
    this.announceCreated(machine, ctx, { instanceId: instance.InstanceId, state: instanceState(instance) });
  }

  protected async updateInstance(scope: MachineScope, seen: Instance | undefined, ctx: ActuatorContext): Promise<void> {
    const instance = await failureStep('error getting existing instances', () => this.currentInstance(scope, seen, ctx));
    if (!instance) throw new RequeueAfterError(this.requeueAfterMs);
    await this.recorder.apply(scope, instance, ctx, (what, join) => this.ensureOnce(scope, what, join));
  }

  /** The instance this Machine keeps: what exists() saw once its duplicates were swept (once per process). */
  private async currentInstance(scope: MachineScope, seen: Instance | undefined, ctx: ActuatorContext): Promise<Instance | undefined> {
    const uid = scope.machine.metadata.uid ?? '';
    const known = this.memory.has(uid, 'swept') ? (seen ?? (await this.finder.byRecordedId(scope, ctx.signal))) : undefined;
    if (known) return known;
    const kept = await this.finder.keepOldest(scope, ctx);
    this.memory.add(uid, 'swept');
    return kept;
  }

  protected async deleteInstance(scope: MachineScope, ctx: ActuatorContext): Promise<boolean> {
    const { machine } = scope;
    const uid = machine.metadata.uid ?? '';
    const { ec2 } = scope.clients;
    const all = new Map<string, Instance>();
    const byId = await failureStep('error getting existing instances', () => this.finder.byRecordedId(scope, ctx.signal));
    if (byId?.InstanceId) all.set(byId.InstanceId, byId);
    for (const { instance } of await failureStep('error getting existing instances', () => this.finder.byTags(scope, ctx.signal))) if (instance.InstanceId) all.set(instance.InstanceId, instance);
    const lbs = scope.spec.loadBalancers ?? [];

    const live = [...all.values()].filter((i) => !isTerminated(i));
    if (live.length === 0) {
      // Nothing found: right after launch EC2 may not show the instance yet, and finishing now would leak it.
      if (all.size === 0) this.released(scope, ctx, { instanceId: this.instanceIdOnRecord(scope) });
      else this.forget(uid);
      if (lbs.length > 0) {
        const recorded = (machine.status?.addresses ?? []).filter((a) => a.type === 'InternalIP').map((a) => a.address);
        const holders = machineAddressHolderJudge(this.client, machine.metadata.namespace ?? '', scope.clusterId);
        await failureStep('failed to remove instance from load balancers', () => deregisterEndedInstanceAddresses(ec2, recorded, lbs, holders, ctx.signal));
      }
      await failureStep('failed to release dedicated host', () => releaseDynamicHost(scope, ec2, true, this.requeueAfterMs, ctx.signal));
      machine.metadata.annotations = { ...machine.metadata.annotations, [MachineInstanceStateAnnotation]: 'terminated' };
      return false;
    }
    this.foundWhileDeleting(uid);
    for (const i of live) await failureStep('failed to remove instance from load balancers', () => deregisterFromLoadBalancers(ec2, i, lbs, ctx.signal));
    const toTerminate = live.filter((i) => instanceState(i) !== 'shutting-down').map((i) => i.InstanceId ?? '');
    let state = 'shutting-down';
    if (toTerminate.length > 0) {
      const changes = await failureStep('failed to delete instances', () => ec2.terminateInstances(toTerminate, { signal: ctx.signal }));
      if (changes.length === 1 && changes[0]?.CurrentState?.Name) state = changes[0].CurrentState.Name;
      this.guard.seenTerminating(uid);
      this.announceDeleting(machine, ctx, { instanceIds: toTerminate });
    }
    for (const id of all.keys()) this.memory.forgetStartingWith(uid, `lb|${id}|`);
    machine.metadata.annotations = { ...machine.metadata.annotations, [MachineInstanceStateAnnotation]: state };
    // A dynamic host is released once its instance has terminated: delete is called again until then.
    await releaseDynamicHost(scope, ec2, false, this.requeueAfterMs, ctx.signal);
    return true;
  }
}
