// client-go's request metrics, which every Go controller exports: rest_client_requests_total{code,method,host}
// (code is the HTTP status, or "<error>" when no answer came) and rest_client_request_duration_seconds{verb,host}
// (from before the client-side rate limiter until the body is read, as client-go measures it; its buckets).
// One set per Registry, shared by every client of a process, so the counts add up across them.
import { Counter, Histogram, type Registry } from 'prom-client';

export interface RequestObservation {
  method: string;
  /** host:port of the API server. */
  host: string;
  /** The HTTP status code, or "<error>". */
  code: string;
  seconds: number;
}

/** What a transport reports each request to. */
export interface RequestMetrics {
  observe(o: RequestObservation): void;
}

/** client-go's latency buckets, in seconds. */
const latencyBuckets = [0.005, 0.025, 0.1, 0.25, 0.5, 1.0, 2.0, 4.0, 8.0, 15.0, 30.0, 60.0];

const byRegistry = new WeakMap<Registry, RequestMetrics>();

export function restClientMetrics(registry: Registry): RequestMetrics {
  let m = byRegistry.get(registry);
  if (!m) {
    const requests = new Counter({
      name: 'rest_client_requests_total',
      help: 'Number of HTTP requests, partitioned by status code, method, and host.',
      labelNames: ['code', 'method', 'host'],
      registers: [registry],
    });
    const latency = new Histogram({
      name: 'rest_client_request_duration_seconds',
      help: 'Request latency in seconds. Broken down by verb, and host.',
      labelNames: ['verb', 'host'],
      buckets: latencyBuckets,
      registers: [registry],
    });
    m = {
      observe(o) {
        requests.inc({ code: o.code, method: o.method, host: o.host });
        latency.observe({ verb: o.method, host: o.host }, o.seconds);
      },
    };
    byRegistry.set(registry, m);
  }
  return m;
}
