// AWS STS mode as a short-lived-credential cluster runs it: the credentials Secret is a shared-config profile
// with role_arn and web_identity_token_file (the bound service-account token); the SDK's own web identity
// provider exchanges the token at STS (the emulator's AssumeRoleWithWebIdentity) and EC2 accepts the session
// credentials until they expire.
import { expect } from 'chai';
import { DescribeVpcsCommand, EC2Client } from '@aws-sdk/client-ec2';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FakeClock, RealClock, type Secret } from '../../../lib/index.js';
import { startEc2Emulator, type Ec2Emulator } from '../../../sim/aws/index.js';
import {
  AwsClientFactory,
  createAwsActuator,
  credentialsFromSecret,
  CredentialsSecretError,
} from '../../../providers/aws/index.js';
import { defaultSecrets, machine, recordingContext, secretsClient } from './fixtures.js';

const ROLE = 'arn:aws:iam::123456789012:role/openshift-machine-api-aws-cloud-credentials';
const STS_CALL = 'sts:AssumeRoleWithWebIdentity';

function profileSecret(lines: string[]): Secret {
  return {
    metadata: { namespace: 'openshift-machine-api', name: 'aws-cloud-credentials' },
    stringData: { credentials: ['[default]', ...lines].join('\n') },
  };
}

describe('AWS web identity (STS) credentials', () => {
  let dir: string;
  let tokenFile: string;
  let emu: Ec2Emulator | undefined;
  let factory: AwsClientFactory | undefined;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'sts-'));
    tokenFile = join(dir, 'token');
    writeFileSync(tokenFile, 'eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJzeXN0ZW06c2VydmljZWFjY291bnQifQ.c2ln');
  });
  afterEach(async () => {
    factory?.destroy();
    factory = undefined;
    await emu?.stop();
    emu = undefined;
    rmSync(dir, { recursive: true, force: true });
  });

  describe('the credentials Secret', () => {
    it('reads role_arn and web_identity_token_file, as the cloud credential operator writes them in STS mode', () => {
      expect(
        credentialsFromSecret(profileSecret([`role_arn = ${ROLE}`, `web_identity_token_file = ${tokenFile}`])),
      ).to.deep.equal({ roleArn: ROLE, webIdentityTokenFile: tokenFile });
    });

    it('names the half that is missing', () => {
      expect(() => credentialsFromSecret(profileSecret([`role_arn = ${ROLE}`]))).to.throw(
        CredentialsSecretError,
        /web_identity_token_file is missing/,
      );
      expect(() => credentialsFromSecret(profileSecret([`web_identity_token_file = ${tokenFile}`]))).to.throw(
        CredentialsSecretError,
        /role_arn is missing/,
      );
    });
  });

  describe('the EC2 emulator’s STS', () => {
    it('issues session credentials that EC2 accepts until they expire', async () => {
      const clock = new FakeClock(Date.now());
      emu = await startEc2Emulator({ clock, accessKeys: [] });
      factory = new AwsClientFactory({ clock: new RealClock(), endpoint: emu.endpoint, maxAttempts: 1 });
      await factory
        .get('us-east-1', { roleArn: ROLE, webIdentityTokenFile: tokenFile }, 'ns/creds')
        .ec2.describeVpcs([]);
      const [session] = emu.sessions();
      expect(session).to.include({ roleArn: ROLE, sessionName: 'machine-api-provider-aws' });
      const ec2 = new EC2Client({
        region: 'us-east-1',
        endpoint: emu.endpoint,
        maxAttempts: 1,
        credentials: {
          accessKeyId: session!.accessKeyId,
          secretAccessKey: session!.secretAccessKey,
          sessionToken: session!.sessionToken,
        },
      });
      try {
        await ec2.send(new DescribeVpcsCommand({}));
        clock.step(3600_000);
        const err = await ec2.send(new DescribeVpcsCommand({})).then(
          () => undefined,
          (e: unknown) => e,
        );
        expect(err).to.have.property('name', 'RequestExpired');
        const forged = new EC2Client({
          region: 'us-east-1',
          endpoint: emu.endpoint,
          maxAttempts: 1,
          credentials: { accessKeyId: session!.accessKeyId, secretAccessKey: 'x', sessionToken: 'other' },
        });
        const refused = await forged.send(new DescribeVpcsCommand({})).then(
          () => undefined,
          (e: unknown) => e,
        );
        expect(refused).to.have.property('name', 'AuthFailure');
        forged.destroy();
      } finally {
        ec2.destroy();
      }
    });
  });

  describe('the client factory', () => {
    it('calls EC2 with the session credentials STS issued for the web identity token, reusing them while they are fresh', async () => {
      emu = await startEc2Emulator({ accessKeys: [] });
      factory = new AwsClientFactory({ clock: new RealClock(), endpoint: emu.endpoint, maxAttempts: 1 });
      const creds = credentialsFromSecret(
        profileSecret([`role_arn = ${ROLE}`, `web_identity_token_file = ${tokenFile}`]),
      );
      const { ec2 } = factory.get('us-east-1', creds, 'ns/creds');
      await ec2.describeVpcs([]);
      await ec2.describeSubnets({});
      expect(emu.knobs.counts(STS_CALL).total).to.equal(1);
      expect(emu.knobs.counts('DescribeVpcs').total).to.equal(1);
    });

    it('renews credentials that are about to expire before using them (the SDK renews within five minutes of expiry)', async () => {
      emu = await startEc2Emulator({ accessKeys: [], stsSessionSeconds: 240 });
      factory = new AwsClientFactory({
        clock: new RealClock(),
        endpoint: emu.endpoint,
        maxAttempts: 1,
        lookupCacheTtlMs: 0,
      });
      const { ec2 } = factory.get('us-east-1', { roleArn: ROLE, webIdentityTokenFile: tokenFile }, 'ns/creds');
      await ec2.describeVpcs([]);
      await ec2.describeVpcs([]);
      // Every use of near-expiry credentials renews them first (the SDK may check more than once per call).
      expect(emu.knobs.counts(STS_CALL).total).to.be.at.least(2);
      expect(emu.knobs.counts('DescribeVpcs').total).to.equal(2);
    });

    it('fails with STS’s own error when the token file holds no JWT', async () => {
      emu = await startEc2Emulator({ accessKeys: [] });
      writeFileSync(tokenFile, 'not-a-jwt');
      factory = new AwsClientFactory({ clock: new RealClock(), endpoint: emu.endpoint, maxAttempts: 1 });
      const err = await factory
        .get('us-east-1', { roleArn: ROLE, webIdentityTokenFile: tokenFile }, 'ns/creds')
        .ec2.describeVpcs([])
        .then(
          () => undefined,
          (e: unknown) => e,
        );
      expect(err).to.have.property('name', 'InvalidIdentityTokenException');
      expect(emu.knobs.counts('DescribeVpcs').total).to.equal(0);
    });
  });

  describe('through the actuator', () => {
    it('creates, sees and deletes a Machine’s instance with credentials from the STS profile Secret only', async () => {
      emu = await startEc2Emulator({
        accessKeys: [],
        timings: { bootMs: 30, terminateMs: 30, stopMs: 30 },
      });
      const secrets = defaultSecrets().map((s) =>
        s.metadata.name === 'aws-cloud-credentials'
          ? { ...profileSecret([`role_arn = ${ROLE}`, `web_identity_token_file = ${tokenFile}`]), metadata: s.metadata }
          : s,
      );
      const actuator = createAwsActuator({
        client: secretsClient(secrets),
        clock: new RealClock(),
        endpoint: emu.endpoint,
        retryDelayMs: () => 1,
        batchWindowMs: 2,
      });
      try {
        const m = machine('sts-worker-1');
        await actuator.create(m, recordingContext());
        expect(emu.instances()).to.have.length(1);
        expect(await actuator.exists(m, recordingContext())).to.equal(true);
        await actuator.delete(m, recordingContext());
        expect(emu.knobs.counts(STS_CALL).total).to.equal(1);
        expect(emu.sessions()[0]?.roleArn).to.equal(ROLE);
      } finally {
        actuator.close();
      }
    });
  });
});
