import { expect } from 'chai';
import { InvalidMachineConfigurationError, type KubeClient } from '../../../lib/index.js';
import { secretsReferencedBy, userDataFor } from '../../../providers/gcp/machine-scope.js';
import type { GCPMachineProviderSpec } from '../../../providers/gcp/provider-spec.js';
import { machine, gcpSpec } from './fixtures.js';

function clientWithSecret(data: Record<string, string>): KubeClient {
  return {
    get: () => Promise.resolve({ metadata: { namespace: 'ns', name: 'worker-user-data' }, data }),
  } as unknown as KubeClient;
}
const signal = new AbortController().signal;
const b64 = (s: string) => Buffer.from(s).toString('base64');

describe('the Secrets a GCP Machine names (what the machine controller watches for it)', () => {
  it('are its credentialsSecret and userDataSecret', () => {
    const m = machine(
      'm',
      gcpSpec({ credentialsSecret: { name: 'team-credentials' }, userDataSecret: { name: 'team-user-data' } }),
    );
    expect(secretsReferencedBy(m)).to.deep.equal(['team-credentials', 'team-user-data']);
  });

  it('applies the defaults the webhook would: gcp-cloud-credentials and worker-user-data when the spec names none', () => {
    const { credentialsSecret: _c, userDataSecret: _u, ...bare } = gcpSpec();
    expect(secretsReferencedBy(machine('m', bare))).to.deep.equal(['gcp-cloud-credentials', 'worker-user-data']);
  });
});

describe('the user data of a GCP Machine', () => {
  const spec = { userDataSecret: { name: 'worker-user-data' } } as GCPMachineProviderSpec;

  it('is the Secret\'s userData key as text, "" when the spec names no Secret', async () => {
    expect(await userDataFor(machine('m'), spec, clientWithSecret({ userData: b64('#!ignition') }), signal)).to.equal(
      '#!ignition',
    );
    expect(await userDataFor(machine('m'), {} as GCPMachineProviderSpec, clientWithSecret({}), signal)).to.equal('');
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
