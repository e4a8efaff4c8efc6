// DescribeInstances, shared by every reconcile worker of a region and credentials:
// - by id (lib's ListingSnapshot): coalesced into one call per batch window; in a burst (at least `burstSize`
//   ids asked for within a second that no listing could answer: a resync, a mass scale-up), one paged
//   DescribeInstances of every instance tagged with the clusters seen so far (1,000 a page), which answers
//   each Machine's next check once for as long as the burst goes on. A view is served once only, and never
//   outside a burst: a Machine whose Node just went away after its check is described afresh on that event;
//   an id the listing does not show is described by id, never taken for gone;
// - by Name tag within a cluster: concurrent look-ups become one filtered call.
// Only the fields the actuator reads are kept (slimInstance). Terminating or tagging an instance forgets what
// was seen of it, so nobody reads their own write stale.
import type { Instance } from '@aws-sdk/client-ec2';
import { DescribeBatcher, ListingSnapshot, type Clock } from '../../lib/index.js';
import { slimInstance } from './instance-view.js';
import { CLUSTER_TAG_PREFIX } from './instances.js';

export interface InstanceCacheOptions {
  clock: Clock;
  /** Describes these ids; ids absent from the map are unknown to EC2. */
  describeByIds: (ids: string[]) => Promise<Map<string, Instance>>;
  /** Every instance carrying one of these tag keys (the clusters' ownership tags), all pages, by id. */
  listByTagKeys: (tagKeys: string[]) => Promise<Map<string, Instance>>;
  /** Instances whose Name tag is one of names, in the cluster. */
  describeByNames: (clusterId: string, names: string[]) => Promise<Instance[]>;
  /** How long a burst's listing keeps answering after its last answer (default 10 s; 0 = never list). */
  reuseMs?: number;
  /** How long after it was taken a listing may answer at all (default 60 s). */
  maxAgeMs?: number;
  /** Ids asked for within a second that make a batch part of a burst (default 4). */
  burstSize?: number;
  /** Coalescing window (default 5 ms). */
  windowMs?: number;
  /** Ids per DescribeInstances call (EC2 takes 1,000). */
  maxIds?: number;
  /** Names per filtered call. */
  maxNames?: number;
  /** Resolves when a DescribeInstances call may be made now (see DescribeBatcherOptions.admit). */
  admit?: () => Promise<void>;
}

const NAME_TAG = 'Name';

/** The ownership tags (kubernetes.io/cluster/<id> = owned) an instance carries: the scopes a burst lists. */
export function ownedClusterTagKeys(i: Instance): string[] {
  return (i.Tags ?? []).flatMap((t) => (t.Key?.startsWith(CLUSTER_TAG_PREFIX) && t.Value === 'owned' ? [t.Key] : []));
}

const slimAll = (found: Map<string, Instance>): Map<string, Instance> =>
  new Map([...found].map(([id, i]) => [id, slimInstance(i)]));

export class InstanceCache {
  private readonly byId: ListingSnapshot<Instance>;
  private readonly byName: DescribeBatcher<Instance[]>;

  constructor(private readonly o: InstanceCacheOptions) {
    const maxIds = o.maxIds ?? 1000;
    this.byId = new ListingSnapshot<Instance>({
      clock: o.clock,
      windowMs: o.windowMs ?? 5,
      maxBatch: maxIds,
      burstSize: o.burstSize,
      reuseMs: o.reuseMs,
      maxAgeMs: o.maxAgeMs,
      fetch: async (ids) => slimAll(await o.describeByIds(ids)),
      list: async (tagKeys) => slimAll(await o.listByTagKeys(tagKeys)),
      scopesOf: ownedClusterTagKeys,
      admit: o.admit,
    });
    this.byName = new DescribeBatcher<Instance[]>({
      windowMs: o.windowMs ?? 5,
      maxBatch: o.maxNames ?? 100,
      clock: o.clock,
      fetch: (keys) => this.fetchNames(keys),
      admit: o.admit,
    });
  }

  /**
   * The instance, or undefined when EC2 does not know the id (yet). `current` rejects a burst's earlier view
   * the caller knows to be outdated (see ListingSnapshot.get).
   */
  get(id: string, signal?: AbortSignal, current?: (i: Instance) => boolean): Promise<Instance | undefined> {
    return this.byId.get(id, signal, current);
  }

  /** Instances tagged Name=name in the cluster (any state EC2 still lists). */
  async findByName(clusterId: string, name: string, signal?: AbortSignal): Promise<Instance[]> {
    return (await this.byName.get(`${clusterId}\n${name}`, signal)) ?? [];
  }

  /** Drops what was seen of these instances (after terminating or tagging them). */
  forget(ids: string[]): void {
    this.byId.forget(...ids);
  }

  private async fetchNames(keys: string[]): Promise<Map<string, Instance[]>> {
    const byCluster = new Map<string, string[]>();
    for (const k of keys) {
      const [cluster = '', name = ''] = k.split('\n');
      byCluster.set(cluster, [...(byCluster.get(cluster) ?? []), name]);
    }
    const out = new Map<string, Instance[]>();
    await Promise.all(
      [...byCluster].map(async ([cluster, names]) => {
        const found = await this.o.describeByNames(cluster, names);
        for (const name of names)
          out.set(
            `${cluster}\n${name}`,
            found.filter((i) => i.Tags?.some((t) => t.Key === NAME_TAG && t.Value === name)),
          );
      }),
    );
    return out;
  }
}
