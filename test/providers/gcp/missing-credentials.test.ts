// The GCP provider binary's wiring, in-process, against the GCE emulator: what a missing credentials
// Secret, or one whose key GCE does not know, does to a new Machine and to a deleting one, and how fast they
// recover once it is fixed.
import { generateKeyPairSync } from 'node:crypto';
import type { Machine, Secret } from '../../../lib/index.js';
import {
  WAIT_FOR_SECRET_EVENTS,
  describeMissingCredentialsSecret,
  describeRefusedCredentialsSecret,
  machineFor,
} from '../../../sim/kit/index.js';
import { CLUSTER_ID, FAKE_SERVICE_ACCOUNT, NAMESPACE, defaultSecrets, gcpSpec } from './fixtures.js';
import { startGcpScenarioBed } from './scenario-bed.js';

describe('machine-api-provider-gcp on the local control plane and the GCE emulator', function () {
  this.timeout(120_000);
  const credentials = defaultSecrets().find((s) => s.metadata.name === 'gcp-cloud-credentials')!;
  // A key of the same account that the project does not have (deleted, or never created).
  const unknownKey = {
    ...FAKE_SERVICE_ACCOUNT,
    private_key_id: 'ffffffffffffffffffffffffffffffffffffffff',
    private_key: generateKeyPairSync('rsa', { modulusLength: 2048 })
      .privateKey.export({ type: 'pkcs8', format: 'pem' })
      .toString(),
  };

  const setup = async () => {
    const { bed, liveInstances, cleanup } = await startGcpScenarioBed(WAIT_FOR_SECRET_EVENTS);
    return {
      bed,
      namespace: NAMESPACE,
      machineNaming: (name: string, secret: string): Machine =>
        machineFor({
          name,
          namespace: NAMESPACE,
          clusterId: CLUSTER_ID,
          spec: gcpSpec({ credentialsSecret: { name: secret } }),
        }),
      credentialsSecret: (name: string): Secret => ({
        metadata: { namespace: NAMESPACE, name },
        data: { ...credentials.data },
      }),
      liveInstances,
      refusedCredentialsSecret: (name: string): Secret => ({
        metadata: { namespace: NAMESPACE, name },
        stringData: { 'service_account.json': JSON.stringify(unknownKey) },
      }),
      refusalCode: 'Request had invalid authentication credentials',
      cleanup,
    };
  };
  describeMissingCredentialsSecret('gcp', setup);
  describeRefusedCredentialsSecret('gcp', setup);
});
