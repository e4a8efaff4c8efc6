import { expect } from 'chai';
import { Namespaces, Secrets } from '../../../lib/client/resources.js';
import { secretReaderFor, withSecretReader } from '../../../lib/cloud/secret-reader.js';
import type { Manager } from '../../../lib/runtime/manager.js';
import { eventually } from '../../../sim/kit/provider-test-bed.js';
import { startTestEnv, type TestEnv } from '../../../sim/kit/test-env.js';

describe('secretReaderFor (Secrets from the manager cache)', function () {
  this.timeout(20_000);
  let env: TestEnv;
  let mgr: Manager;
  const stop = new AbortController();
  let running: Promise<void>;
  const gets = () => env.controlPlane.requestCounts()['get secrets'] ?? 0;
  const b64 = (s: string) => Buffer.from(s).toString('base64');

  before(async () => {
    env = await startTestEnv();
    for (const name of ['machines', 'elsewhere']) await env.client.create(Namespaces, { metadata: { name } });
    await env.client.create(Secrets, { metadata: { name: 'creds', namespace: 'machines' }, data: { key: b64('v1') } });
    await env.client.create(Secrets, { metadata: { name: 'other', namespace: 'elsewhere' }, data: { key: b64('x') } });
    mgr = env.newManager({ namespace: 'machines' });
    secretReaderFor(mgr);
    running = mgr.start(stop.signal);
    await mgr.informer(Secrets).waitForSync();
  });
  after(async () => {
    stop.abort();
    await running;
    await env.stop();
  });

  it('answers repeated reads from the cache, without a GET to the API server', async () => {
    const reader = secretReaderFor(mgr);
    env.controlPlane.resetRequestCounts();
    for (let i = 0; i < 50; i++)
      expect((await reader.get({ namespace: 'machines', name: 'creds' })).data?.key).to.equal(b64('v1'));
    expect(gets()).to.equal(0);
  });

  it('reads a Secret created a moment ago with a live GET when the cache has not seen it yet', async () => {
    const reader = secretReaderFor(mgr);
    await env.client.create(Secrets, { metadata: { name: 'fresh', namespace: 'machines' }, data: { key: b64('new') } });
    expect((await reader.get({ namespace: 'machines', name: 'fresh' })).data?.key).to.equal(b64('new'));
  });

  it('goes live for a namespace outside the cache, and still reports NotFound for a missing Secret', async () => {
    const reader = secretReaderFor(mgr);
    env.controlPlane.resetRequestCounts();
    expect((await reader.get({ namespace: 'elsewhere', name: 'other' })).data?.key).to.equal(b64('x'));
    expect(gets()).to.equal(1);
    const err = await reader.get({ namespace: 'machines', name: 'absent' }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect((err as { code?: number } | undefined)?.code).to.equal(404);
  });

  it('sees a rotated Secret once the watch delivers it', async () => {
    const reader = secretReaderFor(mgr);
    const current = await env.client.get(Secrets, { namespace: 'machines', name: 'creds' });
    await env.client.update(Secrets, { ...current, data: { key: b64('v2') } });
    await eventually(
      'the rotated value',
      async () => (await reader.get({ namespace: 'machines', name: 'creds' })).data?.key === b64('v2'),
      { timeoutMs: 5_000, intervalMs: 10 },
    );
    await env.client.update(Secrets, {
      ...(await env.client.get(Secrets, { namespace: 'machines', name: 'creds' })),
      data: { key: b64('v1') },
    });
  });

  it('withSecretReader routes only Secret GETs through the reader', async () => {
    const client = withSecretReader(env.client, secretReaderFor(mgr));
    env.controlPlane.resetRequestCounts();
    await client.get(Secrets, { namespace: 'machines', name: 'creds' });
    await client.get(Namespaces, { name: 'machines' });
    expect(gets()).to.equal(0);
    expect(env.controlPlane.requestCounts()['get namespaces']).to.equal(1);
  });
});
