// The AWS provider binary's wiring, in-process, against the EC2 emulator: what a missing credentials
// Secret, or one whose key EC2 refuses, does to a new Machine and to a deleting one, and how fast they recover
// once it is fixed.
import type { Machine, Secret } from '../../../lib/index.js';
import {
  WAIT_FOR_SECRET_EVENTS,
  describeMissingCredentialsSecret,
  describeRefusedCredentialsSecret,
  machineFor,
} from '../../../sim/kit/index.js';
import { CLUSTER_ID, NAMESPACE, awsSpec, defaultSecrets } from './fixtures.js';
import { startAwsScenarioBed } from './scenario-bed.js';

describe('machine-api-provider-aws on the local control plane and the EC2 emulator', function () {
  this.timeout(120_000);
  const credentials = defaultSecrets().find((s) => s.metadata.name === 'aws-cloud-credentials')!;

  const setup = async () => {
    const { bed, liveInstances, cleanup } = await startAwsScenarioBed(WAIT_FOR_SECRET_EVENTS);
    return {
      bed,
      namespace: NAMESPACE,
      machineNaming: (name: string, secret: string): Machine =>
        machineFor({
          name,
          namespace: NAMESPACE,
          clusterId: CLUSTER_ID,
          spec: awsSpec({ credentialsSecret: { name: secret } }),
        }),
      credentialsSecret: (name: string): Secret => ({
        metadata: { namespace: NAMESPACE, name },
        data: { ...credentials.data },
      }),
      liveInstances,
      refusedCredentialsSecret: (name: string): Secret => ({
        metadata: { namespace: NAMESPACE, name },
        stringData: { aws_access_key_id: 'AKIAREVOKEDKEY00000', aws_secret_access_key: 'revoked-secret' },
      }),
      refusalCode: 'AuthFailure',
      cleanup,
    };
  };
  describeMissingCredentialsSecret('aws', setup);
  describeRefusedCredentialsSecret('aws', setup);
});
