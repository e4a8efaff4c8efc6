// The control plane's stand-in for Service networking: webhooks addressed by `clientConfig.service` are
// reached at an address the caller configured, keyed by the Service, never through DNS.
import type { WebhookServiceResolver } from './webhook-client.js';

/**
 * A resolver from what ControlPlaneOptions.webhookServiceResolver accepts: a function, or a map from
 * "namespace/name:port" or "namespace/name" to "host:port". A Map is read at call time, so entries
 * added after start-up (a webhook server started later) are seen.
 */
export function serviceResolver(
  from: WebhookServiceResolver | ReadonlyMap<string, string> | Record<string, string> | undefined,
): WebhookServiceResolver | undefined {
  if (from === undefined || typeof from === 'function') return from;
  const lookup =
    from instanceof Map
      ? (k: string) => from.get(k)
      : (k: string) => (Object.hasOwn(from, k) ? (from as Record<string, string>)[k] : undefined);
  return ({ namespace, name, port }) => lookup(`${namespace}/${name}:${port}`) ?? lookup(`${namespace}/${name}`);
}
