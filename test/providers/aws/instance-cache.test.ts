// DescribeInstances sharing: concurrent look-ups by Name become one filtered call, by id one call per batch.
import type { Instance } from '@aws-sdk/client-ec2';
import { expect } from 'chai';
import { RealClock } from '../../../lib/index.js';
import { InstanceCache } from '../../../providers/aws/instance-cache.js';

const inst = (id: string, name: string, state = 'running'): Instance =>
  ({ InstanceId: id, State: { Name: state }, Tags: [{ Key: 'Name', Value: name }] }) as Instance;

describe('InstanceCache', () => {
  it('answers concurrent look-ups by Name in one cluster with one filtered call, each with its own instances', async () => {
    const calls: Array<[string, string[]]> = [];
    const cache = new InstanceCache({
      clock: new RealClock(),
      windowMs: 2,
      describeByIds: () => Promise.resolve(new Map()),
      listByTagKeys: () => Promise.resolve(new Map()),
      describeByNames: (cluster, names) => {
        calls.push([cluster, [...names].sort()]);
        return Promise.resolve([inst('i-1', 'a'), inst('i-2', 'b'), inst('i-3', 'b')]);
      },
    });
    const [a, b, c] = await Promise.all([
      cache.findByName('c1', 'a'),
      cache.findByName('c1', 'b'),
      cache.findByName('c1', 'zzz'),
    ]);
    expect(calls).to.deep.equal([['c1', ['a', 'b', 'zzz']]]);
    expect(a.map((i) => i.InstanceId)).to.deep.equal(['i-1']);
    expect(b.map((i) => i.InstanceId)).to.deep.equal(['i-2', 'i-3']);
    expect(c).to.deep.equal([]);
  });

  it('keeps clusters apart', async () => {
    const clusters: string[] = [];
    const cache = new InstanceCache({
      clock: new RealClock(),
      windowMs: 2,
      describeByIds: () => Promise.resolve(new Map()),
      listByTagKeys: () => Promise.resolve(new Map()),
      describeByNames: (cluster) => {
        clusters.push(cluster);
        return Promise.resolve([]);
      },
    });
    await Promise.all([cache.findByName('c1', 'a'), cache.findByName('c2', 'a')]);
    expect(clusters.sort()).to.deep.equal(['c1', 'c2']);
  });

  it('outside a burst, describes every check afresh, coalescing concurrent callers', async () => {
    let calls = 0;
    const cache = new InstanceCache({
      clock: new RealClock(),
      windowMs: 2,
      describeByIds: (ids) => {
        calls++;
        return Promise.resolve(new Map(ids.map((id) => [id, inst(id, id)])));
      },
      listByTagKeys: () => Promise.resolve(new Map()),
      describeByNames: () => Promise.resolve([]),
    });
    await Promise.all([cache.get('i-1'), cache.get('i-2')]);
    await cache.get('i-1');
    await cache.get('i-2');
    expect(calls).to.equal(3);
  });

  it('in a burst, lists the instances of the clusters seen once, and answers each one check from that listing', async () => {
    const described: string[][] = [];
    const listed: string[][] = [];
    const owned = (id: string) => ({
      ...inst(id, id),
      Tags: [
        { Key: 'Name', Value: id },
        { Key: 'kubernetes.io/cluster/c1', Value: 'owned' },
      ],
      BlockDeviceMappings: [{ DeviceName: '/dev/xvda' }],
    });
    const cache = new InstanceCache({
      clock: new RealClock(),
      windowMs: 2,
      burstSize: 3,
      describeByIds: (ids) => {
        described.push([...ids].sort());
        return Promise.resolve(new Map(ids.map((id) => [id, owned(id)])));
      },
      listByTagKeys: (keys) => {
        listed.push(keys);
        return Promise.resolve(new Map(['i-1', 'i-2', 'i-3', 'i-4', 'i-5'].map((id) => [id, owned(id)])));
      },
      describeByNames: () => Promise.resolve([]),
    });
    await cache.get('i-4');
    // A resync: three at once make a burst, which lists the cluster learnt from i-4's tags.
    await Promise.all(['i-1', 'i-2', 'i-3'].map((id) => cache.get(id)));
    expect(listed).to.deep.equal([['kubernetes.io/cluster/c1']]);
    const i5 = await cache.get('i-5');
    expect(i5?.InstanceId).to.equal('i-5');
    expect(Object.keys(i5 ?? {})).to.not.include('BlockDeviceMappings', 'only the fields the actuator reads are kept');
    expect(described).to.deep.equal([['i-4']], 'the look-ups that made the burst waited for the listing');
    // Served once: the next check of i-5 is described afresh.
    await cache.get('i-5');
    expect(described.at(-1)).to.deep.equal(['i-5']);
  });

  it('forgets the listed view of an instance that was terminated or tagged', async () => {
    let described = 0;
    const tagged = (id: string) => ({ ...inst(id, id), Tags: [{ Key: 'kubernetes.io/cluster/c1', Value: 'owned' }] });
    const cache = new InstanceCache({
      clock: new RealClock(),
      windowMs: 2,
      burstSize: 2,
      describeByIds: (ids) => {
        described++;
        return Promise.resolve(new Map(ids.map((id) => [id, tagged(id)])));
      },
      listByTagKeys: () => Promise.resolve(new Map(['i-1', 'i-2', 'i-9'].map((id) => [id, tagged(id)]))),
      describeByNames: () => Promise.resolve([]),
    });
    await cache.get('i-0');
    await Promise.all([cache.get('i-1'), cache.get('i-2')]);
    cache.forget(['i-9']);
    await cache.get('i-9');
    expect(described).to.equal(2);
  });
});
