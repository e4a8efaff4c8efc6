import { expect } from 'chai';
import { readReferencedSecret } from '../../../lib/cloud/referenced-secret.js';
import { Secrets } from '../../../lib/client/resources.js';
import { MissingSecretError } from '../../../lib/apis/errors.js';
import { MemoryKubeClient, serverError } from '../machine/memory-kube.js';

const signal = new AbortController().signal;

describe('readReferencedSecret', () => {
  it('returns the Secret', async () => {
    const client = new MemoryKubeClient();
    await client.create(Secrets, { metadata: { namespace: 'ns', name: 'creds' }, data: { k: 'dg==' } });
    expect(
      (await readReferencedSecret(client, { namespace: 'ns', name: 'creds' }, 'aws credentials', signal)).data,
    ).to.deep.equal({ k: 'dg==' });
  });

  it('turns NotFound into a MissingSecretError naming the Secret and what it holds', async () => {
    const err = await readReferencedSecret(
      new MemoryKubeClient(),
      { namespace: 'ns', name: 'creds' },
      'aws credentials',
      signal,
    ).catch((e: unknown) => e);
    expect(err).to.be.instanceOf(MissingSecretError);
    expect(err).to.include({
      namespace: 'ns',
      secretName: 'creds',
      purpose: 'aws credentials',
      message: 'aws credentials secret ns/creds not found',
    });
  });

  it('passes any other error through unchanged', async () => {
    const client = new MemoryKubeClient();
    const boom = serverError();
    client.get = () => Promise.reject(boom);
    expect(
      await readReferencedSecret(client, { namespace: 'ns', name: 'creds' }, 'user data', signal).catch(
        (e: unknown) => e,
      ),
    ).to.equal(boom);
  });
});
