// The Machine API's own metrics (names and buckets as the machine-api-operator exports them).
// mapi_machine_items and mapi_machine_created_timestamp_seconds belong to the operator-style
// collector in lib/machineset, so they are deliberately not defined here.
import { Counter, Histogram, type Registry } from 'prom-client';

export const PhaseTransitionBuckets = [5, 10, 20, 30, 60, 90, 120, 180, 240, 300, 360, 480, 600];

export type InstanceAction = 'create' | 'update' | 'delete';

export interface FailedInstanceLabels {
  name: string;
  namespace: string;
  reason: string;
}

/** A Machine failed because the cloud had no capacity or quota for it. */
export interface CapacityFailureLabels {
  namespace: string;
  zone: string;
  instanceType: string;
  /** The cloud's code: InsufficientInstanceCapacity, ZONE_RESOURCE_POOL_EXHAUSTED, QUOTA_EXCEEDED, ... */
  code: string;
}

/** A capacity choice (capacity-memory.ts), as the refusal and fallback counters label it. */
export interface CapacityChoiceLabels {
  instanceType: string;
  zone: string;
  market: string;
}

export class MachineMetrics {
  readonly phaseTransitionSeconds: Histogram<'phase'>;
  readonly capacityFailures: Counter<'namespace' | 'zone' | 'instance_type' | 'code'>;
  readonly capacityRefusals: Counter<'instance_type' | 'zone' | 'market'>;
  readonly capacityFallbacks: Counter<'instance_type' | 'zone' | 'market'>;
  /** Drains the drain-timeout annotation ended with pods still on the Node. */
  readonly drainTimeouts: Counter<'namespace'>;
  private readonly failed: Record<InstanceAction, Counter<'name' | 'namespace' | 'reason'>>;

  constructor(readonly registry: Registry) {
    this.phaseTransitionSeconds = getOrCreate(
      registry,
      'mapi_machine_phase_transition_seconds',
      () =>
        new Histogram({
          name: 'mapi_machine_phase_transition_seconds',
          help: 'Seconds from machine creation to each phase transition',
          labelNames: ['phase'],
          buckets: PhaseTransitionBuckets,
          registers: [registry],
        }),
    );
    const counter = (action: InstanceAction) =>
      getOrCreate(
        registry,
        `mapi_instance_${action}_failed`,
        () =>
          new Counter({
            name: `mapi_instance_${action}_failed`,
            help: `Number of times the provider instance ${action} failed`,
            labelNames: ['name', 'namespace', 'reason'],
            registers: [registry],
          }),
      );
    this.failed = { create: counter('create'), update: counter('update'), delete: counter('delete') };
    // Per zone and type rather than per Machine: what an operator acts on is "no p5.48xlarge in us-east-1a".
    this.capacityFailures = getOrCreate(
      registry,
      'mapi_machine_capacity_failures_total',
      () =>
        new Counter({
          name: 'mapi_machine_capacity_failures_total',
          help: 'Machines failed with InsufficientResources after the cloud refused capacity or quota for the whole retry window',
          labelNames: ['namespace', 'zone', 'instance_type', 'code'],
          registers: [registry],
        }),
    );
    const choiceCounter = (name: string, help: string) =>
      getOrCreate(
        registry,
        name,
        () => new Counter({ name, help, labelNames: ['instance_type', 'zone', 'market'], registers: [registry] }),
      );
    this.capacityRefusals = choiceCounter(
      'mapi_machine_capacity_refusals_total',
      'Launches of Machines with fallbacks that the cloud refused for want of capacity or quota, by instance type, zone and market',
    );
    this.capacityFallbacks = choiceCounter(
      'mapi_machine_capacity_fallbacks_total',
      'Machines launched on a fallback entry, by the chosen instance type, zone and market',
    );
    this.drainTimeouts = getOrCreate(
      registry,
      'mapi_machine_drain_timeouts_total',
      () =>
        new Counter({
          name: 'mapi_machine_drain_timeouts_total',
          help: 'Node drains ended by the machine.openshift.io/drain-timeout annotation with pods still on the Node',
          labelNames: ['namespace'],
          registers: [registry],
        }),
    );
  }

  /** The cloud refused one launch of a Machine that has fallbacks, for want of capacity or quota. */
  recordCapacityRefusal(c: CapacityChoiceLabels): void {
    this.capacityRefusals.inc({ instance_type: c.instanceType, zone: c.zone, market: c.market });
  }

  /** A Machine was launched on a fallback entry (labelled with the chosen one). */
  recordCapacityFallback(c: CapacityChoiceLabels): void {
    this.capacityFallbacks.inc({ instance_type: c.instanceType, zone: c.zone, market: c.market });
  }

  recordDrainTimeout(namespace: string): void {
    this.drainTimeouts.inc({ namespace });
  }

  recordCapacityFailure(l: CapacityFailureLabels): void {
    this.capacityFailures.inc({ namespace: l.namespace, zone: l.zone, instance_type: l.instanceType, code: l.code });
  }

  /** Seconds since the machine's creation, observed when it enters `phase` (never for Deleting). */
  observePhaseTransition(phase: string, secondsSinceCreation: number): void {
    this.phaseTransitionSeconds.observe({ phase }, Math.max(0, secondsSinceCreation));
  }

  recordInstanceFailure(action: InstanceAction, labels: FailedInstanceLabels): void {
    this.failed[action].inc({ name: labels.name, namespace: labels.namespace, reason: labels.reason });
  }
}

// One registry may be shared by several controllers (and by tests creating several managers):
// registering the same name twice throws in prom-client, so reuse what is there.
/** The metric already registered under `name`, or the one `create` registers. */
export function getOrCreate<M>(registry: Registry, name: string, create: () => M): M {
  const existing = registry.getSingleMetric(name);
  return existing ? (existing as unknown as M) : create();
}

const byRegistry = new WeakMap<Registry, MachineMetrics>();

/** The MachineMetrics of a registry (created and registered on first use). */
export function machineMetricsFor(registry: Registry): MachineMetrics {
  let m = byRegistry.get(registry);
  if (!m) {
    m = new MachineMetrics(registry);
    byRegistry.set(registry, m);
  }
  return m;
}

type MetricsSink = Registry | MachineMetrics | undefined;

function resolve(sink: MetricsSink): MachineMetrics | undefined {
  if (!sink) return undefined;
  return sink instanceof MachineMetrics ? sink : machineMetricsFor(sink);
}

/** For provider actuators: counts a failed instance create (mapi_instance_create_failed). No-op without a sink. */
export function recordInstanceCreateFailed(sink: MetricsSink, labels: FailedInstanceLabels): void {
  resolve(sink)?.recordInstanceFailure('create', labels);
}

/** For provider actuators: counts a failed instance update (mapi_instance_update_failed). */
export function recordInstanceUpdateFailed(sink: MetricsSink, labels: FailedInstanceLabels): void {
  resolve(sink)?.recordInstanceFailure('update', labels);
}

/** For provider actuators: counts a failed instance delete (mapi_instance_delete_failed). */
export function recordInstanceDeleteFailed(sink: MetricsSink, labels: FailedInstanceLabels): void {
  resolve(sink)?.recordInstanceFailure('delete', labels);
}
