// The launch look-ups every create repeats (AMI, subnet, security groups, zone, VPC, DHCP options) answer
// the same for every Machine of a MachineSet: one call per distinct query per minute, and concurrent
// identical queries share the call in flight, instead of three to five calls per created Machine.
import { abortable, PromiseCache, type Clock } from '../../lib/index.js';
import type { CallOptions, Ec2Api } from './ec2-api.js';

/** Wraps an Ec2Api; every other call goes straight through. */
export function withLookupCache(api: Ec2Api, clock: Clock, ttlMs = 60_000): Ec2Api {
  const answers = new PromiseCache<unknown>(clock, ttlMs);
  // The call runs without the first caller's signal: others may be waiting on it.
  const cached = <T>(method: string, query: unknown, call: () => Promise<T>): Promise<T> =>
    answers.get(`${method}:${JSON.stringify(query)}`, call) as Promise<T>;
  const withSignal = <T>(p: Promise<T>, opts?: CallOptions): Promise<T> => abortable(p, opts?.signal);
  return Object.assign(Object.create(api) as Ec2Api, {
    region: api.region,
    describeImages: (q: Parameters<Ec2Api['describeImages']>[0], opts?: CallOptions) =>
      withSignal(
        cached('images', q, () => api.describeImages(q)),
        opts,
      ),
    describeSubnets: (q: Parameters<Ec2Api['describeSubnets']>[0], opts?: CallOptions) =>
      withSignal(
        cached('subnets', q, () => api.describeSubnets(q)),
        opts,
      ),
    describeAvailabilityZones: (z: string[], opts?: CallOptions) =>
      withSignal(
        cached('zones', z, () => api.describeAvailabilityZones(z)),
        opts,
      ),
    describeSecurityGroups: (f: Parameters<Ec2Api['describeSecurityGroups']>[0], opts?: CallOptions) =>
      withSignal(
        cached('sgs', f, () => api.describeSecurityGroups(f)),
        opts,
      ),
    describeVpcs: (ids: string[], opts?: CallOptions) =>
      withSignal(
        cached('vpcs', ids, () => api.describeVpcs(ids)),
        opts,
      ),
    describeDhcpOptions: (ids: string[], opts?: CallOptions) =>
      withSignal(
        cached('dhcp', ids, () => api.describeDhcpOptions(ids)),
        opts,
      ),
  });
}
