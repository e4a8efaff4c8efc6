import { expect } from 'chai';
import { FakeClock } from '../../../lib/index.js';
import { IbmClientFactory, type IbmClients } from '../../../providers/ibmcloud/index.js';
import type { VpcApi } from '../../../providers/ibmcloud/vpc-api.js';
import { VpcApiError } from '../../../providers/ibmcloud/vpc-api-error.js';
import { vpcInstance } from './fixtures.js';
import type { InstanceFilter, InstancePrototype, VpcInstance } from '../../../providers/ibmcloud/vpc-types.js';

const instance = (name: string, id = `id-${name}`): VpcInstance =>
  vpcInstance({ id, crn: `crn:${id}`, name, created_at: '2026-11-22T00:00:00Z' });

/** A VPC holding `names`; lists, GETs, creates and deletes go to it, and each list and GET is counted. */
function fakeVpc(names: string[]) {
  const vpc = new Map(names.map((n) => [n, instance(n)]));
  const lists: InstanceFilter[] = [];
  const gets: string[] = [];
  const api = {
    serviceUrl: 'http://vpc.test/v1',
    withServiceUrl: () => api,
    listInstances: (f: InstanceFilter) => {
      lists.push(f);
      return Promise.resolve([...vpc.values()].filter((i) => f.name === undefined || i.name === f.name));
    },
    getInstance: (id: string) => {
      gets.push(id);
      const found = [...vpc.values()].find((i) => i.id === id);
      if (found) return Promise.resolve(found);
      return Promise.reject(
        new VpcApiError({ service: 'vpc', operation: 'getInstance', status: 404, code: 'not_found', message: id }),
      );
    },
    createInstance: (p: InstancePrototype) => {
      const made = instance(p.name, `id-${p.name}-new`);
      vpc.set(p.name, made);
      return Promise.resolve(made);
    },
    deleteInstance: (id: string) => {
      for (const [n, i] of vpc) if (i.id === id) vpc.delete(n);
      return Promise.resolve();
    },
  } as unknown as VpcApi;
  return { vpc, lists, gets, api };
}

describe('IBM Cloud clients: instance look-ups', () => {
  async function setup(names: string[]) {
    const clock = new FakeClock();
    const cloud = fakeVpc(names);
    const factory = new IbmClientFactory({
      clock,
      endpoints: { vpc: 'http://vpc.test' },
      createVpcApi: () => cloud.api,
    });
    const clients: IbmClients = await factory.get('api-key', 'us-south', 'ns/secret');
    const find = async (...keys: Array<{ id: string } | { name: string }>) => {
      const pending = Promise.all(keys.map((k) => clients.findInstance('vpc-a', k)));
      await new Promise((r) => setImmediate(r));
      clock.step(5);
      return (await pending).map((i) => i?.id);
    };
    return { clock, cloud, clients, find };
  }

  it('outside a burst, reads each look-up on its own: GET by id, the name filter by name', async () => {
    const { cloud, find } = await setup(['a', 'b']);
    expect(await find({ id: 'id-a' }, { name: 'b' }, { id: 'id-gone' })).to.deep.equal(['id-a', 'id-b', undefined]);
    expect(cloud.lists).to.deep.equal([{ name: 'b', vpcName: 'vpc-a' }]);
    expect(cloud.gets.sort()).to.deep.equal(['id-a', 'id-gone']);
  });

  it('in a resync burst, lists the VPC once and answers every other Machine once from it, then reads afresh', async () => {
    const names = Array.from({ length: 30 }, (_, i) => `m${i}`);
    const { cloud, find } = await setup(names);
    await find(...names.slice(0, 4).map((id) => ({ id: `id-${id}` })));
    for (const n of names.slice(4)) expect(await find({ id: `id-${n}` })).to.deep.equal([`id-${n}`]);
    expect(cloud.lists).to.deep.equal([{ vpcName: 'vpc-a' }]);
    expect(cloud.gets).to.deep.equal([]);
    cloud.vpc.delete('m10');
    expect(await find({ id: 'id-m10' })).to.deep.equal([undefined], 'a second look-up is not answered from the list');
    expect(cloud.gets).to.deep.equal(['id-m10']);
  });

  it('forgets an instance deleted or created through the clients, so nobody reads their own write stale', async () => {
    const names = Array.from({ length: 8 }, (_, i) => `m${i}`);
    const { cloud, clients, find } = await setup(names);
    await find(...names.slice(0, 4).map((n) => ({ name: n })));
    await clients.vpc.deleteInstance('id-m4');
    expect(await find({ id: 'id-m4' })).to.deep.equal([undefined]);
    await clients.vpc.deleteInstance('id-m5');
    expect(await find({ name: 'm5' })).to.deep.equal([undefined], 'the name of a deleted instance is forgotten too');
    await clients.vpc.createInstance({ name: 'm6' } as InstancePrototype);
    expect(await find({ name: 'm6' })).to.deep.equal(['id-m6-new']);
    expect(await find({ name: 'm7' })).to.deep.equal(['id-m7'], 'what was not touched is still answered from the list');
    expect(cloud.lists.filter((f) => f.name === undefined)).to.have.length(1);
    expect(cloud.gets).to.deep.equal(['id-m4']);
  });
});
