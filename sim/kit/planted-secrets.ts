// What the bench and chaos runs plant in their Secrets, so that a scan of logs, events and errors can look for
// it, and the AWS access key the EC2 emulator knows (the GCP service-account key is sim/gcp/bench.ts's).
import type { Secret } from '../../lib/index.js';

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

/** The worker user-data Secret every cloud's MachineSets name, carrying the planted token. */
export function userDataSecret(namespace: string): Secret {
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: 'worker-user-data', namespace },
    type: 'Opaque',
    stringData: {
      userData: `{"ignition":{"version":"3.2.0"},"token":"${SECRET_VALUES.userData}"}`,
      disableTemplating: 'true',
    },
  };
}
