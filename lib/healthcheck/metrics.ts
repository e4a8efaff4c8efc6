// The MachineHealthCheck metrics, registered only where the MHC controller runs.
import { Counter, Gauge, type Registry } from 'prom-client';

export interface HealthCheckMetrics {
  nodesCovered: Gauge<'name' | 'namespace'>;
  remediationSuccess: Counter<'name' | 'namespace'>;
  shortCircuit: Gauge<'name' | 'namespace'>;
  /** Unhealthy Machines the max-in-flight annotation made wait, each counted once per wait. */
  remediationsHeldBack: Counter<'name' | 'namespace'>;
}

function existing<T>(registry: Registry, name: string): T | undefined {
  return registry.getSingleMetric(name) as T | undefined;
}

/** Creates the metrics on `registry`, or returns the ones already there (one registry, one set). */
export function healthCheckMetrics(registry: Registry): HealthCheckMetrics {
  const labelNames = ['name', 'namespace'] as const;
  return {
    nodesCovered:
      existing(registry, 'mapi_machinehealthcheck_nodes_covered') ??
      new Gauge({
        name: 'mapi_machinehealthcheck_nodes_covered',
        help: 'Number of nodes covered by MachineHealthChecks',
        labelNames,
        registers: [registry],
      }),
    remediationSuccess:
      existing(registry, 'mapi_machinehealthcheck_remediation_success_total') ??
      new Counter({
        name: 'mapi_machinehealthcheck_remediation_success_total',
        help: 'Number of successful remediations performed by MachineHealthChecks',
        labelNames,
        registers: [registry],
      }),
    shortCircuit:
      existing(registry, 'mapi_machinehealthcheck_short_circuit') ??
      new Gauge({
        name: 'mapi_machinehealthcheck_short_circuit',
        help: 'Short circuit status for MachineHealthCheck (0=no short-circuit, 1=short-circuited)',
        labelNames,
        registers: [registry],
      }),
    remediationsHeldBack:
      existing(registry, 'mapi_machinehealthcheck_remediations_held_back_total') ??
      new Counter({
        name: 'mapi_machinehealthcheck_remediations_held_back_total',
        help: 'Unhealthy machines whose remediation waited because machine.openshift.io/max-in-flight remediations were in flight',
        labelNames,
        registers: [registry],
      }),
  };
}
