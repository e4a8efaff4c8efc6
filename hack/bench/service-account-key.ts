// The GCP service-account key of a bench or chaos process: made once per process, known to the GCE emulator
// and held by the credentials Secret, so the provider signs its calls with it and the secret scan can look for
// its private key body and id.
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { DEFAULT_PROJECT, type ServiceAccountKeyInput } from '../../sim/gcp/index.js';

let benchKey: (ServiceAccountKeyInput & Record<string, string>) | undefined;

/** The service-account key of this bench process (made once): the GCE emulator knows it, the Secret holds it. */
export function benchServiceAccountKey(): ServiceAccountKeyInput & Record<string, string> {
  benchKey ??= {
    type: 'service_account',
    project_id: DEFAULT_PROJECT,
    private_key_id: randomBytes(20).toString('hex'),
    private_key: generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({
      type: 'pkcs8',
      format: 'pem',
    }) as string,
    client_email: `machine-api@${DEFAULT_PROJECT}.iam.gserviceaccount.com`,
    client_id: '100000000000000000001',
    auth_uri: 'https://accounts.google.com/o/oauth2/auth',
    token_uri: 'https://oauth2.googleapis.com/token',
  };
  return benchKey;
}
