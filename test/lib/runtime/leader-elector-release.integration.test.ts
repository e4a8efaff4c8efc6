// Releasing the leader lease on a clean stop, when the stored Lease moved on after this process last read it.
import { expect } from 'chai';
import type { Lease } from '../../../lib/apis/core.js';
import { Leases, Namespaces } from '../../../lib/client/resources.js';
import { FakeClock } from '../../../lib/base/fake-clock.js';
import { nullLogger } from '../../../lib/base/structured-logger.js';
import { LeaderElector } from '../../../lib/runtime/leader-elector.js';
import { startTestEnv, type TestEnv } from '../../../sim/kit/test-env.js';

const NS = 'release';
const timings = { leaseDurationMs: 15_000, renewDeadlineMs: 10_000, retryPeriodMs: 2_000 };

describe('the leader elector releasing its lease', function () {
  this.timeout(20_000);
  let env: TestEnv;
  before(async () => {
    env = await startTestEnv();
    await env.client.create(Namespaces, { metadata: { name: NS } });
  });
  after(async () => env?.stop());

  async function leading(name: string): Promise<LeaderElector> {
    const elector = new LeaderElector(
      { id: name, namespace: NS, identity: 'a', ...timings },
      { client: env.client, clock: new FakeClock(Date.now()), logger: nullLogger(), defaultIdentity: 'a' },
    );
    expect(await elector.acquire(new AbortController().signal)).to.equal(true);
    return elector;
  }

  /** Writes the stored Lease behind the elector's back, as a renewal that landed after it was given up on would. */
  async function moveOn(name: string, holderIdentity: string): Promise<void> {
    const lease: Lease = await env.client.get(Leases, { namespace: NS, name });
    await env.client.update(Leases, {
      ...lease,
      spec: { ...lease.spec, holderIdentity, renewTime: new Date().toISOString().replace('Z', '000Z') },
    });
  }

  const holderOf = async (name: string) => (await env.client.get(Leases, { namespace: NS, name })).spec?.holderIdentity;

  it('reads the Lease again after a conflict and releases it while it is still ours', async () => {
    const elector = await leading('late-renewal');
    await moveOn('late-renewal', 'a');
    await elector.release();
    expect(await holderOf('late-renewal')).to.equal('');
  });

  it('leaves a Lease that another candidate took meanwhile', async () => {
    const elector = await leading('taken');
    await moveOn('taken', 'b');
    await elector.release();
    expect(await holderOf('taken')).to.equal('b');
  });
});
