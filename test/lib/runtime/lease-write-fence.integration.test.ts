// A leader paused past its lease (SIGSTOP, a long GC pause) must not change the cluster when it resumes:
// its fence refuses every write from the moment its renew deadline passed by its own clock, and its
// renewal loop reports the lease lost at once instead of trying to renew for another renew deadline.
import { expect } from 'chai';
import type { Lease } from '../../../lib/apis/core.js';
import { createKubeClient } from '../../../lib/client/http-kube-client.js';
import { loadKubeConfig } from '../../../lib/client/kube-config.js';
import { isNotFound } from '../../../lib/client/errors.js';
import { ConfigMaps, Leases, Namespaces } from '../../../lib/client/resources.js';
import { FakeClock } from '../../../lib/base/fake-clock.js';
import { nullLogger } from '../../../lib/base/structured-logger.js';
import { LeaderElector } from '../../../lib/runtime/leader-elector.js';
import { LeaseLostWriteRefusedError, LeaseWriteFence } from '../../../lib/runtime/lease-write-fence.js';
import { startTestEnv, type TestEnv } from '../../../sim/kit/test-env.js';
import { waitFor } from './support/wait.js';

const NS = 'fence';
const timings = { leaseDurationMs: 15_000, renewDeadlineMs: 10_000, retryPeriodMs: 2_000 };
const configMap = (name: string) => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace: NS },
  data: { k: 'v' },
});

describe('LeaseWriteFence and the leader elector', function () {
  this.timeout(20_000);
  let env: TestEnv;
  before(async () => {
    env = await startTestEnv();
    await env.client.create(Namespaces, { metadata: { name: NS } });
  });
  after(async () => env?.stop());

  function fencedClient(fence: LeaseWriteFence) {
    return createKubeClient({ kubeConfig: env.kubeConfig, qps: 1000, burst: 1000, writeFence: fence });
  }

  it('refuse every write while closed, without sending it, and let reads through', async () => {
    const fence = new LeaseWriteFence(new FakeClock());
    const client = fencedClient(fence);
    try {
      const err = await client.create(ConfigMaps, configMap('never-sent')).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(err).to.be.instanceOf(LeaseLostWriteRefusedError);
      expect((err as Error).message).to.match(
        /^POST \/api\/v1\/namespaces\/fence\/configmaps refused: this process does not hold the leader lease/,
      );
      const read = await env.client.get(ConfigMaps, { namespace: NS, name: 'never-sent' }).then(
        () => 'found',
        (e: unknown) => (isNotFound(e) ? 'not found' : e),
      );
      expect(read).to.equal('not found');
      expect((await client.list(ConfigMaps, { namespace: NS })).items).to.be.an('array');
    } finally {
      client.close();
    }
  });

  it('open until renewDeadline after the start of the last renewal, by the elector clock', async () => {
    const clock = new FakeClock(Date.now());
    const fence = new LeaseWriteFence(clock);
    const elector = new LeaderElector(
      { id: 'open-window', namespace: NS, identity: 'a', ...timings },
      { client: env.client, clock, logger: nullLogger(), defaultIdentity: 'a', fence },
    );
    expect(fence.isOpen(), 'closed before the lease is held').to.equal(false);
    expect(await elector.acquire(new AbortController().signal)).to.equal(true);
    clock.step(timings.renewDeadlineMs - 1);
    expect(fence.isOpen()).to.equal(true);
    clock.step(1);
    expect(fence.isOpen(), 'closed at the renew deadline').to.equal(false);
    expect(elector.isLeader(), 'a paused leader does not count itself leader').to.equal(false);
  });

  it('a leader paused past its lease resumes with its writes refused and reports the lease lost without renewing', async () => {
    const clock = new FakeClock(Date.now());
    const fence = new LeaseWriteFence(clock);
    const client = fencedClient(fence);
    const key = { namespace: NS, name: 'paused-leader' };
    const elector = new LeaderElector(
      { id: key.name, namespace: NS, identity: 'a', ...timings },
      { client: env.client, clock, logger: nullLogger(), defaultIdentity: 'a', fence },
    );
    try {
      expect(await elector.acquire(new AbortController().signal)).to.equal(true);
      await client.create(ConfigMaps, configMap('while-leading'));
      clock.step(1_000);
      const stop = new AbortController();
      const renewing = elector.keepRenewing(stop.signal);
      // Renewed once, and now sleeping one retry period.
      const acquired = (await env.client.get(Leases, key)).metadata?.resourceVersion;
      await waitFor(
        async () =>
          (await env.client.get(Leases, key)).metadata?.resourceVersion !== acquired &&
          clock.nextTimerAt() === clock.now() + timings.retryPeriodMs,
        'the first renewal',
      );

      // While this process is stopped, the other replica sees the lease unrenewed and takes it.
      const lease = await env.client.get(Leases, key);
      const taken = await env.client.update(Leases, {
        ...lease,
        spec: { ...(lease.spec as NonNullable<Lease['spec']>), holderIdentity: 'b' },
      });
      clock.pause(timings.leaseDurationMs + 5_000);

      const write = await client.create(ConfigMaps, configMap('after-resume')).then(
        () => 'applied',
        (e: unknown) => e,
      );
      expect(write).to.be.instanceOf(LeaseLostWriteRefusedError);
      expect(await renewing).to.equal('lost');
      expect(elector.isLeader()).to.equal(false);
      const after = await env.client.get(Leases, key);
      expect(after.spec?.holderIdentity, 'the new holder keeps the lease').to.equal('b');
      expect(after.metadata?.resourceVersion, 'the deposed leader wrote nothing to the Lease').to.equal(
        taken.metadata?.resourceVersion,
      );
      const read = await env.client.get(ConfigMaps, { namespace: NS, name: 'after-resume' }).then(
        () => 'found',
        (e: unknown) => (isNotFound(e) ? 'not found' : e),
      );
      expect(read).to.equal('not found');
    } finally {
      client.close();
    }
  });

  for (const scheme of ['http', 'https'] as const) {
    it(`asks the fence again once the ${scheme} connection is open, so a pause while connecting cannot let a decided write through`, async () => {
      // Open when the write is decided, closed by the time its new connection is up: what a leader stopped
      // between the two, and deposed meanwhile, finds on resume.
      let checks = 0;
      const fence = new LeaseWriteFence(new FakeClock());
      fence.openForever();
      const closingFence = {
        check(method: string, path: string) {
          checks += 1;
          fence.check(method, path);
          if (checks === 1) fence.close();
        },
      };
      const kubeConfig =
        scheme === 'http' ? env.kubeConfig : loadKubeConfig({ yaml: env.controlPlane.kubectlKubeconfig });
      const client = createKubeClient({ kubeConfig, qps: 1000, burst: 1000, writeFence: closingFence });
      const name = (what: string) => `${scheme}-${what}`;
      try {
        const write = await client.create(ConfigMaps, configMap(name('decided-before-pause'))).then(
          () => 'applied',
          (e: unknown) => e,
        );
        expect(write).to.be.instanceOf(LeaseLostWriteRefusedError);
        expect(checks).to.equal(2);
        const read = await env.client.get(ConfigMaps, { namespace: NS, name: name('decided-before-pause') }).then(
          () => 'found',
          (e: unknown) => (isNotFound(e) ? 'not found' : e),
        );
        expect(read).to.equal('not found');
        fence.openForever();
        await client.create(ConfigMaps, configMap(name('sent-on-open-fence')));
        await client.create(ConfigMaps, configMap(name('sent-on-reused-connection')));
        expect(checks, 'every write is checked twice, on a new connection and on a reused one').to.equal(6);
      } finally {
        client.close();
      }
    });
  }
});
