import { expect } from 'chai';
import { InvalidMachineConfigurationError, MissingSecretKeyError, type KubeClient } from '../../../lib/index.js';
import { secretsReferencedBy, userDataFor } from '../../../providers/aws/machine-scope.js';
import type { AWSMachineProviderConfig } from '../../../providers/aws/provider-spec.js';
import { machine, awsSpec } from './fixtures.js';

function clientWithSecret(data: Record<string, string>): KubeClient {
  return {
    get: () => Promise.resolve({ metadata: { namespace: 'ns', name: 'worker-user-data' }, data }),
  } as unknown as KubeClient;
}
const signal = new AbortController().signal;
const b64 = (s: string) => Buffer.from(s).toString('base64');

describe('the Secrets an AWS Machine names (what the machine controller watches for it)', () => {
  it('are its credentialsSecret and userDataSecret', () => {
    const m = machine(
      'm',
      awsSpec({ credentialsSecret: { name: 'team-credentials' }, userDataSecret: { name: 'team-user-data' } }),
    );
    expect(secretsReferencedBy(m)).to.deep.equal(['team-credentials', 'team-user-data']);
  });

  it('applies the defaults the webhook would: aws-cloud-credentials and worker-user-data when the spec names none', () => {
    const { credentialsSecret: _c, userDataSecret: _u, ...bare } = awsSpec();
    expect(secretsReferencedBy(machine('m', bare))).to.deep.equal(['aws-cloud-credentials', 'worker-user-data']);
  });
});

describe('the user data of an AWS Machine', () => {
  const config = { userDataSecret: { name: 'worker-user-data' } } as AWSMachineProviderConfig;

  it("is the bytes of the Secret's userData key, none when the spec names no Secret", async () => {
    expect(
      Buffer.from(
        (await userDataFor(machine('m'), config, clientWithSecret({ userData: b64('#!ignition') }), signal))!,
      ).toString('utf8'),
    ).to.equal('#!ignition');
    expect(await userDataFor(machine('m'), {} as AWSMachineProviderConfig, clientWithSecret({}), signal)).to.equal(
      undefined,
    );
  });

  it('is retried, not a Failed Machine, when the Secret lacks the key (as the reference does)', async () => {
    const err = await userDataFor(machine('m'), config, clientWithSecret({ other: b64('x') }), signal).catch(
      (e: unknown) => e,
    );
    expect(err).to.be.instanceOf(MissingSecretKeyError);
    expect(err).not.to.be.instanceOf(InvalidMachineConfigurationError);
    expect((err as Error).message).to.match(/^secret .*\/worker-user-data missing userData key$/);
  });
});
