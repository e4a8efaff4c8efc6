import { expect } from 'chai';
import { RealClock } from '../../../lib/index.js';
import { EMULATOR_ACCESS_KEY, startEc2Emulator, type Ec2Emulator } from '../../../sim/aws/index.js';
import { AwsClientFactory, describeInstancesById, type Ec2Api } from '../../../providers/aws/index.js';
import { eventually } from '../../../sim/kit/index.js';
import { launchTagged, ownedBy } from './fixtures.js';

describe('AWS clients', () => {
  let emu: Ec2Emulator;
  let factory: AwsClientFactory;
  const creds = { ...EMULATOR_ACCESS_KEY };

  beforeEach(async () => {
    emu = await startEc2Emulator();
    factory = new AwsClientFactory({ clock: new RealClock(), endpoint: emu.endpoint, retryDelayMs: () => 1 });
  });
  afterEach(async () => {
    factory.destroy();
    await emu.stop();
  });

  async function launch(ec2: Ec2Api, n: number): Promise<string[]> {
    const ids: string[] = [];
    for (let i = 0; i < n; i++) {
      const inst = await ec2.runInstances({
        ImageId: 'ami-0a1b2c3d4e5f00001',
        InstanceType: 'm5.large',
        MinCount: 1,
        MaxCount: 1,
        NetworkInterfaces: [{ DeviceIndex: 0, SubnetId: 'subnet-0a1b2c3d4e5f0a001' }],
      });
      ids.push(inst.InstanceId!);
    }
    return ids;
  }

  it('caches one client set per region and credentials, and replaces it when the Secret’s credentials change', () => {
    const a = factory.get('us-east-1', creds, 'ns/aws-creds');
    expect(factory.get('us-east-1', { ...creds }, 'ns/aws-creds')).to.equal(a);
    expect(factory.get('eu-west-1', creds, 'ns/aws-creds')).to.not.equal(a);
    const rotated = factory.get('us-east-1', { ...creds, secretAccessKey: 'rotated' }, 'ns/aws-creds');
    expect(rotated).to.not.equal(a);
    expect(factory.get('us-east-1', creds, 'ns/other')).to.not.equal(
      rotated,
      'the old credentials were dropped with the rotation',
    );
  });

  it('describes many ids in one call and leaves out the ids EC2 does not know', async () => {
    const { ec2 } = factory.get('us-east-1', creds);
    const ids = await launch(ec2, 3);
    emu.knobs.resetCounters();
    const found = await describeInstancesById(ec2, [ids[0]!, 'i-0000000000000dead', ids[1]!, ids[2]!]);
    expect([...found.keys()].sort()).to.deep.equal([...ids].sort());
    expect(emu.knobs.counts('DescribeInstances').total).to.be.at.most(2);
  });

  it("answers a resync's existence checks from one paged DescribeInstances of the cluster's tag, 1,000 a page", async () => {
    const { instances } = factory.get('us-east-1', creds);
    await launchTagged(emu.endpoint, 2_100, () => [ownedBy('c1')]);
    await launchTagged(emu.endpoint, 5, () => [ownedBy('other')]);
    const ids = emu
      .instances()
      .filter((i) => i.tags.some((t) => t.key === 'kubernetes.io/cluster/c1'))
      .map((i) => i.instanceId);
    expect(ids).to.have.length(2_100);
    emu.knobs.resetCounters();
    // Four workers at a time, as a resync's reconciles reach their checks.
    for (let i = 0; i < ids.length; i += 4) {
      const found = await Promise.all(ids.slice(i, i + 4).map((id) => instances.get(id)));
      expect(found.map((f) => f?.InstanceId)).to.deep.equal(ids.slice(i, i + 4));
    }
    // One describe by id before the burst is seen, then ⌈2,100 / 1,000⌉ pages.
    expect(emu.knobs.counts('DescribeInstances').total).to.equal(1 + 3);
  });

  it("leaves the cluster's terminated instances out of a listing, and still describes one asked for by id", async () => {
    const { instances, ec2 } = factory.get('us-east-1', creds);
    await launchTagged(emu.endpoint, 1_200, () => [ownedBy('c1')]);
    const ids = emu.instances().map((i) => i.instanceId);
    const gone = ids.slice(0, 1_000);
    const live = ids.slice(1_000);
    for (let i = 0; i < gone.length; i += 500) await ec2.terminateInstances(gone.slice(i, i + 500));
    await eventually('the terminations done', async () =>
      emu.instances().filter((i) => i.state === 'terminated').length === 1_000 ? true : undefined,
    );
    emu.knobs.resetCounters();
    for (let i = 0; i < live.length; i += 4) {
      const found = await Promise.all(live.slice(i, i + 4).map((id) => instances.get(id)));
      expect(found.map((f) => f?.InstanceId)).to.deep.equal(live.slice(i, i + 4));
    }
    // One describe by id before the burst is seen, then one page: the 200 live ones, not 1,200.
    expect(emu.knobs.counts('DescribeInstances').total).to.equal(1 + 1);
    const terminated = await instances.get(gone[0]!);
    expect(terminated?.State?.Name).to.equal('terminated');
  });

  it('takes a rate-limit token for every call, shared across client sets of a region', async () => {
    const limited = new AwsClientFactory({
      clock: new RealClock(),
      endpoint: emu.endpoint,
      rateLimits: { describe: { qps: 1, burst: 2 }, mutate: { qps: 1, burst: 5 } },
    });
    try {
      emu.addAccessKey({ accessKeyId: 'AKIAOTHERKEY', secretAccessKey: 'other-secret' });
      await limited.get('us-east-1', creds).ec2.describeVpcs([]);
      await limited
        .get('us-east-1', { accessKeyId: 'AKIAOTHERKEY', secretAccessKey: 'other-secret' }, 'other')
        .ec2.describeVpcs([]);
      expect(limited.limiter.available('us-east-1', 'describe')).to.be.below(1);
    } finally {
      limited.destroy();
    }
  });

  it("sends the SDK's retry after RequestLimitExceeded through the limiter too, and lowers the mutating calls' rate", async () => {
    const metered = new AwsClientFactory({
      clock: new RealClock(),
      endpoint: emu.endpoint,
      retryDelayMs: () => 1,
      rateLimits: { describe: { qps: 100, burst: 100 }, mutate: { qps: 1, burst: 3 } },
    });
    try {
      emu.knobs.throttleNext('RunInstances', 1);
      const [id] = await launch(metered.get('us-east-1', creds).ec2, 1);
      expect(id).to.match(/^i-/);
      expect(emu.knobs.counts('RunInstances')).to.include({ total: 2, throttled: 1 });
      expect(metered.limiter.available('us-east-1', 'mutate')).to.be.below(1.5, 'both attempts took a token');
      expect(metered.limiter.rate('us-east-1', 'mutate')).to.be.below(1, 'the refusal lowered the rate');
      expect(metered.limiter.rate('us-east-1', 'describe')).to.equal(100, 'reads are metered apart');
    } finally {
      metered.destroy();
    }
  });
});
