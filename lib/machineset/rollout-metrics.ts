// The rollout's metrics beside the operator's mapi_* ones: how many Machines of each MachineSet are outdated, and
// how long rollouts take (from the first outdated Machine seen to the last one gone).
import { Gauge, Histogram, type Registry } from 'prom-client';
import { getOrCreate } from '../machine/metrics.js';

export const RolloutDurationBuckets = [30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 14400];

export interface RolloutMetrics {
  outdated: Gauge<'name' | 'namespace'>;
  duration: Histogram<'namespace' | 'strategy'>;
}

export function rolloutMetricsFor(registry: Registry): RolloutMetrics {
  return {
    outdated: getOrCreate(
      registry,
      'mapi_machineset_outdated_machines',
      () =>
        new Gauge({
          name: 'mapi_machineset_outdated_machines',
          help: 'Machines of a MachineSet made from an older template (or before its last rollout restart)',
          labelNames: ['name', 'namespace'],
          registers: [registry],
        }),
    ),
    duration: getOrCreate(
      registry,
      'mapi_machineset_rollout_duration_seconds',
      () =>
        new Histogram({
          name: 'mapi_machineset_rollout_duration_seconds',
          help: 'Seconds from a MachineSet first having outdated Machines to all of its Machines matching its template',
          labelNames: ['namespace', 'strategy'],
          buckets: RolloutDurationBuckets,
          registers: [registry],
        }),
    ),
  };
}
