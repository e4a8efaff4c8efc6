// An in-memory cloud and its Actuator, for controller tests and as the reference the conformance
// suite is proven against. Instances are keyed by the Machine's UID (like EC2's ClientToken), so a
// repeated or retried create never makes a second instance.
import {
  MachineAZLabel,
  MachineInstanceStateAnnotation,
  MachineInstanceTypeLabel,
  MachineRegionLabel,
} from '../../lib/apis/constants.js';
import type { NodeAddress } from '../../lib/apis/core.js';
import type { Machine } from '../../lib/apis/machine-types.js';
import type { Actuator, ActuatorContext } from '../../lib/machine/actuator.js';
import { InvalidMachineConfigurationError, RequeueAfterError, findError, messageOf } from '../../lib/apis/errors.js';
import {
  recordInstanceCreateFailed,
  recordInstanceDeleteFailed,
  recordInstanceUpdateFailed,
} from '../../lib/machine/metrics.js';
import type { Clock } from '../../lib/base/clock.js';
import type { EmulatedInstance, EmulatedInstanceState, InstanceView } from './instance-view.js';

export type ActuatorMethod = 'create' | 'exists' | 'update' | 'delete';

export interface FakeInstance {
  id: string;
  /** The idempotency token: the Machine's UID (or namespace/name when it has none). */
  token: string;
  machine: { namespace: string; name: string };
  zone: string;
  region: string;
  instanceType: string;
  state: EmulatedInstanceState;
  addresses: NodeAddress[];
  nodeName: string;
}

export interface FakeActuatorCall {
  method: ActuatorMethod;
  namespace: string;
  name: string;
}

/** Thrown while throttling is on: retryable, like a cloud's RequestLimitExceeded. */
export class FakeThrottlingError extends Error {
  override readonly name = 'FakeThrottlingError';
  readonly code = 'Throttling';
  constructor(method: string) {
    super(`fake cloud: ${method}: rate exceeded (throttled)`);
  }
}

/** Thrown when a reply is "lost": the call took effect but the caller never heard. */
export class FakeLostReplyError extends Error {
  override readonly name = 'FakeLostReplyError';
  constructor(method: string) {
    super(`fake cloud: ${method}: connection reset before the reply was read`);
  }
}

export interface FakeActuatorOptions {
  region?: string;
  defaultZone?: string;
  defaultInstanceType?: string;
  /** With a clock, instances stay "pending" this long before "running"; default 0 (running at once). */
  bootDelayMs?: number;
  /** With a clock, deleted instances stay "terminating" this long; default 0. */
  terminateDelayMs?: number;
  clock?: Clock;
}

interface Blocker {
  promise: Promise<void>;
  release: () => void;
}

interface Failure {
  error: Error | (() => Error);
  remaining: number; // Infinity = until cleared
}

/** The providerSpec the fake understands: { zone?: string, instanceType?: string }. */
interface FakeProviderSpec {
  zone: string;
  instanceType: string;
}

export class FakeActuator implements Actuator, InstanceView {
  readonly calls: FakeActuatorCall[] = [];
  private readonly instances = new Map<string, FakeInstance>();
  private readonly failures = new Map<ActuatorMethod, Failure[]>();
  private readonly blockers = new Map<ActuatorMethod, Blocker>();
  private readonly listeners = new Set<() => void>();
  private readonly lostReplies = new Set<ActuatorMethod>();
  private throttled = false;
  private nextId = 1;
  private readonly opts: Required<Omit<FakeActuatorOptions, 'clock'>> & { clock?: Clock };

  constructor(opts: FakeActuatorOptions = {}) {
    this.opts = {
      region: opts.region ?? 'fake-region-1',
      defaultZone: opts.defaultZone ?? 'fake-region-1a',
      defaultInstanceType: opts.defaultInstanceType ?? 'fake.large',
      bootDelayMs: opts.bootDelayMs ?? 0,
      terminateDelayMs: opts.terminateDelayMs ?? 0,
      clock: opts.clock,
    };
  }

  // ---- Actuator -------------------------------------------------------------------------------------

  async create(machine: Machine, ctx: ActuatorContext): Promise<void> {
    return this.counted('create', machine, ctx, () => this.createInstance(machine));
  }

  private async createInstance(machine: Machine): Promise<void> {
    await this.enter('create', machine);
    const spec = this.decodeSpec(machine);
    if (!this.findInstance(machine)) {
      const id = `i-${String(this.nextId++).padStart(8, '0')}`;
      const n = this.nextId;
      const inst: FakeInstance = {
        id,
        token: tokenOf(machine),
        machine: { namespace: machine.metadata.namespace ?? '', name: machine.metadata.name ?? '' },
        zone: spec.zone,
        region: this.opts.region,
        instanceType: spec.instanceType,
        state: 'pending',
        addresses: [],
        nodeName: `ip-10-0-${Math.floor(n / 250)}-${n % 250}.fake.internal`,
      };
      inst.addresses = [
        { type: 'InternalIP', address: `10.0.${Math.floor(n / 250)}.${n % 250}` },
        { type: 'InternalDNS', address: inst.nodeName },
        { type: 'Hostname', address: inst.nodeName },
      ];
      this.instances.set(id, inst);
      this.schedule(this.opts.bootDelayMs, () => {
        if (inst.state === 'pending') this.setState(inst, 'running');
      });
      this.changed();
    }
    this.leave('create');
    // Like real providers, record the instance id at once: the controller persists it straight away.
    const created = this.findInstance(machine);
    if (created) {
      machine.spec = { ...machine.spec, providerID: providerIDOf(created) };
      machine.metadata.annotations = {
        ...machine.metadata.annotations,
        [MachineInstanceStateAnnotation]: created.state,
      };
    }
  }

  async exists(machine: Machine, _ctx: ActuatorContext): Promise<boolean> {
    await this.enter('exists', machine);
    const inst = this.findInstance(machine);
    this.leave('exists');
    return inst !== undefined;
  }

  async update(machine: Machine, ctx: ActuatorContext): Promise<void> {
    return this.counted('update', machine, ctx, () => this.updateInstance(machine));
  }

  private async updateInstance(machine: Machine): Promise<void> {
    await this.enter('update', machine);
    const inst = this.findInstance(machine);
    if (inst) {
      machine.spec = { ...machine.spec, providerID: providerIDOf(inst) };
      machine.metadata.labels = {
        ...machine.metadata.labels,
        [MachineRegionLabel]: inst.region,
        [MachineAZLabel]: inst.zone,
        [MachineInstanceTypeLabel]: inst.instanceType,
      };
      machine.metadata.annotations = { ...machine.metadata.annotations, [MachineInstanceStateAnnotation]: inst.state };
      machine.status = {
        ...machine.status,
        addresses: inst.addresses.map((a) => ({ ...a })),
        providerStatus: { instanceId: inst.id, instanceState: inst.state },
      };
    }
    this.leave('update');
  }

  async delete(machine: Machine, ctx: ActuatorContext): Promise<void> {
    return this.counted('delete', machine, ctx, () => this.deleteInstance(machine));
  }

  private async deleteInstance(machine: Machine): Promise<void> {
    await this.enter('delete', machine);
    const inst = this.findInstance(machine);
    if (inst && inst.state !== 'terminating') {
      this.setState(inst, 'terminating');
      this.schedule(this.opts.terminateDelayMs, () => this.setState(inst, 'terminated'));
    }
    this.leave('delete');
  }

  /**
   * Like real providers, count failures in mapi_instance_<action>_failed (when the context carries metrics); a
   * wait asked for (RequeueAfterError) is not a failure.
   */
  private async counted(
    method: 'create' | 'update' | 'delete',
    machine: Machine,
    ctx: ActuatorContext,
    fn: () => Promise<void>,
  ): Promise<void> {
    try {
      await fn();
    } catch (err) {
      if (findError(err, RequeueAfterError)) throw err;
      const labels = {
        name: machine.metadata.name ?? '',
        namespace: machine.metadata.namespace ?? '',
        reason: messageOf(err),
      };
      const record = {
        create: recordInstanceCreateFailed,
        update: recordInstanceUpdateFailed,
        delete: recordInstanceDeleteFailed,
      }[method];
      record(ctx.metrics, labels);
      throw err;
    }
  }

  // ---- InstanceView ---------------------------------------------------------------------------------

  listInstances(): EmulatedInstance[] {
    return [...this.instances.values()].map((i) => ({
      providerID: providerIDOf(i),
      nodeName: i.nodeName,
      state: i.state,
      addresses: i.addresses.map((a) => ({ ...a })),
      labels: {
        'node.kubernetes.io/instance-type': i.instanceType,
        'topology.kubernetes.io/region': i.region,
        'topology.kubernetes.io/zone': i.zone,
        'kubernetes.io/arch': 'amd64',
      },
    }));
  }

  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  // ---- Test controls --------------------------------------------------------------------------------

  /** All instances, including terminated ones. */
  allInstances(): FakeInstance[] {
    return [...this.instances.values()].map((i) => ({ ...i, addresses: i.addresses.map((a) => ({ ...a })) }));
  }

  /** The live (not terminated) instance for a machine, if any. */
  instanceFor(machine: Machine): FakeInstance | undefined {
    const i = this.findInstance(machine, true);
    return i ? { ...i } : undefined;
  }

  /** Live instances made for a machine (the conformance "exactly one" check). */
  countInstancesFor(machine: Machine): number {
    const token = tokenOf(machine);
    return [...this.instances.values()].filter((i) => i.token === token && i.state !== 'terminated').length;
  }

  callCount(method: ActuatorMethod, machineName?: string): number {
    return this.calls.filter((c) => c.method === method && (machineName === undefined || c.name === machineName))
      .length;
  }

  /** Makes the next `times` calls of `method` throw `error` (Infinity: until clearFailures). */
  failNext(method: ActuatorMethod, error: Error | (() => Error), times = 1): void {
    const list = this.failures.get(method) ?? [];
    list.push({ error, remaining: times });
    this.failures.set(method, list);
  }

  clearFailures(method?: ActuatorMethod): void {
    if (method) this.failures.delete(method);
    else this.failures.clear();
  }

  /** Holds every call of `method` until the returned function is called. */
  block(method: ActuatorMethod): () => void {
    let release!: () => void;
    const promise = new Promise<void>((resolve) => (release = resolve));
    const blocker = { promise, release: () => {} };
    blocker.release = () => {
      if (this.blockers.get(method) === blocker) this.blockers.delete(method);
      release();
    };
    this.blockers.set(method, blocker);
    return blocker.release;
  }

  /** The next call of `method` takes effect but throws as if its reply was lost. */
  loseNextReply(method: ActuatorMethod): void {
    this.lostReplies.add(method);
  }

  throttle(on: boolean): void {
    this.throttled = on;
  }

  /** Changes an instance's state as the cloud would (e.g. 'stopped', or 'terminated' behind our back). */
  setInstanceState(id: string, state: EmulatedInstanceState): void {
    const inst = this.instances.get(id);
    if (!inst) throw new Error(`FakeActuator: no instance ${id}`);
    this.setState(inst, state);
  }

  // ---- internals ------------------------------------------------------------------------------------

  private async enter(method: ActuatorMethod, machine: Machine): Promise<void> {
    this.calls.push({ method, namespace: machine.metadata.namespace ?? '', name: machine.metadata.name ?? '' });
    const blocker = this.blockers.get(method);
    if (blocker) await blocker.promise;
    if (this.throttled) throw new FakeThrottlingError(method);
    const list = this.failures.get(method);
    const f = list?.[0];
    if (f && list) {
      f.remaining -= 1;
      if (f.remaining <= 0) list.shift();
      throw typeof f.error === 'function' ? f.error() : f.error;
    }
  }

  private leave(method: ActuatorMethod): void {
    if (this.lostReplies.delete(method)) throw new FakeLostReplyError(method);
  }

  private decodeSpec(machine: Machine): FakeProviderSpec {
    const value = machine.spec?.providerSpec?.value;
    if (value === undefined || value === null || typeof value !== 'object') {
      throw new InvalidMachineConfigurationError('providerSpec.value must be an object', {
        field: 'spec.providerSpec.value',
      });
    }
    const zone = value.zone ?? this.opts.defaultZone;
    if (typeof zone !== 'string' || !/^[a-z0-9-]+$/.test(zone)) {
      throw new InvalidMachineConfigurationError(
        `spec.providerSpec.value.zone: must be a lower-case zone name, got ${JSON.stringify(zone)}`,
        {
          field: 'spec.providerSpec.value.zone',
        },
      );
    }
    const instanceType = value.instanceType ?? this.opts.defaultInstanceType;
    if (typeof instanceType !== 'string' || instanceType === '') {
      throw new InvalidMachineConfigurationError(
        `spec.providerSpec.value.instanceType: must be a non-empty string, got ${JSON.stringify(instanceType)}`,
        {
          field: 'spec.providerSpec.value.instanceType',
        },
      );
    }
    return { zone, instanceType };
  }

  private findInstance(machine: Machine, includeTerminating = true): FakeInstance | undefined {
    const live = (i: FakeInstance) => i.state !== 'terminated' && (includeTerminating || i.state !== 'terminating');
    const fromID = machine.spec?.providerID?.split('/').pop();
    if (fromID) {
      const byID = this.instances.get(fromID);
      if (byID && live(byID)) return byID;
    }
    const token = tokenOf(machine);
    return [...this.instances.values()].find((i) => i.token === token && live(i));
  }

  private setState(inst: FakeInstance, state: EmulatedInstanceState): void {
    if (inst.state === state) return;
    inst.state = state;
    this.changed();
  }

  private schedule(ms: number, fn: () => void): void {
    if (ms <= 0 || !this.opts.clock) fn();
    else this.opts.clock.setTimeout(fn, ms);
  }

  private changed(): void {
    for (const l of this.listeners) l();
  }
}

export const tokenOf = (m: Machine): string =>
  m.metadata.uid ?? `${m.metadata.namespace ?? ''}/${m.metadata.name ?? ''}`;
export const providerIDOf = (i: FakeInstance): string => `fake:///${i.zone}/${i.id}`;
