// The emulated world plus its clock-driven instance lifecycle: pending → running after the boot delay,
// stopping → stopped, shutting-down → terminated, and terminated instances vanishing after the retention time.
// Every state change notifies listeners (the InstanceView) and schedules a save when persistence is on.
import { SessionCredentialStore } from './session-credentials.js';
import { CapacityTable, EmulatedWorldState, type EmulatorKnobs, type LatencySpec } from '../kit/index.js';
import { DEFAULT_EXHAUSTED_INSTANCE_TYPES } from './default-world.js';
import { Ec2ApiError, idsNotFound } from './api-error.js';
import type { Ec2Instance, Ec2World, InstanceStateName } from './model.js';

export interface InstanceTimings {
  /** pending → running (fixed, or a seeded random range). */
  bootMs: LatencySpec;
  /** stopping → stopped. */
  stopMs: number;
  /** shutting-down → terminated. */
  terminateMs: number;
  /** How long a terminated instance stays visible to DescribeInstances (AWS: about an hour). */
  terminatedRetentionMs: number;
  /** From a Spot interruption notice (in the instance metadata) to the reclaim; EC2 gives two minutes. */
  spotNoticeMs: number;
}

export const DEFAULT_TIMINGS: InstanceTimings = {
  bootMs: 2_000,
  stopMs: 1_000,
  terminateMs: 1_000,
  terminatedRetentionMs: 3_600_000,
  spotNoticeMs: 120_000,
};

/** Eventual-consistency views of instances: a lookup by id and a filtered search lag independently. */
export const VIEW_BY_ID = 'by-id';
export const VIEW_SEARCH = 'search';

export interface StateChange {
  instance: Ec2Instance;
  previous: InstanceStateName;
  current: InstanceStateName;
}

const INSTANCE_ID_RE = /^i-([0-9a-f]{8}|[0-9a-f]{17})$/;

function gmt(ms: number): string {
  return `${new Date(ms).toISOString().replace('T', ' ').slice(0, 19)} GMT`;
}

export class Ec2State extends EmulatedWorldState<Ec2World> {
  /** Where RunInstances answers InsufficientInstanceCapacity. */
  readonly capacity = new CapacityTable(DEFAULT_EXHAUSTED_INSTANCE_TYPES);
  /** Running-or-pending on-demand vCPUs allowed; RunInstances beyond it answers VcpuLimitExceeded. */
  vcpuLimit: number | undefined;
  /** DescribeInstanceTypes page size when the caller sends no MaxResults (AWS: 100). */
  instanceTypesPageSize = 100;
  /** Temporary credentials issued by STS AssumeRoleWithWebIdentity, which EC2 calls may be signed with. */
  readonly sessions: SessionCredentialStore;

  constructor(
    world: Ec2World,
    knobs: EmulatorKnobs,
    public timings: InstanceTimings,
  ) {
    super(world, knobs);
    this.sessions = new SessionCredentialStore(knobs.clock);
    for (const inst of world.instances) {
      this.armTimer(inst);
      this.armSpotReclaim(inst);
    }
  }

  get region(): string {
    return this.world.region;
  }

  // ---- ids and lookups ------------------------------------------------------------------------------------

  /** A fresh `<prefix>-<17 hex>` id, unique among everything this emulator has issued. */
  newId(prefix: string, existing: (id: string) => boolean, hexLength = 17): string {
    for (;;) {
      const id = `${prefix}-0${this.idHex(hexLength - 1)}`;
      if (!existing(id)) return id;
    }
  }

  newInstanceId(): string {
    return this.newId('i', (id) => this.world.instances.some((i) => i.instanceId === id));
  }

  instance(id: string): Ec2Instance | undefined {
    return this.world.instances.find((i) => i.instanceId === id);
  }

  /**
   * Resolves instance ids for a call naming them, as EC2 does: malformed ids and ids it does not know (or
   * does not see yet, under eventual consistency) fail the whole call.
   */
  requireInstances(ids: readonly string[], view = VIEW_BY_ID): Ec2Instance[] {
    const malformed = ids.find((id) => !INSTANCE_ID_RE.test(id));
    if (malformed !== undefined) {
      throw new Ec2ApiError(400, 'InvalidInstanceID.Malformed', `Invalid id: "${malformed}" (expecting "i-...")`);
    }
    const found: Ec2Instance[] = [];
    const missing: string[] = [];
    for (const id of ids) {
      const inst = this.instance(id);
      if (inst && this.knobs.isVisible(id, view)) found.push(inst);
      else missing.push(id);
    }
    if (missing.length > 0) throw idsNotFound('InvalidInstanceID.NotFound', 'instance', missing);
    return found;
  }

  // ---- lifecycle ------------------------------------------------------------------------------------------

  /** Applies every transition that is due by now, in due order. */
  advance(): void {
    const now = this.clock.now();
    const reclaimed = this.reclaimDueSpotInstances(now);
    const due = this.world.instances
      .filter((i) => (i.transition && i.transition.at <= now) || (i.expiresAt !== undefined && i.expiresAt <= now))
      .sort((a, b) => (a.transition?.at ?? a.expiresAt ?? 0) - (b.transition?.at ?? b.expiresAt ?? 0));
    if (due.length === 0) {
      if (reclaimed) this.changed();
      return;
    }
    for (const inst of due) this.applyDue(inst, now);
    this.changed();
  }

  private applyDue(inst: Ec2Instance, now: number): void {
    // A transition can lead into another due one (e.g. terminated then expired in the same step).
    while (inst.transition && inst.transition.at <= now) {
      const { to, at } = inst.transition;
      inst.transition = undefined;
      this.enter(inst, to, at);
    }
    if (inst.expiresAt !== undefined && inst.expiresAt <= now) {
      this.world.instances = this.world.instances.filter((i) => i !== inst);
      this.knobs.visibility.forget(inst.instanceId);
      this.timers.cancel(inst.instanceId);
      return;
    }
    this.armTimer(inst);
  }

  /** The states an instance leaves on its own, what each leads to and after how long (drawn on entry). */
  private readonly passing: Partial<Record<InstanceStateName, { to: InstanceStateName; afterMs: () => number }>> = {
    pending: { to: 'running', afterMs: () => this.bootDelay() },
    stopping: { to: 'stopped', afterMs: () => this.timings.stopMs },
    'shutting-down': { to: 'terminated', afterMs: () => this.timings.terminateMs },
  };

  /** Puts the instance into `state` at time `at` and schedules whatever follows it. */
  private enter(inst: Ec2Instance, state: InstanceStateName, at: number): void {
    inst.state = state;
    const next = this.passing[state];
    inst.transition = next ? { to: next.to, at: at + next.afterMs() } : undefined;
    if (state === 'stopped' || state === 'terminated') {
      // A stopped or terminated instance loses its public addresses; a start assigns new ones.
      inst.publicIpAddress = undefined;
      inst.publicDnsName = undefined;
      inst.carrierIp = undefined;
    }
    if (state === 'terminated') {
      inst.expiresAt = at + this.timings.terminatedRetentionMs;
      this.removeFromLoadBalancers(inst.instanceId);
    }
  }

  private bootDelay(): number {
    return this.delay(this.timings.bootMs);
  }

  private armTimer(inst: Ec2Instance): void {
    this.timers.arm(inst.instanceId, inst.transition?.at ?? inst.expiresAt);
  }

  /** Registers a newly launched instance (already in `pending`). */
  addLaunched(inst: Ec2Instance): void {
    this.world.instances.push(inst);
    this.knobs.recordCreation(inst.instanceId);
    this.enter(inst, 'pending', inst.launchTime);
    this.armTimer(inst);
  }

  terminate(inst: Ec2Instance, reason: { code: string; message: string }): StateChange {
    const previous = inst.state;
    if (previous === 'terminated' || previous === 'shutting-down')
      return { instance: inst, previous, current: previous };
    const now = this.clock.now();
    inst.stateTransitionReason = `${reason.code.startsWith('Server.') ? 'Service' : 'User'} initiated (${gmt(now)})`;
    inst.stateReason = reason;
    this.enter(inst, 'shutting-down', now);
    this.armTimer(inst);
    return { instance: inst, previous, current: inst.state };
  }

  stop(inst: Ec2Instance, reason: { code: string; message: string }): StateChange {
    const previous = inst.state;
    if (previous === 'stopped' || previous === 'stopping') return { instance: inst, previous, current: previous };
    if (previous !== 'running') {
      throw new Ec2ApiError(
        400,
        'IncorrectInstanceState',
        `The instance '${inst.instanceId}' is not in a state from which it can be stopped.`,
      );
    }
    const now = this.clock.now();
    inst.stateTransitionReason = `User initiated (${gmt(now)})`;
    inst.stateReason = reason;
    this.enter(inst, 'stopping', now);
    this.armTimer(inst);
    return { instance: inst, previous, current: inst.state };
  }

  start(inst: Ec2Instance, assignPublicIp: (inst: Ec2Instance) => void): StateChange {
    const previous = inst.state;
    if (previous === 'running' || previous === 'pending') return { instance: inst, previous, current: previous };
    if (previous !== 'stopped') {
      throw new Ec2ApiError(
        400,
        'IncorrectInstanceState',
        `The instance '${inst.instanceId}' is not in a state from which it can be started.`,
      );
    }
    inst.stateTransitionReason = '';
    inst.stateReason = undefined;
    assignPublicIp(inst);
    this.enter(inst, 'pending', this.clock.now());
    this.armTimer(inst);
    return { instance: inst, previous, current: inst.state };
  }

  // ---- Spot interruptions ---------------------------------------------------------------------------------

  /**
   * EC2 decides to reclaim a Spot instance: the notice appears in its metadata now and the reclaim follows
   * after spotNoticeMs (at once when that is 0). A second call keeps the first notice.
   */
  announceSpotInterruption(inst: Ec2Instance): void {
    if (inst.lifecycle !== 'spot') throw new Error(`instance ${inst.instanceId} is not a spot instance`);
    if (inst.spotInterruption) return;
    const behaviour = inst.spotInterruptionBehavior ?? 'terminate';
    if (behaviour !== 'terminate' && inst.state !== 'running')
      throw new Error(`spot instance ${inst.instanceId} is ${inst.state}, not running`);
    const now = this.clock.now();
    inst.spotInterruption = { action: behaviour, noticeAt: now, reclaimAt: now + this.timings.spotNoticeMs };
    if (this.timings.spotNoticeMs <= 0) this.reclaimSpot(inst);
    else this.armSpotReclaim(inst);
  }

  private armSpotReclaim(inst: Ec2Instance): void {
    this.timers.arm(`spot-reclaim/${inst.instanceId}`, inst.spotInterruption?.reclaimAt);
  }

  private reclaimDueSpotInstances(now: number): boolean {
    let any = false;
    for (const inst of this.world.instances) {
      const due = inst.spotInterruption;
      if (
        !due ||
        due.reclaimAt > now ||
        inst.state === 'shutting-down' ||
        inst.state === 'terminated' ||
        inst.state === 'stopped'
      )
        continue;
      this.reclaimSpot(inst);
      any = true;
    }
    return any;
  }

  /** The reclaim itself, with EC2's spot reasons; the notice stays readable until the instance is gone. */
  private reclaimSpot(inst: Ec2Instance): void {
    this.timers.cancel(`spot-reclaim/${inst.instanceId}`);
    if (inst.spotInterruption?.action === 'terminate') {
      this.terminate(inst, {
        code: 'Server.SpotInstanceTermination',
        message: 'Server.SpotInstanceTermination: Spot instance termination',
      });
    } else if (inst.state === 'running') {
      this.stop(inst, {
        code: 'Server.SpotInstanceShutdown',
        message: 'Server.SpotInstanceShutdown: Spot instance shutdown',
      });
    }
  }

  private removeFromLoadBalancers(instanceId: string): void {
    for (const lb of this.world.classicLoadBalancers) lb.instances = lb.instances.filter((id) => id !== instanceId);
    for (const tg of this.world.targetGroups) {
      if (tg.targetType === 'instance') tg.targets = tg.targets.filter((t) => t.id !== instanceId);
    }
  }
}
