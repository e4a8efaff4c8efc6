// What the bench and chaos runs plant in their Secrets, so that a scan of logs, events and errors can look for
// it, and the keys the emulators know: the AWS access key, and a GCP service-account key made once per process
// (the provider signs its calls with it; the scan looks for its private key body and id).
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { DEFAULT_PROJECT, type ServiceAccountKeyInput } from '../../sim/gcp/index.js';

/** Values planted in the Secrets so that a scan of logs, events and errors can look for them. */
export const SECRET_VALUES = {
  accessKeyId: 'AKIABENCHSECRET7Q2Z',
  secretAccessKey: 'bench-secret-key-5c1e9a7f0d3b44e8a2',
  userData: 'bench-user-data-token-8f3a1c5e7b9d',
} as const;

/** The EC2 emulator's access key: the planted one. */
export const benchAccessKey = {
  accessKeyId: SECRET_VALUES.accessKeyId,
  secretAccessKey: SECRET_VALUES.secretAccessKey,
};

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
