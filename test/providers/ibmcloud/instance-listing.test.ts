// A resync's existence checks against the IBM VPC emulator: one paged list of the VPC's instances (100 a page,
// the API's largest `limit`, followed with `start`) answers every Machine's check.
import { expect } from 'chai';
import { RealClock } from '../../../lib/index.js';
import { startIbmVpcEmulator, type IbmVpcEmulator } from '../../../sim/ibmcloud/index.js';
import { IbmClientFactory } from '../../../providers/ibmcloud/index.js';
import { slimInstance } from '../../../providers/ibmcloud/instance-view.js';
import { addressesOf } from '../../../providers/ibmcloud/instances.js';
import { growthOver, retainedPerItem } from '../retained-heap.js';
import { clientFor, emulatorEndpoints, workerPrototype } from './ibm-test-env.js';

describe('IBM Cloud clients against the emulator: existence checks of a resync', () => {
  let emu: IbmVpcEmulator;
  let ids: string[];
  const N = 450;

  before(async () => {
    emu = await startIbmVpcEmulator({ clock: new RealClock() });
    const made = await clientFor(emu).createInstance(workerPrototype(emu, 'worker-0'));
    // N instances in the VPC, as if made by an earlier run: copies of the first with their own ids and names.
    const first = emu.world.instances.find((i) => i.id === made.id)!;
    const seq = Math.max(...emu.world.instances.map((i) => i.seq));
    for (let n = 1; n < N; n++)
      emu.world.instances.push({
        ...structuredClone(first),
        id: `${first.id}-${n}`,
        name: `worker-${n}`,
        seq: seq + n,
      });
    ids = emu.world.instances.map((i) => i.id);
  });
  after(() => emu.stop());

  it('lists the VPC once, ⌈N / 100⌉ pages, and answers every check by id from it', async () => {
    const factory = new IbmClientFactory({
      clock: new RealClock(),
      endpoints: emulatorEndpoints(emu),
    });
    const clients = await factory.get(emu.apiKey, emu.world.region, 'ns/secret');
    const vpcName = `${emu.world.clusterId}-vpc`;
    emu.knobs.resetCounters();
    for (let i = 0; i < ids.length; i += 4) {
      const found = await Promise.all(ids.slice(i, i + 4).map((id) => clients.findInstance(vpcName, { id })));
      expect(found.map((f) => f?.id)).to.deep.equal(ids.slice(i, i + 4));
    }
    // The first four look-ups make the burst and wait for the listing: no GET at all.
    expect(emu.knobs.counts('GetInstance').total).to.equal(0);
    expect(emu.knobs.counts('ListInstances').total).to.equal(Math.ceil(N / 100));
  });

  it('keeps what the actuator reads of each listed instance, in under a third of the heap of the full instance', async () => {
    const vpc = clientFor(emu);
    const listed = await vpc.listInstances({});
    for (const i of listed) {
      const slim = slimInstance(i);
      for (const k of ['id', 'crn', 'name', 'status', 'created_at'] as const) expect(slim[k]).to.equal(i[k]);
      expect(addressesOf('m', slim)).to.deep.equal(addressesOf('m', i));
    }
    const json = JSON.stringify(listed);
    const full = await retainedPerItem(async () => JSON.parse(json) as typeof listed);
    const slim = await retainedPerItem(async () => (JSON.parse(json) as typeof listed).map(slimInstance));
    expect(slim, `bytes per instance: full ${Math.round(full)}, slim ${Math.round(slim)}`).to.be.below(full / 3);
  });

  it('keeps no reply reachable once a listing returns (N instances listed 20 times)', async () => {
    const vpc = clientFor(emu);
    const lists = 20;
    const grown = await growthOver(lists, async () => {
      expect(await vpc.listInstances({})).to.have.length(N);
    });
    expect(grown / (N * lists), `${Math.round(grown / 1024)} KB retained`).to.be.below(500);
  });
});
