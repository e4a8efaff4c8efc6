import { expect } from 'chai';
import type { Machine } from '../../../lib/apis/machine-types.js';
import { readUserData } from '../../../lib/cloud/user-data-secret.js';
import { Secrets } from '../../../lib/client/resources.js';
import {
  InvalidMachineConfigurationError,
  MissingSecretError,
  MissingSecretKeyError,
} from '../../../lib/apis/errors.js';
import { MemoryKubeClient } from '../machine/memory-kube.js';

const signal = new AbortController().signal;
const machine: Machine = {
  apiVersion: 'machine.openshift.io/v1beta1',
  kind: 'Machine',
  metadata: { namespace: 'ns', name: 'm' },
};

async function clientWith(secret: {
  data?: Record<string, string>;
  stringData?: Record<string, string>;
}): Promise<MemoryKubeClient> {
  const client = new MemoryKubeClient();
  await client.create(Secrets, { metadata: { namespace: 'ns', name: 'worker-user-data' }, ...secret });
  return client;
}

describe('readUserData', () => {
  it('returns the bytes under userData of the named Secret in the Machine namespace, from data or stringData', async () => {
    const ignition = '{"ignition":{"version":"3.2.0"}}';
    const fromData = await clientWith({ data: { userData: Buffer.from(ignition).toString('base64') } });
    expect((await readUserData(fromData, machine, 'worker-user-data', signal))?.toString('utf8')).to.equal(ignition);
    const fromStringData = await clientWith({ stringData: { userData: ignition } });
    expect((await readUserData(fromStringData, machine, 'worker-user-data', signal))?.toString('utf8')).to.equal(
      ignition,
    );
  });

  it('returns undefined without reading anything when the spec names no Secret', async () => {
    const client = new MemoryKubeClient();
    client.get = () => Promise.reject(new Error('must not read'));
    expect(await readUserData(client, machine, undefined, signal)).to.equal(undefined);
    expect(await readUserData(client, machine, '', signal)).to.equal(undefined);
  });

  it('turns a Secret that does not exist into a MissingSecretError for user data', async () => {
    const err = await readUserData(new MemoryKubeClient(), machine, 'worker-user-data', signal).catch(
      (e: unknown) => e,
    );
    expect(err).to.be.instanceOf(MissingSecretError);
    expect(err).to.include({ namespace: 'ns', secretName: 'worker-user-data', purpose: 'user data' });
  });

  it('reports a Secret without the key as a MissingSecretKeyError naming namespace, name and key (retried)', async () => {
    const client = await clientWith({ data: { other: 'eA==' } });
    const err = await readUserData(client, machine, 'worker-user-data', signal).catch((e: unknown) => e);
    expect(err).to.be.instanceOf(MissingSecretKeyError);
    expect(err).not.to.be.instanceOf(InvalidMachineConfigurationError);
    expect(err).to.include({
      namespace: 'ns',
      secretName: 'worker-user-data',
      key: 'userData',
      message: 'secret ns/worker-user-data missing userData key',
    });
  });

  it('reports a Secret without the key as an invalid spec at the given field when the provider says so', async () => {
    const client = await clientWith({ data: { other: 'eA==' } });
    const err = await readUserData(client, machine, 'worker-user-data', signal, {
      invalidSpecField: 'spec.providerSpec.value.userDataSecret',
    }).catch((e: unknown) => e);
    expect(err).to.be.instanceOf(InvalidMachineConfigurationError);
    expect(err).to.include({
      field: 'spec.providerSpec.value.userDataSecret',
      message: 'secret ns/worker-user-data does not have "userData" field set',
    });
    expect((err as Error).cause).to.be.instanceOf(MissingSecretKeyError);
  });

  it("fails user data over the cloud's limit (counted in the Secret's bytes) as InvalidConfiguration naming the Secret, the key and the limit", async () => {
    const limit = { maxBytes: 8, what: 'this cloud user data' };
    const atLimit = await clientWith({ stringData: { userData: '12345678' } });
    expect((await readUserData(atLimit, machine, 'worker-user-data', signal, { limit }))?.length).to.equal(8);
    const over = await clientWith({ stringData: { userData: 's3cr3t-s3cr3t' } });
    const err = await readUserData(over, machine, 'worker-user-data', signal, { limit }).catch((e: unknown) => e);
    expect(err).to.be.instanceOf(InvalidMachineConfigurationError);
    expect(err).to.include({
      field: 'spec.providerSpec.value.userDataSecret',
      message:
        'user data in Secret ns/worker-user-data (key "userData") is 13 bytes, over the limit of 8 bytes for this cloud user data',
    });
    expect((err as Error).message).not.to.include('s3cr3t');
  });

  it('never puts the contents into an error', async () => {
    const client = await clientWith({ data: { notUserData: Buffer.from('s3cr3t').toString('base64') } });
    const err = (await readUserData(client, machine, 'worker-user-data', signal).catch((e: unknown) => e)) as Error;
    expect(err.message).not.to.include('s3cr3t');
    expect(err.message).not.to.include(Buffer.from('s3cr3t').toString('base64'));
  });
});
