// The launch look-ups every create repeats (AMI, subnet, security groups, zone, VPC, DHCP options) answer
// the same for every Machine of a MachineSet: one call per distinct query per minute, and concurrent
// identical queries share the call in flight, instead of three to five calls per created Machine.
import type { Clock } from '../../lib/index.js';
import type { CallOptions, Ec2Api } from './ec2-api.js';

interface Entry {
  value: Promise<unknown>;
  expires: number;
}

/** Wraps an Ec2Api; every other call goes straight through. */
export function withLookupCache(api: Ec2Api, clock: Clock, ttlMs = 60_000): Ec2Api {
  const entries = new Map<string, Entry>();
  const cached = <T>(method: string, query: unknown, call: () => Promise<T>): Promise<T> => {
    const key = `${method}:${JSON.stringify(query)}`;
    const now = clock.now();
    const hit = entries.get(key);
    if (hit && now < hit.expires) return hit.value as Promise<T>;
    // The call runs without the first caller's signal: others may be waiting on it.
    const value = call();
    entries.set(key, { value, expires: now + ttlMs });
    value.catch(() => entries.delete(key));
    return value;
  };
  const withSignal = <T>(p: Promise<T>, opts?: CallOptions): Promise<T> => {
    const signal = opts?.signal;
    if (!signal) return p;
    const reason = () => (signal.reason instanceof Error ? signal.reason : new Error('aborted'));
    if (signal.aborted) return Promise.reject(reason());
    return new Promise<T>((resolve, reject) => {
      const onAbort = () => reject(reason());
      signal.addEventListener('abort', onAbort, { once: true });
      p.then(
        (v) => {
          signal.removeEventListener('abort', onAbort);
          resolve(v);
        },
        (e: unknown) => {
          signal.removeEventListener('abort', onAbort);
          reject(e instanceof Error ? e : new Error(String(e)));
        },
      );
    });
  };
  return Object.assign(Object.create(api) as Ec2Api, {
    region: api.region,
    describeImages: (q: Parameters<Ec2Api['describeImages']>[0], opts?: CallOptions) => withSignal(cached('images', q, () => api.describeImages(q)), opts),
    describeSubnets: (q: Parameters<Ec2Api['describeSubnets']>[0], opts?: CallOptions) => withSignal(cached('subnets', q, () => api.describeSubnets(q)), opts),
    describeAvailabilityZones: (z: string[], opts?: CallOptions) => withSignal(cached('zones', z, () => api.describeAvailabilityZones(z)), opts),
    describeSecurityGroups: (f: Parameters<Ec2Api['describeSecurityGroups']>[0], opts?: CallOptions) => withSignal(cached('sgs', f, () => api.describeSecurityGroups(f)), opts),
    describeVpcs: (ids: string[], opts?: CallOptions) => withSignal(cached('vpcs', ids, () => api.describeVpcs(ids)), opts),
    describeDhcpOptions: (ids: string[], opts?: CallOptions) => withSignal(cached('dhcp', ids, () => api.describeDhcpOptions(ids)), opts),
  });
}
