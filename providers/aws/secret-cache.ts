// The credentials and user-data Secrets are the same for every Machine of a MachineSet: reading them once per
// reconcile made Secret GETs the largest share of the provider's API requests (about ten per created Machine)
// and, under the client's QPS limit, the bottleneck of a large scale-up. Reads are shared for a few seconds;
// a rotated Secret is picked up within that time. A Secret whose credentials the cloud refused is read afresh
// for a while instead, so the reconcile its fix triggers sees the fix. Nothing here is logged.
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

/** A client whose Secret reads are shared; `distrust` makes one Secret's reads fresh for a while. */
export type SecretCachingClient = KubeClient & {
  /** The Secret "namespace/name" proved stale or wrong: its next reads, for six cache lifetimes, go to the API. */
  distrust(secret: string): void;
};

export function withSecretCache(client: KubeClient, clock: Clock, ttlMs = 10_000): SecretCachingClient {
  if (ttlMs <= 0) return Object.assign(Object.create(client) as KubeClient, { distrust: () => {} });
  const secrets = new PromiseCache<Secret>(clock, ttlMs);
  const distrusted = new Map<string, number>();
  const fresh = (key: string): boolean => {
    const until = distrusted.get(key);
    if (until === undefined) return false;
    if (clock.now() < until) return true;
    distrusted.delete(key);
    return false;
  };
  const get = <T extends KubeObject>(
    resource: Resource<T>,
    key: ObjectKey,
    opts?: { signal?: AbortSignal },
  ): Promise<T> => {
    if (resource !== (Secrets as unknown as Resource<T>)) return client.get(resource, key, opts);
    const k = namespacedKey(key);
    if (fresh(k)) return client.get(resource, key, opts);
    // Read without the first caller's signal: others may share the read.
    return secrets.get(k, () => client.get(Secrets, key)) as unknown as Promise<T>;
  };
  const distrust = (secret: string): void => {
    secrets.delete(secret);
    distrusted.set(secret, clock.now() + 6 * ttlMs);
  };
  return Object.assign(Object.create(client) as KubeClient, { get, distrust });
}
