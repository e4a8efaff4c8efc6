// Metrics for admission requests, per webhook path: controller-runtime's webhook metric names (requests by
// HTTP code, latency, in flight) plus the denials, which controller-runtime does not count but which are
// what an operator wants to alert on. One set per Registry, so two servers in one process never clash.
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';

export interface AdmissionMetrics {
  requests: Counter<'webhook' | 'code'>;
  latency: Histogram<'webhook'>;
  inFlight: Gauge<'webhook'>;
  denials: Counter<'webhook'>;
}

const byRegistry = new WeakMap<Registry, AdmissionMetrics>();

export function admissionMetrics(registry: Registry): AdmissionMetrics {
  let m = byRegistry.get(registry);
  if (!m) {
    m = {
      requests: new Counter({
        name: 'controller_runtime_webhook_requests_total',
        help: 'Total number of admission requests by HTTP status code.',
        labelNames: ['webhook', 'code'],
        registers: [registry],
      }),
      latency: new Histogram({
        name: 'controller_runtime_webhook_latency_seconds',
        help: 'Histogram of the latency of processing admission requests',
        labelNames: ['webhook'],
        registers: [registry],
      }),
      inFlight: new Gauge({
        name: 'controller_runtime_webhook_requests_in_flight',
        help: 'Current number of admission requests being served.',
        labelNames: ['webhook'],
        registers: [registry],
      }),
      denials: new Counter({
        name: 'mapi_admission_denials_total',
        help: 'Admission requests answered with allowed=false (denied or undecodable), by webhook path.',
        labelNames: ['webhook'],
        registers: [registry],
      }),
    };
    byRegistry.set(registry, m);
  }
  return m;
}
