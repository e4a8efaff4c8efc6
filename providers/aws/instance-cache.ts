// DescribeInstances, shared by every reconcile worker of a region and credentials:
// - by id: coalesced into one call per batch window; an instance still in a transitional state (pending,
//   stopping, shutting-down) described less than `reuseMs` ago is served again without a call, so the cascade
//   of reconciles that a Machine's own writes trigger while it boots costs one describe. A running or stopped
//   instance is always described afresh: a Node event right after an out-of-band termination must see it;
// - a batch also refreshes the ids other Machines asked about recently whose view is going stale, so a resync
//   of a thousand Machines costs a call or two instead of one per worker batch (spec/aws.md §7.3);
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
  /**
   * How long an instance in a transitional state is served again (default 0: never). Off by default: a
   * cached "pending" read after the instance booted hides an out-of-band termination that follows it until
   * the next resync (the integration test "fails a Running machine whose instance was terminated out of
   * band" catches exactly that).
   */
  reuseMs?: number;
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
/** States the controller requeues on anyway; nothing terminal is concluded from them. */
const TRANSITIONAL = new Set(['pending', 'stopping', 'shutting-down']);

export class InstanceCache {
  private readonly seen = new Map<string, { instance: Instance; at: number }>();
  /** id → when a caller last asked for it. */
  private readonly wanted = new Map<string, number>();
  private readonly byId: DescribeBatcher<Instance>;
  private readonly byName: DescribeBatcher<Instance[]>;
  private readonly reuseMs: number;
  private readonly rememberMs: number;
  private readonly maxIds: number;

  constructor(private readonly o: InstanceCacheOptions) {
    this.reuseMs = o.reuseMs ?? 0;
    this.rememberMs = o.rememberMs ?? 15 * 60_000;
    this.maxIds = o.maxIds ?? 1000;
    this.byId = new DescribeBatcher<Instance>({ windowMs: o.windowMs ?? 5, maxBatch: this.maxIds, clock: o.clock, fetch: (ids) => this.fetchIds(ids) });
    this.byName = new DescribeBatcher<Instance[]>({ windowMs: o.windowMs ?? 5, maxBatch: o.maxNames ?? 100, clock: o.clock, fetch: (keys) => this.fetchNames(keys) });
  }

  /** The instance, or undefined when EC2 does not know the id (yet). */
  get(id: string, signal?: AbortSignal): Promise<Instance | undefined> {
    const now = this.o.clock.now();
    this.wanted.set(id, now);
    const hit = this.seen.get(id);
    if (hit && now - hit.at < this.reuseMs && TRANSITIONAL.has(hit.instance.State?.Name ?? '')) return Promise.resolve(hit.instance);
    return this.byId.get(id, signal);
  }

  /** Instances tagged Name=name in the cluster (any state EC2 still lists). */
  async findByName(clusterId: string, name: string, signal?: AbortSignal): Promise<Instance[]> {
    return (await this.byName.get(`${clusterId}\n${name}`, signal)) ?? [];
  }

  /** Drops what was seen of these instances (after terminating or tagging them). */
  forget(ids: string[]): void {
    for (const id of ids) this.seen.delete(id);
  }

  private remember(instances: Iterable<Instance>): void {
    const at = this.o.clock.now();
    for (const i of instances) if (i.InstanceId) this.seen.set(i.InstanceId, { instance: i, at });
  }

  private async fetchIds(ids: string[]): Promise<Map<string, Instance>> {
    const now = this.o.clock.now();
    const asked = new Set(ids);
    const riders: string[] = [];
    for (const [id, at] of this.reuseMs > 0 ? this.wanted : []) {
      if (now - at > this.rememberMs) {
        this.wanted.delete(id);
        this.seen.delete(id);
        continue;
      }
      if (asked.size + riders.length >= this.maxIds) break;
      const s = this.seen.get(id);
      // Only views past half their life ride along: each id is refreshed at most twice per reuse period.
      if (!asked.has(id) && s && now - s.at > this.reuseMs / 2) riders.push(id);
    }
    const found = await this.o.describeByIds([...ids, ...riders]);
    this.remember(found.values());
    for (const id of [...ids, ...riders]) {
      const inst = found.get(id);
      if (!inst || inst.State?.Name === 'terminated') {
        // Gone for good (or not visible yet): ask EC2 again next time rather than refresh it in every batch.
        this.wanted.delete(id);
        if (!inst) this.seen.delete(id);
      }
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
        this.remember(found);
        for (const name of names) out.set(`${cluster}\n${name}`, found.filter((i) => i.Tags?.some((t) => t.Key === NAME_TAG && t.Value === name)));
      }),
    );
    return out;
  }
}
