// The emulated account plus its clock-driven instance lifecycle: pending → starting (the address is allocated)
// → running; deleting → gone; stopping → stopped; stopped → starting → running. Every change notifies the
// listeners (InstanceView) and schedules a save when persistence is on.
import { CapacityTable, EmulatedWorldState, type EmulatorKnobs, type LatencySpec } from '../kit/index.js';
import type { InstanceStatus } from '../../providers/ibmcloud/vpc-types.js';
import { zoneCode } from './default-world.js';
import type { IbmWorld, InstanceRec, SubnetRec, TransitionRec } from './model.js';

export interface InstanceTimings {
  /** pending → starting. */
  provisionMs: number;
  /** starting → running (fixed, or a seeded random range). */
  bootMs: LatencySpec;
  /** deleting → gone. */
  deleteMs: number;
  /** stopping → stopped. */
  stopMs: number;
}

export const DEFAULT_TIMINGS: InstanceTimings = { provisionMs: 500, bootMs: 1_500, deleteMs: 1_000, stopMs: 1_000 };

/** Eventual-consistency views: a GET by id and a filtered list lag independently. */
export const VIEW_GET = 'get';
export const VIEW_LIST = 'list';

export const UNALLOCATED_IP = '0.0.0.0';

export class VpcState extends EmulatedWorldState<IbmWorld> {
  /** Most instances the account may hold in this region (unset: no limit); a runtime knob, not world state. */
  instanceQuota: number | undefined;
  /** Which profiles a zone has no capacity for (VPC has one market); a runtime knob, not world state. */
  readonly capacity = new CapacityTable();

  constructor(
    world: IbmWorld,
    knobs: EmulatorKnobs,
    public timings: InstanceTimings,
  ) {
    super(world, knobs);
    for (const inst of world.instances) this.armTimer(inst);
  }

  nextSeq(): number {
    return this.world.nextSeq++;
  }

  instance(id: string): InstanceRec | undefined {
    return this.world.instances.find((i) => i.id === id);
  }

  newInstanceId(zone: string): string {
    for (;;) {
      const id = `${zoneCode(this.world.zones, zone)}_${this.idUuid()}`;
      if (!this.instance(id)) return id;
    }
  }

  newZonalId(zone: string): string {
    return `${zoneCode(this.world.zones, zone)}-${this.idUuid()}`;
  }

  // ---- lifecycle ------------------------------------------------------------------------------------------

  /** Applies every transition already due, in due order. */
  advance(): void {
    const now = this.clock.now();
    const due = this.world.instances
      .filter((i) => i.transition && i.transition.at <= now)
      .sort((a, b) => (a.transition?.at ?? 0) - (b.transition?.at ?? 0));
    if (due.length === 0) return;
    for (const inst of due) {
      while (inst.transition && inst.transition.at <= now) {
        const { to, at } = inst.transition;
        inst.transition = undefined;
        if (to === 'gone') {
          this.remove(inst);
          break;
        }
        this.enter(inst, to, at);
      }
      if (this.instance(inst.id)) this.armTimer(inst);
    }
    this.changed();
  }

  /** Registers a newly created instance in `pending`. */
  addCreated(inst: InstanceRec): void {
    this.world.instances.push(inst);
    this.knobs.recordCreation(inst.id);
    this.enter(inst, 'pending', inst.createdAt);
    this.armTimer(inst);
    this.changed();
  }

  /** Starts deleting; a second request while deleting changes nothing. */
  delete(inst: InstanceRec): void {
    if (inst.status === 'deleting') return;
    this.enter(inst, 'deleting', this.clock.now());
    this.armTimer(inst);
    this.changed();
  }

  stop(inst: InstanceRec): void {
    if (inst.status === 'stopping' || inst.status === 'stopped') return;
    if (inst.status !== 'running') throw new Error(`instance ${inst.id} is ${inst.status}, not running`);
    this.enter(inst, 'stopping', this.clock.now());
    this.armTimer(inst);
    this.changed();
  }

  start(inst: InstanceRec): void {
    if (inst.status !== 'stopped') throw new Error(`instance ${inst.id} is ${inst.status}, not stopped`);
    this.enter(inst, 'starting', this.clock.now());
    this.armTimer(inst);
    this.changed();
  }

  /** Marks an instance failed (as a host failure would). */
  fail(inst: InstanceRec, reason: { code: string; message: string }): void {
    inst.status = 'failed';
    inst.statusReasons = [reason];
    inst.transition = undefined;
    this.armTimer(inst);
    this.changed();
  }

  /** The states an instance leaves on its own, what each leads to ('gone': removed) and after how long. */
  private readonly passing: Partial<Record<InstanceStatus, { to: TransitionRec['to']; afterMs: () => number }>> = {
    pending: { to: 'starting', afterMs: () => this.timings.provisionMs },
    starting: { to: 'running', afterMs: () => this.bootDelay() },
    stopping: { to: 'stopped', afterMs: () => this.timings.stopMs },
    deleting: { to: 'gone', afterMs: () => this.timings.deleteMs },
  };

  private enter(inst: InstanceRec, status: InstanceStatus, at: number): void {
    inst.status = status;
    inst.statusReasons = [];
    // The address is allocated as the instance starts; it reads 0.0.0.0 until then.
    if (status === 'starting' && inst.ip === UNALLOCATED_IP) inst.ip = this.allocateIp(inst.subnetId);
    const next = this.passing[status];
    inst.transition = next ? { to: next.to, at: at + next.afterMs() } : undefined;
  }

  private bootDelay(): number {
    return this.delay(this.timings.bootMs);
  }

  private allocateIp(subnetId: string): string {
    const subnet: SubnetRec | undefined = this.world.subnets.find((s) => s.id === subnetId);
    if (!subnet) return '10.255.255.254';
    const [base = '10.0.0.0'] = subnet.cidr.split('/');
    const octets = base.split('.').map(Number);
    const host = subnet.nextHost++;
    const n = (((octets[0] ?? 0) << 24) | ((octets[1] ?? 0) << 16) | ((octets[2] ?? 0) << 8) | (octets[3] ?? 0)) + host;
    return [n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255].join('.');
  }

  private remove(inst: InstanceRec): void {
    this.world.instances = this.world.instances.filter((i) => i !== inst);
    this.knobs.visibility.forget(inst.id);
    delete this.world.tags[instanceCrn(this.world, inst)];
    this.timers.cancel(inst.id);
  }

  private armTimer(inst: InstanceRec): void {
    this.timers.arm(inst.id, inst.transition?.at);
  }
}

export function crn(world: IbmWorld, scope: string, type: string, id: string): string {
  return `crn:v1:bluemix:public:is:${scope}:a/${world.accountId}::${type}:${id}`;
}

export function instanceCrn(world: IbmWorld, inst: InstanceRec): string {
  return crn(world, inst.zone, 'instance', inst.id);
}
