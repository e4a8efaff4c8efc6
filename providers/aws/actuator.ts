// The AWS actuator.
// Reference: https://github.com/openshift/machine-api-provider-aws/blob/main/pkg/actuators/machine/reconciler.go
// Where it departs from the reference, on purpose:
// - creation is idempotent at EC2: the ClientToken is derived from the Machine UID, so a retried or
//   replayed RunInstances (lost reply, controller restart) returns the instance launched first;
// - the instance id goes into providerStatus as soon as RunInstances answers, and nothing that can fail
//   runs after it in create (load balancers are joined by update once the instance runs);
// - a recorded instance that describe does not show yet makes exists() requeue, never a second launch;
// - instances launched for an earlier Machine of the same name are told apart by the UID tag / token;
// - duplicates are cleaned up (the oldest is kept); throttling and 5xx never fail a Machine;
// - existence checks are batched, and update reuses what exists() just saw, so steady state costs a
//   fraction of one EC2 call per Machine.
import type { Instance } from '@aws-sdk/client-ec2';
import {
  DEFAULT_VISIBILITY_WINDOW_MS,
  DeleteGuard,
  InsufficientCapacityError,
  InvalidMachineConfigurationError,
  MachineCreationCondition,
  MachineCreationFailedReason,
  MachineCreationSucceededReason,
  MachineInstanceStateAnnotation,
  MachineInterruptibleInstanceLabel,
  RequeueAfterError,
  createMachineError,
  setProviderCondition,
  isInvalidMachineConfiguration,
  reportActuatorFailures,
  failureStep,
  setFailureReason,
  machineChangeFingerprint,
  emitUpdatedWhenChanged,
  TtlCache,
  viewCanBeCurrent,
  isMachineProvisioned,
  LaunchLedger,
  messageOf,
  type Actuator,
  type ActuatorContext,
  type Clock,
  type KubeClient,
  type Machine,
} from '../../lib/index.js';
import { AwsClientFactory, type AwsClientFactoryOptions } from './aws-clients.js';
import type { AwsCredentials } from './credentials.js';
import { classifyEc2Error, describeEc2Error, ec2ErrorCode } from './errors.js';
import {
  MACHINE_UID_TAG,
  addressesOf,
  belongsTo,
  buildRunInstancesInput,
  buildTags,
  clientTokenFor,
  dhcpDomainsOf,
  instanceState,
  isBooting,
  isGone,
  isTerminated,
  machineLabelsFor,
  missingTags,
  providerIdOf,
  sortOldestFirst,
  type IpFamily,
} from './instances.js';
import { ensureDynamicHost, isDynamicHost, releaseDynamicHost, tagUserProvidedHost } from './dedicated-hosts.js';
import { resolveLaunchInputs } from './launch-resolver.js';
import { machineAddressHolderJudge } from './address-holder.js';
import { deregisterEndedInstanceAddresses, deregisterFromLoadBalancers, registerWithLoadBalancers } from './load-balancers.js';
import { newMachineScope, secretsReferencedBy, userDataFor, type MachineScope } from './machine-scope.js';
import { withSecretCache } from './secret-cache.js';
import { decodeProviderStatus, type TagSpecification } from './provider-spec.js';

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
  /**
   * How long a recorded-but-invisible instance is waited for before exists() says false (default 10 min).
   * When set, also the window the delete guard waits for a launched instance to show (default
   * DEFAULT_VISIBILITY_WINDOW_MS, the same for every cloud).
   */
  eventualConsistencyWindowMs?: number;
  /** Requeue delay while waiting on EC2 (default 20 s, as the reference). */
  requeueAfterMs?: number;
  /** How long update() may reuse the instance exists() just described (default 5 s). */
  snapshotTtlMs?: number;
  /** How long a credentials or user-data Secret read is shared by reconciles (default 10 s; 0 = read every time). */
  secretCacheTtlMs?: number;
  /** How long VPC DHCP domain names are cached (default 1 h). */
  dhcpCacheTtlMs?: number;
}

export interface AwsActuator extends Actuator {
  /** Closes the SDK clients' connections. */
  close(): void;
}

/** How long delete()'s read may answer the exists() of the same reconcile. */
const REPEAT_CHECK_REUSE_MS = 1_000;

const DEFAULTS = { eventualConsistencyWindowMs: 10 * 60_000, requeueAfterMs: 20_000, snapshotTtlMs: 5_000, dhcpCacheTtlMs: 3_600_000 };

/** What update() may change, serialised: an Update event is emitted only when it differs. */

type Ownership = 'ours' | 'legacy' | 'other';

function ownership(machine: Machine, i: Instance): Ownership {
  if (!belongsTo(machine, i)) return 'other';
  const positive = i.Tags?.some((t) => t.Key === MACHINE_UID_TAG) || (!!i.ClientToken && i.ClientToken === clientTokenFor(machine));
  return positive ? 'ours' : 'legacy';
}

export function createAwsActuator(opts: AwsActuatorOptions): AwsActuator {
  return new AwsMachineActuator(opts);
}

class AwsMachineActuator implements AwsActuator {
  private readonly o: AwsActuatorOptions & typeof DEFAULTS;
  private readonly factory: AwsClientFactory;
  private readonly ownsFactory: boolean;
  /** What exists() last saw per Machine UID, for update() in the same reconcile. */
  private readonly snapshots: TtlCache<Instance>;
  private readonly dhcpDomains: TtlCache<string[]>;
  /** "<instanceId>|<lb spec>" already registered by this process. */
  private readonly registered = new Set<string>();
  /** Machine UIDs whose instances were swept for duplicates since this process started. */
  private readonly swept = new Set<string>();
  /** "<uid>/<generation>" whose unknown fields were already reported. */
  private readonly warned = new Set<string>();
  /** What this process launched per Machine UID until the status records it (see LaunchLedger). */
  private readonly launches: LaunchLedger;
  /** Keeps a deleted Machine's finalizer while its launched instance may be invisible (see DeleteGuard). */
  private readonly guard: DeleteGuard;
  /** Per Machine UID, whether delete()'s fresh read left an instance to wait for: answers the exists() that follows, once. */
  private readonly deleteSaw: TtlCache<boolean>;

  constructor(opts: AwsActuatorOptions) {
    this.o = { ...DEFAULTS, ...opts, client: withSecretCache(opts.client, opts.clock, opts.secretCacheTtlMs) };
    const visibilityWindowMs = opts.eventualConsistencyWindowMs ?? DEFAULT_VISIBILITY_WINDOW_MS;
    this.launches = new LaunchLedger({ clock: opts.clock, windowMs: visibilityWindowMs });
    this.guard = new DeleteGuard({ clock: opts.clock, ledger: this.launches, windowMs: visibilityWindowMs, isTerminating: (state) => state === 'shutting-down' || state === 'terminated' });
    this.ownsFactory = !opts.clientFactory;
    this.factory =
      opts.clientFactory ??
      new AwsClientFactory({
        clock: opts.clock,
        endpoint: opts.endpoint,
        endpoints: opts.endpoints,
        defaultCredentials: opts.defaultCredentials,
        rateLimits: opts.rateLimits,
        maxAttempts: opts.maxAttempts,
        retryDelayMs: opts.retryDelayMs,
        batchWindowMs: opts.batchWindowMs,
        createEc2Api: opts.createEc2Api,
      });
    this.snapshots = new TtlCache(opts.clock, this.o.snapshotTtlMs);
    this.deleteSaw = new TtlCache(opts.clock, REPEAT_CHECK_REUSE_MS);
    this.dhcpDomains = new TtlCache(opts.clock, this.o.dhcpCacheTtlMs);
  }

  close(): void {
    if (this.ownsFactory) this.factory.destroy();
  }

  private async scope(machine: Machine, ctx: ActuatorContext): Promise<MachineScope> {
    const scope = await newMachineScope(
      machine,
      { client: this.o.client, clients: this.factory, regionOverride: this.o.regionOverride, defaultRegion: this.o.defaultRegion },
      ctx.signal,
    );
    const key = `${machine.metadata.uid ?? machine.metadata.name ?? ''}/${machine.metadata.generation ?? 0}`;
    if (scope.unknownFields.length > 0 && !this.warned.has(key)) {
      this.warned.add(key);
      ctx.events.event(machine, 'Warning', 'UnknownFields', 'Validate', `providerSpec fields not known to this provider are ignored: ${scope.unknownFields.join(', ')}`);
    }
    return scope;
  }

  /** Instances tagged with this Machine's name and cluster that are this Machine's (or predate UID tags). */
  private async findByTags(scope: MachineScope, signal: AbortSignal): Promise<Array<{ instance: Instance; owner: Ownership }>> {
    const machine = scope.machine;
    // Coalesced with other Machines' look-ups into one DescribeInstances filtered by Name and cluster tags.
    const found = await scope.clients.instances.findByName(scope.clusterId, machine.metadata.name ?? '', signal);
    return sortOldestFirst(found)
      .map((instance) => ({ instance, owner: ownership(machine, instance) }))
      .filter((x) => x.owner !== 'other');
  }

  /** By the id on record, else the one this process launched and has not seen recorded yet. */
  private async byRecordedId(scope: MachineScope, signal: AbortSignal): Promise<Instance | undefined> {
    const id = this.launches.instanceIdOf(scope.machine.metadata.uid ?? '', scope.status.instanceId);
    if (!id) return undefined;
    return scope.clients.instances.get(id, signal, viewCanBeCurrent(scope.machine, isBooting));
  }

  private record(scope: MachineScope, instance: Instance, nowIso: string): void {
    scope.status.instanceId = instance.InstanceId ?? null;
    scope.status.instanceState = instanceState(instance);
    setProviderCondition(scope.status, { type: MachineCreationCondition, status: 'True', reason: MachineCreationSucceededReason, message: 'Machine successfully created' }, nowIso);
    scope.saveStatus();
  }

  referencedSecrets(machine: Machine): string[] {
    return secretsReferencedBy(machine);
  }

  async create(machine: Machine, ctx: ActuatorContext): Promise<void> {
    await reportActuatorFailures('create', machine, ctx, { reason: 'failed to create machine' }, () => this.doCreate(machine, ctx));
  }

  private async doCreate(machine: Machine, ctx: ActuatorContext): Promise<void> {
    const scope = await this.scope(machine, ctx);
    const uid = machine.metadata.uid ?? '';
    const now = new Date(this.o.clock.now()).toISOString();
    const { ec2 } = scope.clients;

    // Adopt what an earlier attempt launched, if describe already shows it.
    const existing = await failureStep('error getting existing instances', () => this.findByTags(scope, ctx.signal));
    const live = existing.filter((x) => !isGone(x.instance));
    const first = live[0];
    if (first) {
      ctx.log.info('adopting existing instance', { instanceId: first.instance.InstanceId });
      this.record(scope, first.instance, now);
      if (first.instance.InstanceId) this.launches.launched(uid, first.instance.InstanceId);
      return;
    }
    const dead = existing.find((x) => x.owner === 'ours');
    if (dead) {
      throw new InvalidMachineConfigurationError(`Instance ${dead.instance.InstanceId ?? ''} is in a terminated state`);
    }
    const resolved = await failureStep('error resolving launch parameters', () => resolveLaunchInputs(ec2, scope.config, ctx.signal));
    const userData = await failureStep('error reading user data', () => userDataFor(machine, scope.config, this.o.client, ctx.signal));
    const dedicatedHostId = isDynamicHost(scope) ? await failureStep('failed to allocate dedicated host', () => ensureDynamicHost(scope, ec2, resolved, ctx.signal)) : undefined;
    await tagUserProvidedHost(scope, ec2, ctx.signal, ctx.log);
    const input = buildRunInstancesInput(machine, scope.config, scope.clusterId, {
      ...resolved,
      userData,
      infrastructureTags: this.o.infrastructureTags,
      ipFamily: this.o.ipFamily,
      dedicatedHostId,
    });

    let instance: Instance;
    this.launches.sending(uid);
    try {
      instance = await ec2.runInstances(input, { signal: ctx.signal });
    } catch (err) {
      // A refusal made nothing; a lost reply, a timeout or a 5xx may have launched the instance.
      const cls = classifyEc2Error(err);
      if (cls !== 'transient' && cls !== 'other') this.launches.refused(uid);
      const message = describeEc2Error(err);
      setProviderCondition(scope.status, { type: MachineCreationCondition, status: 'False', reason: MachineCreationFailedReason, message }, now);
      scope.saveStatus();
      if (classifyEc2Error(err) === 'invalid' && dedicatedHostId) {
        // The Machine is about to fail for good: give its host back rather than leak it.
        await releaseDynamicHost(scope, ec2, true, this.o.requeueAfterMs, ctx.signal).catch((e: unknown) =>
          ctx.log.error('could not release the dedicated host of a failed launch', { hostId: dedicatedHostId, error: messageOf(e) }),
        );
      }
      const wrapped =
        cls === 'invalid'
          ? new InvalidMachineConfigurationError(`error launching instance: ${message}`, { cause: err })
          : cls === 'capacity'
            ? new InsufficientCapacityError(ec2ErrorCode(err) ?? 'InsufficientInstanceCapacity', scope.config.placement?.availabilityZone || resolved.subnetZone || '', input.InstanceType ?? '', messageOf(err), { cause: err })
            : createMachineError(`error creating EC2 instance: ${message}`, err);
      setFailureReason(wrapped, 'error creating EC2 instance');
      throw wrapped;
    }
    // Recorded before anything else can fail: the controller persists it as soon as create returns.
    this.record(scope, instance, now);
    if (instance.InstanceId) this.launches.launched(uid, instance.InstanceId);
    if (isGone(instance)) {
      // EC2 replayed the ClientToken of an instance that has since died: this Machine's instance is gone.
      throw new InvalidMachineConfigurationError(`Instance ${instance.InstanceId ?? ''} is in a terminated state`);
    }
    ctx.log.info('created instance', { instanceId: instance.InstanceId, state: instanceState(instance) });
    ctx.events.event(machine, 'Normal', 'Create', 'Create', `Created Machine ${machine.metadata.name ?? ''}`);
  }

  async exists(machine: Machine, ctx: ActuatorContext): Promise<boolean> {
    let scope: MachineScope;
    try {
      scope = await this.scope(machine, ctx);
    } catch (err) {
      // An invalid spec never launched anything unless an instance is on record: say so, and let
      // create() report the configuration error (the Machine goes Failed instead of retrying forever).
      if (isInvalidMachineConfiguration(err) && !isMachineProvisioned(machine) && !decodeProviderStatus(machine.status?.providerStatus).instanceId) return false;
      throw err;
    }
    const uid = machine.metadata.uid ?? '';
    // Being deleted: the delete of this reconcile has just read both ways; its answer stands.
    const sawLive = machine.metadata.deletionTimestamp ? this.deleteSaw.take(uid) : undefined;
    if (sawLive !== undefined) return sawLive;
    const byId = await this.byRecordedId(scope, ctx.signal);
    if (byId && !isTerminated(byId)) {
      this.snapshots.set(uid, byId);
      return true;
    }
    // Our own instance exists until terminated (delete waits for that); an untagged one that is already
    // going away may be a predecessor's of the same name, so it does not count.
    const live = (await this.findByTags(scope, ctx.signal)).filter((x) => (x.owner === 'ours' ? !isTerminated(x.instance) : !isGone(x.instance)));
    const first = live[0];
    if (first) {
      this.snapshots.set(uid, first.instance);
      return true;
    }
    this.snapshots.delete(uid);
    // EC2 keeps a terminated instance visible for an hour, so an out-of-band termination shows as
    // `terminated` above. An id EC2 does not know at all, recorded within the eventual-consistency window,
    // is a read that lags (provisioned or not): calling it gone would fail a healthy Machine.
    if (scope.status.instanceId && !byId) {
      const createdAt = scope.createdAt();
      if (createdAt === undefined || this.o.clock.now() - createdAt < this.o.eventualConsistencyWindowMs) {
        ctx.log.info('instance recorded but not yet visible; possible eventual-consistency discrepancy', { instanceId: scope.status.instanceId });
        throw new RequeueAfterError(this.o.requeueAfterMs);
      }
    }
    return false;
  }

  async update(machine: Machine, ctx: ActuatorContext): Promise<void> {
    await reportActuatorFailures('update', machine, ctx, { reason: 'failed to update machine' }, () => this.doUpdate(machine, ctx));
  }

  /** The instance this Machine keeps; terminates duplicates (once per process, or when found by tags). */
  private async currentInstance(scope: MachineScope, ctx: ActuatorContext): Promise<Instance | undefined> {
    const uid = scope.machine.metadata.uid ?? '';
    if (this.swept.has(uid)) {
      const snap = this.snapshots.get(uid);
      if (snap) return snap;
      const byId = await this.byRecordedId(scope, ctx.signal);
      if (byId) return byId;
    }
    const found = await this.findByTags(scope, ctx.signal);
    this.swept.add(uid);
    const live = found.filter((x) => !isGone(x.instance)).map((x) => x.instance);
    const [keep, ...extra] = live;
    if (keep && extra.length > 0) {
      const ids = extra.map((i) => i.InstanceId ?? '');
      ctx.log.info('terminating duplicate instances', { keep: keep.InstanceId, duplicates: ids });
      await scope.clients.ec2.terminateInstances(ids, { signal: ctx.signal });
      ctx.events.event(scope.machine, 'Warning', 'DuplicateInstances', 'Update', `found ${live.length} instances for this machine: kept the oldest, ${keep.InstanceId ?? ''}, and terminated ${ids.join(', ')}`);
    }
    return keep ?? found[found.length - 1]?.instance ?? (await this.byRecordedId(scope, ctx.signal));
  }

  private async dhcpDomainsFor(scope: MachineScope, vpcId: string | undefined, signal: AbortSignal): Promise<string[]> {
    if (!vpcId) return [];
    const key = `${scope.clients.region}/${vpcId}`;
    const cached = this.dhcpDomains.get(key);
    if (cached) return cached;
    const { ec2 } = scope.clients;
    const vpc = (await ec2.describeVpcs([vpcId], { signal }))[0];
    let domains: string[] = [];
    if (vpc?.DhcpOptionsId) {
      const options = (await ec2.describeDhcpOptions([vpc.DhcpOptionsId], { signal }))[0];
      domains = dhcpDomainsOf(options?.DhcpConfigurations);
    }
    this.dhcpDomains.set(key, domains);
    return domains;
  }

  private async doUpdate(machine: Machine, ctx: ActuatorContext): Promise<void> {
    const scope = await this.scope(machine, ctx);
    const before = machineChangeFingerprint(machine);
    const instance = await failureStep('error getting existing instances', () => this.currentInstance(scope, ctx));
    if (!instance) throw new RequeueAfterError(this.o.requeueAfterMs);

    let domains: string[] = [];
    try {
      domains = await this.dhcpDomainsFor(scope, instance.VpcId, ctx.signal);
    } catch (err) {
      ctx.log.info('could not read the VPC DHCP options; omitting DHCP-domain DNS names', { error: describeEc2Error(err) });
    }

    machine.spec = { ...machine.spec, providerID: providerIdOf(instance) };
    machine.metadata.labels = { ...machine.metadata.labels, ...machineLabelsFor(instance, scope.region) };
    if (instance.InstanceLifecycle === 'spot') {
      const nodeMeta = machine.spec.metadata ?? {};
      machine.spec.metadata = { ...nodeMeta, labels: { ...nodeMeta.labels, [MachineInterruptibleInstanceLabel]: '' } };
    }
    machine.metadata.annotations = { ...machine.metadata.annotations, [MachineInstanceStateAnnotation]: instanceState(instance) };
    machine.status = { ...machine.status, addresses: addressesOf(instance, domains) };
    this.record(scope, instance, new Date(this.o.clock.now()).toISOString());

    const errors: string[] = [];
    if (!isGone(instance)) {
      const tags = missingTags(buildTags(machine, scope.config, scope.clusterId, this.o.infrastructureTags), instance.Tags);
      if (tags.length > 0) {
        try {
          await scope.clients.ec2.createTags(instance.InstanceId ?? '', tags, { signal: ctx.signal });
          instance.Tags = [...(instance.Tags ?? []).filter((t) => !tags.some((n) => n.Key === t.Key)), ...tags];
        } catch (err) {
          errors.push(`failed to tag instance: ${describeEc2Error(err)}`);
        }
      }
    }
    const lbs = scope.config.loadBalancers ?? [];
    const lbKey = `${instance.InstanceId ?? ''}|${JSON.stringify(lbs)}`;
    if (lbs.length > 0 && instanceState(instance) === 'running' && !this.registered.has(lbKey)) {
      try {
        await registerWithLoadBalancers(scope.clients.ec2, instance, lbs, ctx.signal);
        this.registered.add(lbKey);
      } catch (err) {
        errors.push(messageOf(err));
      }
    }
    emitUpdatedWhenChanged(machine, ctx, before);
    if (errors.length > 0) {
      const err = new Error(errors.join('; '));
      setFailureReason(err, 'failed to update load balancers');
      throw err;
    }
  }

  async delete(machine: Machine, ctx: ActuatorContext): Promise<void> {
    await reportActuatorFailures('delete', machine, ctx, { reason: 'failed to delete machine' }, () => this.doDelete(machine, ctx));
  }

  private async doDelete(machine: Machine, ctx: ActuatorContext): Promise<void> {
    const scope = await this.scope(machine, ctx);
    const uid = machine.metadata.uid ?? '';
    this.snapshots.delete(uid);
    const all = new Map<string, Instance>();
    const byId = await failureStep('error getting existing instances', () => this.byRecordedId(scope, ctx.signal));
    if (byId?.InstanceId) all.set(byId.InstanceId, byId);
    for (const { instance } of await failureStep('error getting existing instances', () => this.findByTags(scope, ctx.signal))) if (instance.InstanceId) all.set(instance.InstanceId, instance);

    const live = [...all.values()].filter((i) => !isTerminated(i));
    if (all.size > 0) {
      this.launches.forget(uid);
      this.guard.seen(uid);
    } else {
      try {
        // Launched (on record, or by this process) but not visible: right after launch EC2 may not show it
        // yet, and finishing now would leak it.
        this.guard.nothingFound(machine, { instanceId: scope.status.instanceId, recordedAt: scope.createdAt() });
      } catch (err) {
        ctx.log.info('instance launched but not visible yet; keeping the finalizer until it shows or the window passes', { instanceId: this.launches.instanceIdOf(uid, scope.status.instanceId) });
        throw err;
      }
    }
    this.deleteSaw.set(uid, live.length > 0);
    if (live.length === 0) {
      this.guard.forget(uid);
      const lbs = scope.config.loadBalancers ?? [];
      if (lbs.length > 0) {
        const recorded = (machine.status?.addresses ?? []).filter((a) => a.type === 'InternalIP').map((a) => a.address);
        await failureStep('failed to remove instance from load balancers', () => deregisterEndedInstanceAddresses(scope.clients.ec2, recorded, lbs, machineAddressHolderJudge(this.o.client, machine.metadata.namespace ?? '', scope.clusterId), ctx.signal));
      }
      await failureStep('failed to release dedicated host', () => releaseDynamicHost(scope, scope.clients.ec2, true, this.o.requeueAfterMs, ctx.signal));
      machine.metadata.annotations = { ...machine.metadata.annotations, [MachineInstanceStateAnnotation]: 'terminated' };
      return;
    }
    const lbs = scope.config.loadBalancers ?? [];
    for (const i of live) await failureStep('failed to remove instance from load balancers', () => deregisterFromLoadBalancers(scope.clients.ec2, i, lbs, ctx.signal));
    const toTerminate = live.filter((i) => instanceState(i) !== 'shutting-down').map((i) => i.InstanceId ?? '');
    let state = 'shutting-down';
    if (toTerminate.length > 0) {
      const changes = await failureStep('failed to delete instances', () => scope.clients.ec2.terminateInstances(toTerminate, { signal: ctx.signal }));
      if (changes.length === 1 && changes[0]?.CurrentState?.Name) state = changes[0].CurrentState.Name;
      this.guard.seenTerminating(uid);
      ctx.log.info('terminating instances', { instanceIds: toTerminate });
      ctx.events.event(machine, 'Normal', 'Delete', 'Delete', `Deleted machine ${machine.metadata.name ?? ''}`);
    }
    for (const id of all.keys()) for (const key of [...this.registered]) if (key.startsWith(`${id}|`)) this.registered.delete(key);
    this.swept.delete(uid);
    machine.metadata.annotations = { ...machine.metadata.annotations, [MachineInstanceStateAnnotation]: state };
    // A dynamic host is released once its instance has terminated: delete is called again until then.
    await releaseDynamicHost(scope, scope.clients.ec2, false, this.o.requeueAfterMs, ctx.signal);
  }
}
