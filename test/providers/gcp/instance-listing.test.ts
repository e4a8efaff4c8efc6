// A resync's existence checks against the GCE emulator: one paged instances.list of the cluster's ownership
// label (500 a page, as GCE pages) answers every Machine's check.
import { expect } from 'chai';
import { RealClock } from '../../../lib/index.js';
import { startGceEmulator, type GceEmulator } from '../../../sim/gcp/index.js';
import { GcpClientFactory } from '../../../providers/gcp/index.js';
import type { GCPMachineProviderSpec } from '../../../providers/gcp/provider-spec.js';
import { addressesOf, isInterruptible } from '../../../providers/gcp/instances.js';
import type { Instance } from '../../../providers/gcp/compute-api.js';
import { slimInstance } from '../../../providers/gcp/instance-view.js';
import { growthOver, retainedPerItem } from '../retained-heap.js';
import { addCopies, clientsFor, closeClients, insert, PROJECT, ZONE, type Clients } from '../../sim/gcp/fixtures.js';

/** A spec that asks for neither Spot nor preemptible: what is interruptible then comes from the instance. */
const NO_SPEC = {} as GCPMachineProviderSpec;

describe('GCP clients against the emulator: existence checks of a resync', () => {
  let emu: GceEmulator;
  let c: Clients;
  let factory: GcpClientFactory;

  before(async () => {
    emu = await startGceEmulator({ bootDelayMs: 0 });
    c = clientsFor(emu);
    await insert(c, 'c1-worker-0', { labels: { 'kubernetes-io-cluster-c1': 'owned' } });
    await insert(c, 'other-worker-0', { labels: { 'kubernetes-io-cluster-c2': 'owned' } });
    // 1,100 instances of the cluster, as if made by an earlier run.
    addCopies(emu, 'c1-worker-', 1_099);
    factory = new GcpClientFactory({ clock: new RealClock(), endpoint: emu.endpoint });
  });
  after(async () => {
    await factory.close();
    await closeClients(c);
    await emu.stop();
  });

  it('lists the cluster once, ⌈1,100 / 500⌉ pages, and answers every check from it', async () => {
    const clients = factory.get(undefined);
    const names = Array.from({ length: 1_100 }, (_, n) => `c1-worker-${n}`);
    emu.knobs.resetCounters();
    for (let i = 0; i < names.length; i += 4) {
      const found = await Promise.all(names.slice(i, i + 4).map((n) => clients.findInstance(PROJECT, ZONE, n)));
      expect(found.map((f) => f?.name)).to.deep.equal(names.slice(i, i + 4));
    }
    // The first look-ups before the burst is seen (one name-filtered list), then three pages.
    expect(emu.knobs.counts('instances.list').total).to.equal(1 + 3);
    expect(await clients.findInstance(PROJECT, ZONE, 'other-worker-0')).to.have.property('name', 'other-worker-0');
  });

  it('keeps what the actuator reads of each listed instance, in under a third of the heap of the full Instance', async () => {
    const { compute } = factory.get(undefined);
    const filter = '(labels.kubernetes-io-cluster-c1 = "owned")';
    for (const i of await compute.listInstances(PROJECT, ZONE, filter)) {
      const slim = slimInstance(i);
      expect(slim.name).to.equal(i.name);
      expect(slim.status).to.equal(i.status);
      expect(slim.labels).to.deep.equal(i.labels);
      expect(addressesOf(slim, PROJECT, ZONE)).to.deep.equal(addressesOf(i, PROJECT, ZONE));
      expect(isInterruptible(NO_SPEC, slim)).to.equal(isInterruptible(NO_SPEC, i));
    }
    // Decoded from the REST reply as the client decodes it, by a call that holds nothing afterwards: measured
    // through the client, the 'full' side reads near zero once other test files have run first (something in the
    // call path then keeps the latest reply; one reply, not more: see the test below).
    const url = `${emu.endpoint}/compute/v1/projects/${PROJECT}/zones/${ZONE}/instances?maxResults=500`;
    const page = async () => ((await (await fetch(url)).json()) as { items: Instance[] }).items;
    const full = await retainedPerItem(page);
    const slim = await retainedPerItem(async () => (await page()).map(slimInstance));
    expect(slim, `bytes per instance: full ${Math.round(full)}, slim ${Math.round(slim)}`).to.be.below(full / 3);
  });

  it('keeps no reply reachable once a list returns (1,100 instances listed 10 times)', async () => {
    const { compute } = factory.get(undefined);
    const filter = '(labels.kubernetes-io-cluster-c1 = "owned")';
    const lists = 10;
    const grown = await growthOver(lists, async () => {
      expect(await compute.listInstances(PROJECT, ZONE, filter)).to.have.length(1_100);
    });
    // A listed instance decodes to about 9 KB, which gax's own deadline kept for 600 s (call-deadline.ts).
    expect(grown / (1_100 * lists), `${Math.round(grown / 1024)} KB retained`).to.be.below(500);
  });
});
