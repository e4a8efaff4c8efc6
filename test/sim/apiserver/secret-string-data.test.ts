import { expect } from 'chai';
import type { Secret } from '../../../lib/apis/core.js';
import { Namespaces, Secrets } from '../../../lib/client/resources.js';
import { startTestEnv, type TestEnv } from '../../../sim/kit/test-env.js';

describe('envtest control plane: Secret stringData', () => {
  let env: TestEnv;
  const namespace = 'secret-string-data';
  const b64 = (s: string) => Buffer.from(s, 'utf8').toString('base64');
  const stringDataOf = (s: Secret) => s.stringData;

  before(async () => {
    env = await startTestEnv();
    await env.client.create(Namespaces, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } });
  });
  after(async () => env.stop());

  it('stores stringData on create as base64 data, stringData winning over data for the same key, and never returns stringData', async () => {
    const body = {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'created', namespace },
      data: { keep: b64('k'), userData: b64('old') },
      stringData: { userData: '#cloud-config\n', other: 'ü' },
    } as Secret;
    const created = await env.client.create(Secrets, body);
    expect(created.data).to.deep.equal({ keep: b64('k'), userData: b64('#cloud-config\n'), other: b64('ü') });
    expect(stringDataOf(created)).to.equal(undefined);
    const got = await env.client.get(Secrets, { namespace, name: 'created' });
    expect(got.data).to.deep.equal(created.data);
    expect(stringDataOf(got)).to.equal(undefined);
  });

  it('folds stringData into data on update', async () => {
    const created = await env.client.create(Secrets, {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'updated', namespace },
      data: { a: b64('1') },
    });
    const updated = await env.client.update(Secrets, { ...created, stringData: { b: 'two' } });
    expect(updated.data).to.deep.equal({ a: b64('1'), b: b64('two') });
    expect(stringDataOf(await env.client.get(Secrets, { namespace, name: 'updated' }))).to.equal(undefined);
  });

  it('folds stringData into data on a merge patch', async () => {
    await env.client.create(Secrets, {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'patched', namespace },
      data: { a: b64('1') },
    });
    const patched = await env.client.patch(
      Secrets,
      { namespace, name: 'patched' },
      { type: 'merge', body: { stringData: { a: 'replaced' } } },
    );
    expect(patched.data).to.deep.equal({ a: b64('replaced') });
    expect(stringDataOf(await env.client.get(Secrets, { namespace, name: 'patched' }))).to.equal(undefined);
  });

  it("rejects a stringData value that is not a string with kube's decoding error, naming the Go field", async () => {
    const err = await env.client
      .create(Secrets, {
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { name: 'bad', namespace },
        stringData: { n: 5 },
      } as unknown as Secret)
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(String((err as Error | undefined)?.message)).to.contain(
      'Secret in version "v1" cannot be handled as a Secret: json: cannot unmarshal number into Go struct field Secret.stringData of type string',
    );
  });
});
