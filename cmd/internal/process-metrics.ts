// The process's own metrics, on every binary's /metrics (managerFromFlags builds each binary's Registry with
// this): prom-client's defaults (nodejs_heap_size_used_bytes, process_resident_memory_bytes, ...) and, beside
// them, the V8 heap limit, so that heap used can be read as a share of what the process may use.
import { getHeapStatistics } from 'node:v8';
import { collectDefaultMetrics, Gauge, type Registry } from 'prom-client';

export const HEAP_SIZE_LIMIT_METRIC = 'nodejs_heap_size_limit_bytes';

/** prom-client's default metrics and nodejs_heap_size_limit_bytes, registered on `registry`. */
export function registerProcessMetrics(registry: Registry): void {
  collectDefaultMetrics({ register: registry });
  new Gauge({
    name: HEAP_SIZE_LIMIT_METRIC,
    help:
      'V8 heap size limit in bytes: v8.getHeapStatistics().heap_size_limit, the limit --max-old-space-size sets ' +
      '(the old generation cap plus the young generation); compare with nodejs_heap_size_used_bytes.',
    registers: [registry],
    collect() {
      this.set(getHeapStatistics().heap_size_limit);
    },
  });
}
