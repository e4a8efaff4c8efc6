// The GCP provider binary's wiring, in-process, against the GCE emulator: what a missing credentials
// Secret does to a new Machine and to a deleting one, and how fast they recover once it is there.
import type { Machine, Secret } from '../../../lib/index.js';
import { WAIT_FOR_SECRET_EVENTS, describeMissingCredentialsSecret, machineFor } from '../../../sim/kit/index.js';
import { CLUSTER_ID, NAMESPACE, defaultSecrets, gcpSpec } from './fixtures.js';
import { startGcpScenarioBed } from './scenario-bed.js';

describe('machine-api-provider-gcp on the local control plane and the GCE emulator', function () {
  this.timeout(120_000);
  const credentials = defaultSecrets().find((s) => s.metadata.name === 'gcp-cloud-credentials')!;

  describeMissingCredentialsSecret('gcp', async () => {
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
      cleanup,
    };
  });
});
