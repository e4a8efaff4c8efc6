// The AWS provider binary's wiring, in-process, against the EC2 emulator: what a missing credentials
// Secret does to a new Machine and to a deleting one, and how fast they recover once it is there.
import type { Machine, Secret } from '../../../lib/index.js';
import { WAIT_FOR_SECRET_EVENTS, describeMissingCredentialsSecret, machineFor } from '../../../sim/kit/index.js';
import { CLUSTER_ID, NAMESPACE, awsSpec, defaultSecrets } from './fixtures.js';
import { startAwsScenarioBed } from './scenario-bed.js';

describe('machine-api-provider-aws on the local control plane and the EC2 emulator', function () {
  this.timeout(120_000);
  const credentials = defaultSecrets().find((s) => s.metadata.name === 'aws-cloud-credentials')!;

  describeMissingCredentialsSecret('aws', async () => {
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
      cleanup,
    };
  });
});
