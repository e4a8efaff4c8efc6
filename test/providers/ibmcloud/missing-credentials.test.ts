// The IBM Cloud provider binary's wiring, in-process, against the VPC emulator: what a missing credentials
// Secret, or one whose API key IAM does not know, does to a new Machine and to a deleting one, and how fast
// they recover once it is fixed.
import type { Machine, Secret } from '../../../lib/index.js';
import {
  WAIT_FOR_SECRET_EVENTS,
  describeMissingCredentialsSecret,
  describeRefusedCredentialsSecret,
  machineFor,
} from '../../../sim/kit/index.js';
import { CLUSTER_ID, CREDENTIALS_SECRET, NAMESPACE, defaultSecrets, ibmSpec } from './fixtures.js';
import { startIbmScenarioBed } from './scenario-bed.js';

describe('machine-api-provider-ibmcloud on the local control plane and the VPC emulator', function () {
  this.timeout(120_000);

  const setup = async () => {
    const { emu, bed, liveInstances, cleanup } = await startIbmScenarioBed(WAIT_FOR_SECRET_EVENTS);
    const credentials = defaultSecrets(emu.apiKey).find((s) => s.metadata.name === CREDENTIALS_SECRET)!;
    return {
      bed,
      namespace: NAMESPACE,
      machineNaming: (name: string, secret: string): Machine =>
        machineFor({
          name,
          namespace: NAMESPACE,
          clusterId: CLUSTER_ID,
          spec: ibmSpec({ credentialsSecret: { name: secret } }),
        }),
      credentialsSecret: (name: string): Secret => ({
        metadata: { namespace: NAMESPACE, name },
        data: { ...credentials.data },
      }),
      liveInstances,
      refusedCredentialsSecret: (name: string): Secret => ({
        metadata: { namespace: NAMESPACE, name },
        stringData: { ibmcloud_api_key: 'deleted-apikey-not-known-to-iam' },
      }),
      refusalCode: 'BXNIM0415E',
      cleanup,
    };
  };
  describeMissingCredentialsSecret('ibmcloud', setup);
  describeRefusedCredentialsSecret('ibmcloud', setup);
});
