import { expect } from 'chai';
import type { Secret } from '../../../lib/index.js';
import {
  CredentialsSecretError,
  credentialsFingerprint,
  credentialsFromSecret,
  parseIni,
} from '../../../providers/aws/credentials.js';

const b64 = (s: string) => Buffer.from(s).toString('base64');
const secret = (data: Record<string, string>): Secret => ({
  metadata: { namespace: 'ns', name: 'aws-creds' },
  data: Object.fromEntries(Object.entries(data).map(([k, v]) => [k, b64(v)])),
});

describe('AWS credentials from a Secret', () => {
  it('reads aws_access_key_id and aws_secret_access_key', () => {
    expect(
      credentialsFromSecret(secret({ aws_access_key_id: 'AKID', aws_secret_access_key: 'SECRET\n' })),
    ).to.deep.equal({ accessKeyId: 'AKID', secretAccessKey: 'SECRET' });
  });

  it('prefers a shared-credentials file under `credentials`, default profile first, with a session token', () => {
    const ini =
      '# comment\n[other]\naws_access_key_id = O\naws_secret_access_key = O\n[default]\naws_access_key_id = AKID\naws_secret_access_key = S\naws_session_token = T\n';
    expect(
      credentialsFromSecret(secret({ credentials: ini, aws_access_key_id: 'X', aws_secret_access_key: 'Y' })),
    ).to.deep.equal({
      accessKeyId: 'AKID',
      secretAccessKey: 'S',
      sessionToken: 'T',
    });
    expect(parseIni('[profile dev]\nregion=us-east-1').get('dev')?.get('region')).to.equal('us-east-1');
  });

  it('rejects a Secret without usable keys, naming the Secret but never a value', () => {
    expect(() => credentialsFromSecret(secret({ aws_access_key_id: 'AKIDSECRETVALUE' }))).to.throw(
      CredentialsSecretError,
      'ns/aws-creds',
    );
    try {
      credentialsFromSecret(secret({ aws_access_key_id: 'AKIDSECRETVALUE' }));
    } catch (err) {
      expect((err as Error).message).to.not.contain('AKIDSECRETVALUE');
    }
    expect(() => credentialsFromSecret(secret({ credentials: '[default]\nregion = us-east-1' }))).to.throw(
      CredentialsSecretError,
      'no aws_access_key_id',
    );
  });

  it('fingerprints credentials so a changed Secret yields a different client', () => {
    const a = credentialsFingerprint({ accessKeyId: 'A', secretAccessKey: 'S' });
    expect(a).to.equal(credentialsFingerprint({ accessKeyId: 'A', secretAccessKey: 'S' }));
    expect(a).to.not.equal(credentialsFingerprint({ accessKeyId: 'A', secretAccessKey: 'S2' }));
    expect(a).to.not.contain('S');
  });
});
