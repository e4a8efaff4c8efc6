import { expect } from 'chai';
import { startGceEmulator, type GceEmulator } from '../../../sim/gcp/index.js';
import {
  clientsFor,
  closeClients,
  errorOf,
  insert,
  PROJECT,
  REGION,
  waitDone,
  ZONE,
  type Clients,
  type IOperation,
} from './fixtures.js';

const LINK = (name: string) =>
  `https://www.googleapis.com/compute/v1/projects/${PROJECT}/zones/${ZONE}/instances/${name}`;
const GROUP = `test-cluster-master-${ZONE}`;

describe('GCE emulator: target pools, instance groups and backend services', () => {
  let emu: GceEmulator;
  let c: Clients;
  beforeEach(async () => {
    emu = await startGceEmulator({ bootDelayMs: 30, deleteDelayMs: 20 });
    c = clientsFor(emu);
    await waitDone(c, await insert(c, 'master-0'));
  });
  afterEach(async () => {
    await closeClients(c);
    await emu.stop();
  });

  it('adds an instance to a target pool and removes it, with region operations that wait to DONE', async () => {
    const [lro] = await c.targetPools.addInstance({
      project: PROJECT,
      region: REGION,
      targetPool: 'test-cluster-api',
      targetPoolsAddInstanceRequestResource: { instances: [{ instance: LINK('master-0') }] },
    });
    const op = lro.latestResponse as IOperation;
    expect(op.region).to.equal(`https://www.googleapis.com/compute/v1/projects/${PROJECT}/regions/${REGION}`);
    const [done] = await c.regionOps.wait({ project: PROJECT, region: REGION, operation: op.name ?? '' });
    expect(done.status).to.equal('DONE');
    const [tp] = await c.targetPools.get({ project: PROJECT, region: REGION, targetPool: 'test-cluster-api' });
    expect(tp.instances).to.deep.equal([LINK('master-0')]);
    await c.targetPools.removeInstance({
      project: PROJECT,
      region: REGION,
      targetPool: 'test-cluster-api',
      targetPoolsRemoveInstanceRequestResource: { instances: [{ instance: LINK('master-0') }] },
    });
    const [after] = await c.targetPools.get({ project: PROJECT, region: REGION, targetPool: 'test-cluster-api' });
    expect(after.instances ?? []).to.deep.equal([]);
    expect(
      (await errorOf(c.targetPools.get({ project: PROJECT, region: REGION, targetPool: 'nope' }))).httpStatusCode,
    ).to.equal(404);
  });

  it('adds, lists (RUNNING only) and removes instances of an instance group; deleting an instance drops it', async () => {
    await c.instanceGroups.addInstances({
      project: PROJECT,
      zone: ZONE,
      instanceGroup: GROUP,
      instanceGroupsAddInstancesRequestResource: { instances: [{ instance: LINK('master-0') }] },
    });
    const dup = await errorOf(
      c.instanceGroups.addInstances({
        project: PROJECT,
        zone: ZONE,
        instanceGroup: GROUP,
        instanceGroupsAddInstancesRequestResource: { instances: [{ instance: LINK('master-0') }] },
      }),
    );
    expect(dup.httpStatusCode).to.equal(400);
    const [running] = await c.instanceGroups.listInstances(
      {
        project: PROJECT,
        zone: ZONE,
        instanceGroup: GROUP,
        instanceGroupsListInstancesRequestResource: { instanceState: 'RUNNING' },
      },
      { autoPaginate: false },
    );
    expect(running.map((i) => i.instance)).to.deep.equal([LINK('master-0')]);
    emu.stopOutOfBand('master-0');
    const list = async (instanceState: string) =>
      (
        await c.instanceGroups.listInstances(
          {
            project: PROJECT,
            zone: ZONE,
            instanceGroup: GROUP,
            instanceGroupsListInstancesRequestResource: { instanceState },
          },
          { autoPaginate: false },
        )
      )[0].map((i) => i.instance);
    expect(await list('RUNNING')).to.deep.equal([]);
    expect(await list('ALL')).to.deep.equal([LINK('master-0')]);
    const [group] = await c.instanceGroups.get({ project: PROJECT, zone: ZONE, instanceGroup: GROUP });
    expect(group.size).to.equal(1);
    emu.startOutOfBand('master-0');
    await c.instanceGroups.removeInstances({
      project: PROJECT,
      zone: ZONE,
      instanceGroup: GROUP,
      instanceGroupsRemoveInstancesRequestResource: { instances: [{ instance: LINK('master-0') }] },
    });
    expect((await c.instanceGroups.get({ project: PROJECT, zone: ZONE, instanceGroup: GROUP }))[0].size).to.equal(0);
    await c.instanceGroups.addInstances({
      project: PROJECT,
      zone: ZONE,
      instanceGroup: GROUP,
      instanceGroupsAddInstancesRequestResource: { instances: [{ instance: LINK('master-0') }] },
    });
    const [del] = await c.instances.delete({ project: PROJECT, zone: ZONE, instance: 'master-0' });
    await waitDone(c, del.latestResponse as IOperation);
    expect((await c.instanceGroups.get({ project: PROJECT, zone: ZONE, instanceGroup: GROUP }))[0].size).to.equal(0);
  });

  it('inserts a new instance group once (409 after) and 404s a missing one', async () => {
    expect(
      (await errorOf(c.instanceGroups.get({ project: PROJECT, zone: ZONE, instanceGroup: 'other-master-x' })))
        .httpStatusCode,
    ).to.equal(404);
    const resource = {
      name: 'other-master-x',
      zone: ZONE,
      network: `projects/${PROJECT}/global/networks/test-cluster-network`,
      subnetwork: `projects/${PROJECT}/regions/${REGION}/subnetworks/test-cluster-master-subnet`,
    };
    await c.instanceGroups.insert({ project: PROJECT, zone: ZONE, instanceGroupResource: resource });
    const [g] = await c.instanceGroups.get({ project: PROJECT, zone: ZONE, instanceGroup: 'other-master-x' });
    expect(g.network).to.equal(
      `https://www.googleapis.com/compute/v1/projects/${PROJECT}/global/networks/test-cluster-network`,
    );
    expect(
      (await errorOf(c.instanceGroups.insert({ project: PROJECT, zone: ZONE, instanceGroupResource: resource })))
        .httpStatusCode,
    ).to.equal(409);
  });

  it('gets a regional backend service and updates it with an appended backend (whole-resource PUT)', async () => {
    const [bs] = await c.backendServices.get({
      project: PROJECT,
      region: REGION,
      backendService: 'test-cluster-api-internal',
    });
    expect(bs.backends).to.have.length(3);
    const group = `https://www.googleapis.com/compute/v1/projects/${PROJECT}/zones/${ZONE}/instanceGroups/${GROUP}`;
    expect(bs.backends?.map((b) => b.group)).to.include(group);
    await c.instanceGroups.insert({ project: PROJECT, zone: ZONE, instanceGroupResource: { name: 'extra-group' } });
    const extra = `https://www.googleapis.com/compute/v1/projects/${PROJECT}/zones/${ZONE}/instanceGroups/extra-group`;
    await c.backendServices.update({
      project: PROJECT,
      region: REGION,
      backendService: 'test-cluster-api-internal',
      backendServiceResource: {
        ...bs,
        backends: [...(bs.backends ?? []), { balancingMode: 'CONNECTION', group: extra }],
      },
    });
    const [after] = await c.backendServices.get({
      project: PROJECT,
      region: REGION,
      backendService: 'test-cluster-api-internal',
    });
    expect(after.backends?.map((b) => b.group)).to.include(extra);
    const stale = await errorOf(
      c.backendServices.update({
        project: PROJECT,
        region: REGION,
        backendService: 'test-cluster-api-internal',
        backendServiceResource: bs,
      }),
    );
    expect(stale.httpStatusCode).to.equal(412);
  });
});
