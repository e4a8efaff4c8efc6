// Secret reads are shared for a few seconds across reconciles; other reads and failures are not kept.
import { expect } from 'chai';
import { FakeClock, Machines, Secrets, type KubeClient } from '../../../lib/index.js';
import { withSecretCache } from '../../../providers/aws/secret-cache.js';

function countingClient(): KubeClient & { gets: string[]; failNext: boolean } {
  const c = {
    gets: [] as string[],
    failNext: false,
    get(resource: { plural: string }, key: { name: string }) {
      c.gets.push(`${resource.plural}/${key.name}`);
      if (c.failNext) {
        c.failNext = false;
        return Promise.reject(new Error('unavailable'));
      }
      return Promise.resolve({ metadata: { name: key.name } });
    },
  };
  return c as unknown as KubeClient & { gets: string[]; failNext: boolean };
}

describe('withSecretCache', () => {
  it('reads a Secret once per TTL, however many reconciles ask', async () => {
    const clock = new FakeClock();
    const inner = countingClient();
    const client = withSecretCache(inner, clock, 10_000);
    await Promise.all([
      client.get(Secrets, { namespace: 'ns', name: 'creds' }),
      client.get(Secrets, { namespace: 'ns', name: 'creds' }),
    ]);
    await client.get(Secrets, { namespace: 'ns', name: 'creds' });
    expect(inner.gets).to.deep.equal(['secrets/creds']);
    clock.step(10_001);
    await client.get(Secrets, { namespace: 'ns', name: 'creds' });
    expect(inner.gets).to.have.length(2);
  });

  it('keeps neither other resources nor failures', async () => {
    const inner = countingClient();
    const client = withSecretCache(inner, new FakeClock(), 10_000);
    await client.get(Machines, { namespace: 'ns', name: 'm' });
    await client.get(Machines, { namespace: 'ns', name: 'm' });
    inner.failNext = true;
    await client.get(Secrets, { namespace: 'ns', name: 's' }).then(
      () => expect.fail('should reject'),
      () => undefined,
    );
    await client.get(Secrets, { namespace: 'ns', name: 's' });
    expect(inner.gets).to.deep.equal(['machines/m', 'machines/m', 'secrets/s', 'secrets/s']);
  });

  it('reads a Secret whose credentials the cloud refused afresh for six lifetimes, so its fix is seen at once', async () => {
    const clock = new FakeClock();
    const inner = countingClient();
    const client = withSecretCache(inner, clock, 10_000);
    const key = { namespace: 'ns', name: 'creds' };
    await client.get(Secrets, key);
    client.distrust('ns/creds');
    await client.get(Secrets, key);
    await client.get(Secrets, key);
    expect(inner.gets, 'every read goes to the API while distrusted').to.have.length(3);
    await client.get(Secrets, { namespace: 'ns', name: 'other' });
    await client.get(Secrets, { namespace: 'ns', name: 'other' });
    expect(inner.gets, 'other Secrets stay cached').to.have.length(4);
    clock.step(60_001);
    await client.get(Secrets, key);
    await client.get(Secrets, key);
    expect(inner.gets, 'cached again afterwards').to.have.length(5);
  });
});
