// The credentials and user-data Secrets are the same for every Machine of a MachineSet: reading them once per
// reconcile made Secret GETs the largest share of the provider's API requests (about ten per created Machine)
// and, under the client's QPS limit, the bottleneck of a large scale-up. Reads are shared for a few seconds;
// a rotated Secret is picked up within that time. Nothing here is logged.
import {
  namespacedKey,
  PromiseCache,
  Secrets,
  type Clock,
  type KubeClient,
  type KubeObject,
  type ObjectKey,
  type Resource,
  type Secret,
} from '../../lib/index.js';

export function withSecretCache(client: KubeClient, clock: Clock, ttlMs = 10_000): KubeClient {
  if (ttlMs <= 0) return client;
  const secrets = new PromiseCache<Secret>(clock, ttlMs);
  const get = <T extends KubeObject>(
    resource: Resource<T>,
    key: ObjectKey,
    opts?: { signal?: AbortSignal },
  ): Promise<T> => {
    if (resource !== (Secrets as unknown as Resource<T>)) return client.get(resource, key, opts);
    // Read without the first caller's signal: others may share the read.
    return secrets.get(namespacedKey(key), () => client.get(Secrets, key)) as unknown as Promise<T>;
  };
  return Object.assign(Object.create(client) as KubeClient, { get });
}
