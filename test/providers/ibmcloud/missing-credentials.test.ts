// The IBM Cloud provider binary's wiring, in-process, against the VPC emulator: what a missing credentials
// Secret, or one whose API key IAM does not know, does to a new Machine and to a deleting one, and how fast
// they recover once it is fixed.
import type { Machine, Secret } from '../../../lib/index.js';
import {
  WAIT_FOR_SECRET_EVENTS,
  describeMissingCredentialsSecret,
  describeRefusedCredentialsSecret,
  machineFor,
  startProviderTestBed,
} from '../../../lib/testing/index.js';
import { wireIbmCloudProvider } from '../../../cmd/machine-api-provider-ibmcloud.js';
import { startIbmVpcEmulator } from '../../../providers/ibmcloud/emulator/index.js';
import { CLUSTER_ID, CREDENTIALS_SECRET, NAMESPACE, defaultSecrets, ibmSpec } from './fixtures.js';

describe('machine-api-provider-ibmcloud on the local control plane and the VPC emulator', function () {
  this.timeout(120_000);

  const setup = async () => {
    const emu = await startIbmVpcEmulator({
      clusterId: CLUSTER_ID,
      timings: { provisionMs: 20, bootMs: 50, deleteMs: 50, stopMs: 50 },
    });
    const credentials = defaultSecrets(emu.apiKey).find((s) => s.metadata.name === CREDENTIALS_SECRET)!;
    const bed = await startProviderTestBed({
      namespace: NAMESPACE,
      secrets: defaultSecrets(emu.apiKey),
      instanceView: emu.instanceView(),
      wire: (mgr, client) => ({
        ...wireIbmCloudProvider(mgr, client, {
          nodeLink: true,
          endpoints: {
            vpc: emu.endpoint,
            iam: emu.iamEndpoint,
            resourceManager: emu.resourceManagerEndpoint,
            globalTagging: emu.globalTaggingEndpoint,
          },
          retry: { retries: 2, minTimeoutMs: 2, maxTimeoutMs: 20 },
          batchWindowMs: 2,
          maxConcurrentReconciles: 5,
          machineController: WAIT_FOR_SECRET_EVENTS,
          actuator: { requeueAfterMs: 200 },
        }),
        close: () => {},
      }),
    });
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
      liveInstances: (m: Machine) =>
        emu.instances().filter((i) => i.name === m.metadata.name && i.status !== 'deleting').length,
      refusedCredentialsSecret: (name: string): Secret => ({
        metadata: { namespace: NAMESPACE, name },
        stringData: { ibmcloud_api_key: 'deleted-apikey-not-known-to-iam' },
      }),
      refusalCode: 'BXNIM0415E',
      cleanup: async () => {
        await bed.stop();
        await emu.stop();
      },
    };
  };
  describeMissingCredentialsSecret('ibmcloud', setup);
  describeRefusedCredentialsSecret('ibmcloud', setup);
});
