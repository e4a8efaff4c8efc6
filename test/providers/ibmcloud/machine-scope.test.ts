import { expect } from 'chai';
import { InvalidMachineConfigurationError, type KubeClient } from '../../../lib/index.js';
import { secretsReferencedBy, userDataFor } from '../../../providers/ibmcloud/machine-scope.js';
import type { IBMCloudMachineProviderSpec } from '../../../providers/ibmcloud/provider-spec.js';
import { machine, ibmSpec } from './fixtures.js';

function clientWithSecret(data: Record<string, string>): KubeClient {
  return {
    get: () => Promise.resolve({ metadata: { namespace: 'ns', name: 'worker-user-data' }, data }),
  } as unknown as KubeClient;
}
const signal = new AbortController().signal;
const b64 = (s: string) => Buffer.from(s).toString('base64');

describe('the Secrets an IBM Cloud Machine names (what the machine controller watches for it)', () => {
  it('are its credentialsSecret and userDataSecret', () => {
    const m = machine(
      'm',
      ibmSpec({ credentialsSecret: { name: 'team-credentials' }, userDataSecret: { name: 'team-user-data' } }),
    );
    expect(secretsReferencedBy(m)).to.deep.equal(['team-credentials', 'team-user-data']);
  });

  it('names only what the spec names: IBM Cloud has no default Secrets', () => {
    const { credentialsSecret: _c, userDataSecret: _u, ...bare } = ibmSpec();
    expect(secretsReferencedBy(machine('m', bare))).to.deep.equal([]);
  });
});

describe('the user data of an IBM Cloud Machine', () => {
  const spec = { userDataSecret: { name: 'worker-user-data' } } as IBMCloudMachineProviderSpec;

  it('is the Secret\'s userData key as text, "" when the spec names no Secret', async () => {
    expect(await userDataFor(machine('m'), spec, clientWithSecret({ userData: b64('#!ignition') }), signal)).to.equal(
      '#!ignition',
    );
    expect(await userDataFor(machine('m'), {} as IBMCloudMachineProviderSpec, clientWithSecret({}), signal)).to.equal(
      '',
    );
  });

  it('makes the spec invalid at userDataSecret when the Secret lacks the key', async () => {
    const err = await userDataFor(machine('m'), spec, clientWithSecret({ other: b64('x') }), signal).catch(
      (e: unknown) => e,
    );
    expect(err).to.be.instanceOf(InvalidMachineConfigurationError);
    expect(err).to.include({ field: 'spec.providerSpec.value.userDataSecret' });
    expect((err as Error).message).to.match(/^secret .*\/worker-user-data does not have "userData" field set$/);
  });
});
