// DescribeInstances, shared by every reconcile worker of a region and credentials:
// - by id: coalesced into one call per batch window;
// - in a burst (a batch of at least `burstSize` ids: a resync, a mass scale-up), the call also describes the
//   other ids asked about recently, and each of those Machines' next check is answered from that view once
//   (within `reuseMs`), so a resync of a thousand Machines costs a call or two instead of one per worker batch
//   (spec/aws.md §7.3). A view is served once only, and never outside a burst: a Machine whose Node just went
//   away (an out-of-band termination right after its last check) is described afresh on that event;
// - by Name tag within a cluster: concurrent look-ups become one filtered call.
// Terminating or tagging an instance forgets what was seen of it, so nobody reads their own write stale.
import type { Instance } from '@aws-sdk/client-ec2';
import { DescribeBatcher, type Clock } from '../../lib/index.js';

export interface InstanceCacheOptions {
  clock: Clock;
  /** Describes these ids; ids absent from the map are unknown to EC2. */
  describeByIds: (ids: string[]) => Promise<Map<string, Instance>>;
  /** Instances whose Name tag is one of names, in the cluster. */
  describeByNames: (clusterId: string, names: string[]) => Promise<Instance[]>;
  /** How long a view described on a Machine's behalf in a burst may answer its next check (default 10 s; 0 = never). */
  reuseMs?: number;
  /** Ids in one batch that make it a burst (default 4). */
  burstSize?: number;
  /** How long an id keeps being refreshed after it was last asked for (default 15 min). */
  rememberMs?: number;
  /** Coalescing window (default 5 ms). */
  windowMs?: number;
  /** Ids per DescribeInstances call (EC2 takes 1,000). */
  maxIds?: number;
  /** Names per filtered call. */
  maxNames?: number;
}

const NAME_TAG = 'Name';

export class InstanceCache {
  /** Views described on a Machine's behalf before it asked; each answers one check. */
  private readonly prefetched = new Map<string, { instance: Instance; at: number }>();
  private lastPrefetch = -Infinity;
  /** id → when a caller last asked for it. */
  private readonly wanted = new Map<string, number>();
  private readonly byId: DescribeBatcher<Instance>;
  private readonly byName: DescribeBatcher<Instance[]>;
  private readonly reuseMs: number;
  private readonly burstSize: number;
  private readonly rememberMs: number;
  private readonly maxIds: number;

  constructor(private readonly o: InstanceCacheOptions) {
    this.reuseMs = o.reuseMs ?? 10_000;
    this.burstSize = o.burstSize ?? 4;
    this.rememberMs = o.rememberMs ?? 15 * 60_000;
    this.maxIds = o.maxIds ?? 1000;
    this.byId = new DescribeBatcher<Instance>({ windowMs: o.windowMs ?? 5, maxBatch: this.maxIds, clock: o.clock, fetch: (ids) => this.fetchIds(ids) });
    this.byName = new DescribeBatcher<Instance[]>({ windowMs: o.windowMs ?? 5, maxBatch: o.maxNames ?? 100, clock: o.clock, fetch: (keys) => this.fetchNames(keys) });
  }

  /** The instance, or undefined when EC2 does not know the id (yet). */
  get(id: string, signal?: AbortSignal): Promise<Instance | undefined> {
    const now = this.o.clock.now();
    this.wanted.set(id, now);
    const hit = this.prefetched.get(id);
    if (hit) {
      this.prefetched.delete(id);
      if (now - hit.at < this.reuseMs) return Promise.resolve(hit.instance);
    }
    return this.byId.get(id, signal);
  }

  /** Instances tagged Name=name in the cluster (any state EC2 still lists). */
  async findByName(clusterId: string, name: string, signal?: AbortSignal): Promise<Instance[]> {
    return (await this.byName.get(`${clusterId}\n${name}`, signal)) ?? [];
  }

  /** Drops what was seen of these instances (after terminating or tagging them). */
  forget(ids: string[]): void {
    for (const id of ids) this.prefetched.delete(id);
  }

  private async fetchIds(ids: string[]): Promise<Map<string, Instance>> {
    const now = this.o.clock.now();
    const riders: string[] = [];
    if (this.reuseMs > 0 && ids.length >= this.burstSize && now - this.lastPrefetch >= this.reuseMs / 2) {
      this.lastPrefetch = now;
      const asked = new Set(ids);
      for (const [id, at] of this.wanted) {
        if (now - at > this.rememberMs) {
          this.wanted.delete(id);
          continue;
        }
        if (asked.size + riders.length >= this.maxIds) break;
        if (!asked.has(id)) riders.push(id);
      }
    }
    const found = await this.o.describeByIds([...ids, ...riders]);
    const at = this.o.clock.now();
    for (const id of riders) {
      const inst = found.get(id);
      if (inst) this.prefetched.set(id, { instance: inst, at });
    }
    for (const id of [...ids, ...riders]) {
      const inst = found.get(id);
      // Gone for good, or not visible yet: not worth describing on anyone else's behalf.
      if (!inst || inst.State?.Name === 'terminated') this.wanted.delete(id);
    }
    return found;
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
        for (const name of names) out.set(`${cluster}\n${name}`, found.filter((i) => i.Tags?.some((t) => t.Key === NAME_TAG && t.Value === name)));
      }),
    );
    return out;
  }
}
