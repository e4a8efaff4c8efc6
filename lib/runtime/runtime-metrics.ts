// controller-runtime's metric names (controller_runtime_*, workqueue_*, and client-go's leader_election_master_status
// it registers), one set per Registry so two managers in one process (tests) never clash, and the work-queue hooks.
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import type { Clock } from '../base/clock.js';
import type { QueueMetrics } from './work-queue.js';

const reconcileBuckets = [
  0.005, 0.01, 0.025, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0, 1.25, 1.5, 1.75,
  2.0, 2.5, 3.0, 3.5, 4.0, 4.5, 5, 6, 7, 8, 9, 10, 15, 20, 25, 30, 40, 50, 60,
];
/** client-go's ExponentialBuckets(10e-9, 10, 12). */
const queueBuckets = Array.from({ length: 12 }, (_, i) => 1e-8 * 10 ** i);

export interface RuntimeMetrics {
  reconcileTotal: Counter<'controller' | 'result'>;
  reconcileErrors: Counter<'controller'>;
  terminalReconcileErrors: Counter<'controller'>;
  reconcilePanics: Counter<'controller'>;
  reconcileTime: Histogram<'controller'>;
  activeWorkers: Gauge<'controller'>;
  maxConcurrentReconciles: Gauge<'controller'>;
  /** client-go's leader election gauge: 1 while this process leads the Lease `name`, 0 while it is a candidate. */
  leaderElectionMasterStatus: Gauge<'name'>;
  /** Hooks for one named work queue. */
  queueMetrics<T>(name: string, clock: Clock): QueueMetrics<T>;
}

const byRegistry = new WeakMap<Registry, RuntimeMetrics>();

export function runtimeMetrics(registry: Registry): RuntimeMetrics {
  let m = byRegistry.get(registry);
  if (!m) {
    m = build(registry);
    byRegistry.set(registry, m);
  }
  return m;
}

interface QueueState {
  clock: Clock;
  processingSince: Map<unknown, number>;
}

function build(registry: Registry): RuntimeMetrics {
  const registers = [registry];
  const queues = new Map<string, QueueState>();
  const labels = ['name', 'controller'] as const;
  const depth = new Gauge({
    name: 'workqueue_depth',
    help: 'Current depth of workqueue',
    labelNames: labels,
    registers,
  });
  const adds = new Counter({
    name: 'workqueue_adds_total',
    help: 'Total number of adds handled by workqueue',
    labelNames: labels,
    registers,
  });
  const queueLatency = new Histogram({
    name: 'workqueue_queue_duration_seconds',
    help: 'How long in seconds an item stays in workqueue before being requested',
    labelNames: labels,
    buckets: queueBuckets,
    registers,
  });
  const workDuration = new Histogram({
    name: 'workqueue_work_duration_seconds',
    help: 'How long in seconds processing an item from workqueue takes',
    labelNames: labels,
    buckets: queueBuckets,
    registers,
  });
  const retries = new Counter({
    name: 'workqueue_retries_total',
    help: 'Total number of retries handled by workqueue',
    labelNames: labels,
    registers,
  });
  new Gauge({
    name: 'workqueue_unfinished_work_seconds',
    registers,
    labelNames: labels,
    help: "How many seconds of work has been done that is in progress and hasn't been observed by work_duration. Large values indicate stuck threads.",
    collect() {
      for (const [name, q] of queues) {
        const now = q.clock.now();
        let total = 0;
        for (const start of q.processingSince.values()) total += now - start;
        this.set({ name, controller: name }, total / 1000);
      }
    },
  });
  new Gauge({
    name: 'workqueue_longest_running_processor_seconds',
    registers,
    labelNames: labels,
    help: 'How many seconds has the longest running processor for workqueue been running.',
    collect() {
      for (const [name, q] of queues) {
        const now = q.clock.now();
        let longest = 0;
        for (const start of q.processingSince.values()) longest = Math.max(longest, now - start);
        this.set({ name, controller: name }, longest / 1000);
      }
    },
  });

  return {
    reconcileTotal: new Counter({
      name: 'controller_runtime_reconcile_total',
      help: 'Total number of reconciliations per controller',
      labelNames: ['controller', 'result'],
      registers,
    }),
    reconcileErrors: new Counter({
      name: 'controller_runtime_reconcile_errors_total',
      help: 'Total number of reconciliation errors per controller',
      labelNames: ['controller'],
      registers,
    }),
    terminalReconcileErrors: new Counter({
      name: 'controller_runtime_terminal_reconcile_errors_total',
      help: 'Total number of terminal reconciliation errors per controller',
      labelNames: ['controller'],
      registers,
    }),
    reconcilePanics: new Counter({
      name: 'controller_runtime_reconcile_panics_total',
      help: 'Total number of reconciliation panics (thrown non-errors) per controller',
      labelNames: ['controller'],
      registers,
    }),
    reconcileTime: new Histogram({
      name: 'controller_runtime_reconcile_time_seconds',
      help: 'Length of time per reconciliation per controller',
      labelNames: ['controller'],
      buckets: reconcileBuckets,
      registers,
    }),
    activeWorkers: new Gauge({
      name: 'controller_runtime_active_workers',
      help: 'Number of currently used workers per controller',
      labelNames: ['controller'],
      registers,
    }),
    maxConcurrentReconciles: new Gauge({
      name: 'controller_runtime_max_concurrent_reconciles',
      help: 'Maximum number of concurrent reconciles per controller',
      labelNames: ['controller'],
      registers,
    }),
    leaderElectionMasterStatus: new Gauge({
      name: 'leader_election_master_status',
      help: "Gauge of if the reporting system is master of the relevant lease, 0 indicates backup, 1 indicates master. 'name' is the string used to identify the lease. Please make sure to group by name.",
      labelNames: ['name'],
      registers,
    }),
    queueMetrics<T>(name: string, clock: Clock): QueueMetrics<T> {
      const l = { name, controller: name };
      const addTimes = new Map<T, number>();
      const processingSince = new Map<unknown, number>();
      queues.set(name, { clock, processingSince });
      depth.set(l, 0);
      adds.inc(l, 0);
      retries.inc(l, 0);
      return {
        add(item) {
          depth.inc(l);
          adds.inc(l);
          if (!addTimes.has(item)) addTimes.set(item, clock.now());
        },
        get(item) {
          depth.dec(l);
          const added = addTimes.get(item);
          if (added !== undefined) {
            queueLatency.observe(l, (clock.now() - added) / 1000);
            addTimes.delete(item);
          }
          processingSince.set(item, clock.now());
        },
        done(item) {
          const start = processingSince.get(item);
          if (start !== undefined) {
            workDuration.observe(l, (clock.now() - start) / 1000);
            processingSince.delete(item);
          }
        },
        retry() {
          retries.inc(l);
        },
      };
    },
  };
}
