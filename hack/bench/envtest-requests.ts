// The requests machine-api-envtest answered per client, read from its /metrics
// (machine_api_envtest_requests_total{client, verb, resource}), keyed as the in-process count is:
// "client|verb resource[/subresource]".
import { ENVTEST_REQUESTS_METRIC } from '../../cmd/internal/envtest-metrics.js';

export function requestCountsOf(metricsText: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const line of metricsText.split('\n')) {
    if (!line.startsWith(`${ENVTEST_REQUESTS_METRIC}{`)) continue;
    const m = /^[a-z_]+\{([^}]*)\}\s+(\S+)/.exec(line);
    if (!m) continue;
    const labels = new Map([...(m[1] ?? '').matchAll(/([a-z_]+)="([^"]*)"/g)].map((kv) => [kv[1], kv[2]]));
    const key = `${labels.get('client') ?? 'unknown'}|${labels.get('verb') ?? ''} ${labels.get('resource') ?? ''}`;
    out.set(key, (out.get(key) ?? 0) + Number(m[2]));
  }
  return out;
}
