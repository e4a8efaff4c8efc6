// The instance cache keeps only what the actuator reads: measured against EC2's full description of the same
// instances (as the emulator renders them), the slim view must take a fraction of the heap per instance.
import type { Instance } from '@aws-sdk/client-ec2';
import { expect } from 'chai';
import { RealClock } from '../../../lib/index.js';
import { EMULATOR_ACCESS_KEY, startEc2Emulator, type Ec2Emulator } from '../../../sim/aws/index.js';
import { AwsClientFactory } from '../../../providers/aws/index.js';
import { addressesOf, providerIdOf } from '../../../providers/aws/instances.js';
import { slimInstance } from '../../../providers/aws/instance-view.js';
import { growthOver, retainedPerItem } from '../retained-heap.js';
import { launchTagged, ownedBy } from './fixtures.js';

describe('slimInstance', () => {
  let emu: Ec2Emulator;
  let factory: AwsClientFactory;
  let described: Instance[];
  const N = 300;

  before(async () => {
    emu = await startEc2Emulator();
    await launchTagged(emu.endpoint, N, (i) => [ownedBy('c1'), { Key: 'Name', Value: `c1-worker-${i}` }]);
    factory = new AwsClientFactory({ clock: new RealClock(), endpoint: emu.endpoint });
    described = await factory.get('us-east-1', EMULATOR_ACCESS_KEY).ec2.describeInstances({});
  });
  after(async () => {
    factory.destroy();
    await emu.stop();
  });

  it('keeps what the actuator records of an instance', () => {
    for (const i of described) {
      const slim = slimInstance(i);
      expect(providerIdOf(slim)).to.equal(providerIdOf(i));
      expect(addressesOf(slim, ['ec2.internal'])).to.deep.equal(addressesOf(i, ['ec2.internal']));
      expect(slim.Tags).to.deep.equal(i.Tags);
      expect(slim.State?.Name).to.equal(i.State?.Name);
    }
  });

  it("takes under a third of the heap of the SDK's full description per instance", async () => {
    const { ec2 } = factory.get('us-east-1', EMULATOR_ACCESS_KEY);
    // Fresh replies, as each listing parses its own.
    const full = await retainedPerItem(() => ec2.describeInstances({}));
    const slim = await retainedPerItem(async () => (await ec2.describeInstances({})).map(slimInstance));
    expect(slim, `bytes per instance: full ${Math.round(full)}, slim ${Math.round(slim)}`).to.be.below(full / 3);
  });

  it('keeps no reply reachable once a listing returns (N instances described 20 times)', async () => {
    const { ec2 } = factory.get('us-east-1', EMULATOR_ACCESS_KEY);
    const lists = 20;
    const grown = await growthOver(lists, async () => {
      expect(await ec2.describeInstances({})).to.have.length(N);
    });
    expect(grown / (N * lists), `${Math.round(grown / 1024)} KB retained`).to.be.below(500);
  });
});
