// The emulated world plus its clock-driven lifecycle: PROVISIONING → STAGING → RUNNING after the boot delay,
// STOPPING → TERMINATED on stop (or preemption), STOPPING → gone on delete. Every change notifies listeners
// (the InstanceView) and schedules a save when persistence is on.
import { EmulatedWorldState, type EmulatorKnobs, type LatencySpec } from '../kit/index.js';
import { invalidField, notFound } from './api-error.js';
import { CapacityRules } from './capacity.js';
import { instancePath, lastSegment, projectPath, selfLink } from './links.js';
import type { GceInstance, GceOperation, GceWorld, InstanceStatus, OperationScope, Transition } from './model.js';
import { gceTimestamp } from './timestamps.js';

export interface GceTimings {
  /** PROVISIONING → RUNNING (STAGING from half-way); fixed or a seeded random range. */
  bootMs: LatencySpec;
  /** STOPPING → TERMINATED. */
  stopMs: number;
  /** STOPPING → deleted. */
  deleteMs: number;
  /** How long finished operations stay readable. */
  operationRetentionMs: number;
  /** How long a requestId is remembered (GCE: at least 60 minutes). */
  requestIdRetentionMs: number;
  /** Longest time an operations.wait call holds before answering with a not-yet-DONE operation (GCE: 2 min). */
  operationWaitMs: number;
  /** From a preemption notice (instance/preempted turns TRUE) to the stop or delete; GCE gives 30 s. */
  preemptionNoticeMs: number;
}

export const DEFAULT_TIMINGS: GceTimings = {
  bootMs: 2_000,
  stopMs: 1_000,
  deleteMs: 1_000,
  operationRetentionMs: 3_600_000,
  requestIdRetentionMs: 3_600_000,
  operationWaitMs: 2_000,
  preemptionNoticeMs: 30_000,
};

/** Eventual-consistency views: a get by name and a list/aggregatedList lag independently. */
export const VIEW_GET = 'get';
export const VIEW_LIST = 'list';

export interface NewOperation {
  project: string;
  scope: OperationScope;
  operationType: string;
  targetLink: string;
  targetId?: string;
  doneAt?: number;
  error?: GceOperation['error'];
  statusMessage?: string;
}

export function instanceKey(project: string, zone: string, name: string): string {
  return `${project}/${zone}/${name}`;
}

function preemptionKey(inst: GceInstance): string {
  return `preemption/${instanceKey(inst.project, inst.zone, inst.name)}`;
}

export class GceState extends EmulatedWorldState<GceWorld> {
  /** Stockouts and quota checks applied to inserts. */
  readonly capacity = new CapacityRules();

  constructor(
    world: GceWorld,
    knobs: EmulatorKnobs,
    public timings: GceTimings,
  ) {
    super(world, knobs);
    for (const inst of world.instances) {
      this.armTimer(inst);
      if (inst.preemption) this.timers.arm(preemptionKey(inst), inst.preemption.reclaimAt);
    }
  }

  // ---- ids ------------------------------------------------------------------------------------------------

  /** A 19-digit decimal id (GCE ids are uint64, sent as strings). */
  newId(): string {
    return this.idDecimal19();
  }

  newOperationName(): string {
    const r = this.knobs.random;
    return `operation-${this.clock.now()}-${r.hex(13)}-${r.hex(8)}-${r.hex(8)}`;
  }

  nextSeq(): number {
    return this.world.nextSeq++;
  }

  // ---- scope checks ---------------------------------------------------------------------------------------

  requireProject(project: string): void {
    if (!this.world.projects.some((p) => p.name === project)) throw notFound(projectPath(project));
  }

  requireZone(project: string, zone: string): void {
    this.requireProject(project);
    if (!this.world.zones.some((z) => z.name === zone)) throw invalidField('zone', zone, 'Unknown zone.');
  }

  requireRegion(project: string, region: string): void {
    this.requireProject(project);
    if (!this.world.regions.some((r) => r.name === region)) throw invalidField('region', region, 'Unknown region.');
  }

  regionOf(zone: string): string {
    const z = this.world.zones.find((x) => x.name === zone);
    if (!z) throw invalidField('zone', zone, 'Unknown zone.');
    return z.region;
  }

  // ---- instances ------------------------------------------------------------------------------------------

  instance(project: string, zone: string, name: string): GceInstance | undefined {
    return this.world.instances.find((i) => i.project === project && i.zone === zone && i.name === name);
  }

  /** The instance as a caller sees it (404 when missing or not yet visible under eventual consistency). */
  requireInstance(project: string, zone: string, name: string, view = VIEW_GET): GceInstance {
    this.requireZone(project, zone);
    const inst = this.instance(project, zone, name);
    if (!inst || !this.knobs.isVisible(instanceKey(project, zone, name), view))
      throw notFound(instancePath(project, zone, name));
    return inst;
  }

  status(inst: GceInstance): InstanceStatus {
    return inst.resource.status as InstanceStatus;
  }

  /** Registers a new instance in PROVISIONING; returns the clock time it will be RUNNING. */
  addInstance(inst: GceInstance): number {
    const now = this.clock.now();
    this.world.instances.push(inst);
    this.knobs.recordCreation(instanceKey(inst.project, inst.zone, inst.name));
    const boot = this.bootDelay();
    inst.resource.status = 'PROVISIONING';
    inst.transitions = [
      { to: 'STAGING', at: now + Math.floor(boot / 2) },
      { to: 'RUNNING', at: now + boot },
    ];
    this.armTimer(inst);
    return now + boot;
  }

  /** Stops (GCE: → TERMINATED) an instance; returns when it will be TERMINATED. */
  stopInstance(inst: GceInstance, statusMessage?: string): number {
    const now = this.clock.now();
    const st = this.status(inst);
    if (inst.deleting) return inst.transitions.at(-1)?.at ?? now;
    if (st === 'TERMINATED') return now;
    if (st === 'STOPPING') return inst.transitions.at(-1)?.at ?? now;
    const at = now + this.timings.stopMs;
    this.enter(inst, 'STOPPING', now);
    if (statusMessage) inst.resource.statusMessage = statusMessage;
    inst.transitions = [{ to: 'TERMINATED', at }];
    this.armTimer(inst);
    return at;
  }

  /** Starts a TERMINATED instance; returns when it will be RUNNING (now when it already runs or boots). */
  startInstance(inst: GceInstance): number {
    const now = this.clock.now();
    const st = this.status(inst);
    if (st === 'RUNNING') return now;
    if (st === 'PROVISIONING' || st === 'STAGING') return inst.transitions.at(-1)?.at ?? now;
    const boot = this.bootDelay();
    // A restarted Spot VM boots afresh: its metadata no longer says it is being preempted.
    inst.preemption = undefined;
    inst.transitions = [
      { to: 'STAGING', at: now },
      { to: 'RUNNING', at: now + boot },
    ];
    if (st === 'STOPPING') inst.transitions.unshift({ to: 'TERMINATED', at: now });
    this.applyDue(inst, now);
    return now + boot;
  }

  /** Deletes an instance: STOPPING, then gone; returns when it will be gone. */
  deleteInstance(inst: GceInstance): number {
    const now = this.clock.now();
    if (inst.deleting) return inst.transitions.at(-1)?.at ?? now;
    inst.deleting = true;
    const at = now + this.timings.deleteMs;
    if (this.status(inst) !== 'TERMINATED') this.enter(inst, 'STOPPING', now);
    inst.transitions = [{ to: 'DELETED', at }];
    this.armTimer(inst);
    return at;
  }

  // ---- preemption ------------------------------------------------------------------------------------------

  /**
   * GCE begins preempting a Spot or preemptible instance: the metadata server says so at once and the instance
   * is stopped (or deleted, for Spot with instanceTerminationAction DELETE) after preemptionNoticeMs (at once
   * when that is 0). A second call keeps the first notice.
   */
  announcePreemption(inst: GceInstance): void {
    const sched = (inst.resource.scheduling ?? {}) as { preemptible?: boolean; provisioningModel?: string };
    if (sched.preemptible !== true && sched.provisioningModel !== 'SPOT')
      throw new Error(`instance ${inst.name} is neither Spot nor preemptible`);
    if (inst.preemption) return;
    const status = this.status(inst);
    if (inst.deleting || (status !== 'RUNNING' && status !== 'STAGING' && status !== 'PROVISIONING')) {
      throw new Error(`instance ${inst.name} is ${status}${inst.deleting ? ' (deleting)' : ''}, not running`);
    }
    const now = this.clock.now();
    inst.preemption = { noticeAt: now, reclaimAt: now + this.timings.preemptionNoticeMs };
    if (this.timings.preemptionNoticeMs <= 0) this.reclaimPreempted(inst);
    else this.timers.arm(preemptionKey(inst), inst.preemption.reclaimAt);
  }

  private reclaimDuePreemptions(now: number): boolean {
    let any = false;
    for (const inst of this.world.instances) {
      if (
        !inst.preemption ||
        inst.preemption.reclaimAt > now ||
        inst.deleting ||
        this.status(inst) === 'STOPPING' ||
        this.status(inst) === 'TERMINATED'
      )
        continue;
      this.reclaimPreempted(inst);
      any = true;
    }
    return any;
  }

  private reclaimPreempted(inst: GceInstance): void {
    this.timers.cancel(preemptionKey(inst));
    const sched = (inst.resource.scheduling ?? {}) as { instanceTerminationAction?: string };
    const doneAt =
      sched.instanceTerminationAction === 'DELETE'
        ? this.deleteInstance(inst)
        : this.stopInstance(inst, 'Instance was preempted.');
    this.createOperation({
      project: inst.project,
      scope: { kind: 'zone', name: inst.zone },
      operationType: 'compute.instances.preempted',
      targetLink: selfLink(instancePath(inst.project, inst.zone, inst.name)),
      targetId: String(inst.resource.id),
      doneAt,
      statusMessage: 'Instance was preempted.',
    });
  }

  private bootDelay(): number {
    return this.delay(this.timings.bootMs);
  }

  /** Applies every transition that is due by now, in due order, and prunes expired operations/requestIds. */
  advance(): void {
    const now = this.clock.now();
    let changed = this.reclaimDuePreemptions(now);
    const due = this.world.instances.filter((i) => (i.transitions[0]?.at ?? Infinity) <= now);
    due.sort((a, b) => (a.transitions[0] as Transition).at - (b.transitions[0] as Transition).at);
    for (const inst of due) {
      this.applyDue(inst, now);
      changed = true;
    }
    const opCutoff = now - this.timings.operationRetentionMs;
    const before = this.world.operations.length;
    this.world.operations = this.world.operations.filter((o) => o.doneAt > opCutoff);
    if (this.world.operations.length !== before) changed = true;
    const ridCutoff = now - this.timings.requestIdRetentionMs;
    for (const [k, rec] of Object.entries(this.world.requestIds)) {
      if (rec.at <= ridCutoff) {
        delete this.world.requestIds[k];
        changed = true;
      }
    }
    if (changed) this.changed();
  }

  private applyDue(inst: GceInstance, now: number): void {
    while (inst.transitions.length > 0 && (inst.transitions[0] as Transition).at <= now) {
      const t = inst.transitions.shift() as Transition;
      if (t.to === 'DELETED') {
        this.remove(inst);
        return;
      }
      this.enter(inst, t.to, t.at);
    }
    this.armTimer(inst);
  }

  /** Puts the instance into `status` at time `at`, with the side effects GCE has (timestamps, ephemeral IPs). */
  private enter(inst: GceInstance, status: InstanceStatus, at: number): void {
    const r = inst.resource;
    r.status = status;
    if (status === 'RUNNING') {
      r.lastStartTimestamp = gceTimestamp(at);
      delete r.statusMessage;
    }
    if (status === 'STAGING') this.assignNatIps(inst);
    if (status === 'TERMINATED') {
      r.lastStopTimestamp = gceTimestamp(at);
      // Ephemeral external IPs are released on stop and a new one is assigned on the next start.
      for (const nic of (r.networkInterfaces as { accessConfigs?: { natIP?: string }[] }[] | undefined) ?? []) {
        for (const ac of nic.accessConfigs ?? []) delete ac.natIP;
      }
    }
  }

  /** Gives every access config without an address an ephemeral 34.x.y.z address. */
  assignNatIps(inst: GceInstance): void {
    for (const nic of (inst.resource.networkInterfaces as { accessConfigs?: { natIP?: string }[] }[] | undefined) ??
      []) {
      for (const ac of nic.accessConfigs ?? []) {
        if (ac.natIP) continue;
        const used = new Set(this.natIpsInUse());
        let ip: string;
        do ip = `34.${this.knobs.random.int(0, 255)}.${this.knobs.random.int(0, 255)}.${this.knobs.random.int(1, 254)}`;
        while (used.has(ip));
        ac.natIP = ip;
      }
    }
  }

  private natIpsInUse(): string[] {
    return this.world.instances.flatMap((i) =>
      ((i.resource.networkInterfaces as { accessConfigs?: { natIP?: string }[] }[] | undefined) ?? []).flatMap((n) =>
        (n.accessConfigs ?? []).map((a) => a.natIP ?? ''),
      ),
    );
  }

  private remove(inst: GceInstance): void {
    const link = selfLink(instancePath(inst.project, inst.zone, inst.name));
    this.world.instances = this.world.instances.filter((i) => i !== inst);
    this.knobs.visibility.forget(instanceKey(inst.project, inst.zone, inst.name));
    this.timers.cancel(instanceKey(inst.project, inst.zone, inst.name));
    const attached = (inst.resource.disks as { source?: string; autoDelete?: boolean }[] | undefined) ?? [];
    for (const d of attached) {
      const name = lastSegment(d.source ?? '');
      const disk = this.world.disks.find((x) => x.project === inst.project && x.zone === inst.zone && x.name === name);
      if (!disk) continue;
      if (d.autoDelete) this.world.disks = this.world.disks.filter((x) => x !== disk);
      else disk.resource.users = ((disk.resource.users as string[] | undefined) ?? []).filter((u) => u !== link);
    }
    for (const tp of this.world.targetPools) tp.instances = tp.instances.filter((l) => l !== link);
    for (const ig of this.world.instanceGroups) ig.instances = ig.instances.filter((l) => l !== link);
  }

  private armTimer(inst: GceInstance): void {
    this.timers.arm(instanceKey(inst.project, inst.zone, inst.name), inst.transitions[0]?.at);
  }

  // ---- operations -----------------------------------------------------------------------------------------

  createOperation(spec: NewOperation): GceOperation {
    const now = this.clock.now();
    const op: GceOperation = {
      project: spec.project,
      scope: spec.scope,
      name: this.newOperationName(),
      id: this.newId(),
      operationType: spec.operationType,
      targetLink: spec.targetLink,
      targetId: spec.targetId,
      user: 'emulator@developer.gserviceaccount.com',
      insertTime: now,
      startAt: now,
      doneAt: Math.max(now, spec.doneAt ?? now),
      error: spec.error,
      statusMessage: spec.statusMessage,
    };
    this.world.operations.push(op);
    return op;
  }

  operation(project: string, scope: OperationScope, name: string): GceOperation | undefined {
    return this.world.operations.find(
      (o) =>
        o.project === project &&
        o.name === name &&
        o.scope.kind === scope.kind &&
        ('name' in scope ? 'name' in o.scope && o.scope.name === scope.name : true),
    );
  }
}
