// Launch look-ups are shared: identical concurrent or recent queries cost one EC2 call; failures are not kept.
import { expect } from 'chai';
import { FakeClock } from '../../../lib/index.js';
import type { Ec2Api } from '../../../providers/aws/index.js';
import { withLookupCache } from '../../../providers/aws/lookup-cache.js';

function fakeApi(): Ec2Api & { calls: string[]; fail: boolean } {
  const api = {
    region: 'us-east-1',
    calls: [] as string[],
    fail: false,
    describeSubnets(q: unknown) {
      api.calls.push(`subnets ${JSON.stringify(q)}`);
      return api.fail ? Promise.reject(new Error('boom')) : Promise.resolve([{ SubnetId: 'subnet-1' }]);
    },
    runInstances() {
      api.calls.push('run');
      return Promise.resolve({ InstanceId: 'i-1' });
    },
  };
  return api as unknown as Ec2Api & { calls: string[]; fail: boolean };
}

describe('withLookupCache', () => {
  it('shares one call among concurrent identical look-ups and reuses it until the TTL passes', async () => {
    const clock = new FakeClock();
    const api = fakeApi();
    const cached = withLookupCache(api, clock, 1_000);
    const q = { subnetIds: ['subnet-1'] };
    await Promise.all([cached.describeSubnets(q), cached.describeSubnets(q)]);
    await cached.describeSubnets(q);
    expect(api.calls).to.have.length(1);
    await cached.describeSubnets({ subnetIds: ['subnet-2'] });
    expect(api.calls).to.have.length(2);
    clock.step(1_001);
    await cached.describeSubnets(q);
    expect(api.calls).to.have.length(3);
  });

  it('does not keep a failure, and passes other calls straight through', async () => {
    const api = fakeApi();
    const cached = withLookupCache(api, new FakeClock(), 1_000);
    api.fail = true;
    await cached.describeSubnets({}).then(
      () => expect.fail('should reject'),
      (err: Error) => expect(err.message).to.equal('boom'),
    );
    api.fail = false;
    expect(await cached.describeSubnets({})).to.deep.equal([{ SubnetId: 'subnet-1' }]);
    await cached.runInstances({} as never);
    await cached.runInstances({} as never);
    expect(api.calls.filter((c) => c === 'run')).to.have.length(2);
  });

  it('lets a caller stop waiting when its signal aborts', async () => {
    const api = fakeApi();
    const cached = withLookupCache(api, new FakeClock(), 1_000);
    const ac = new AbortController();
    ac.abort(new Error('stop'));
    await cached.describeSubnets({}, { signal: ac.signal }).then(
      () => expect.fail('should reject'),
      (err: Error) => expect(err.message).to.equal('stop'),
    );
  });
});
