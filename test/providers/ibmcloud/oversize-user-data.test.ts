// The IBM Cloud provider binary's wiring, in-process, against the VPC emulator: user data over the VPC's 64 KB fails
// the Machine before POST /instances.
import type { Machine } from '../../../lib/index.js';
import {
  FAST_MACHINE_CONTROLLER,
  describeOversizeUserData,
  machineFor,
  startProviderTestBed,
} from '../../../lib/testing/index.js';
import { wireIbmCloudProvider } from '../../../cmd/machine-api-provider-ibmcloud.js';
import { startIbmVpcEmulator } from '../../../providers/ibmcloud/emulator/index.js';
import { CLUSTER_ID, NAMESPACE, defaultSecrets, ibmSpec } from './fixtures.js';

describe('machine-api-provider-ibmcloud on the local control plane and the VPC emulator', function () {
  this.timeout(120_000);

  describeOversizeUserData('ibmcloud', async (logger) => {
    const emu = await startIbmVpcEmulator({
      clusterId: CLUSTER_ID,
      timings: { provisionMs: 20, bootMs: 50, deleteMs: 50, stopMs: 50 },
    });
    const bed = await startProviderTestBed({
      namespace: NAMESPACE,
      secrets: defaultSecrets(emu.apiKey),
      instanceView: emu.instanceView(),
      manager: { syncPeriodMs: 60_000, logger },
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
          machineController: FAST_MACHINE_CONTROLLER,
          actuator: { requeueAfterMs: 200 },
        }),
        close: () => {},
      }),
    });
    return {
      bed,
      namespace: NAMESPACE,
      limitBytes: 64 * 1024,
      machineNaming: (name: string, secret: string): Machine =>
        machineFor({
          name,
          namespace: NAMESPACE,
          clusterId: CLUSTER_ID,
          spec: ibmSpec({ userDataSecret: { name: secret } }),
        }),
      // The VPC's route names the call before its body is read: a body refused for its size counts as CreateInstance.
      launchCalls: () => emu.knobs.counts('CreateInstance').total,
      liveInstances: (m: Machine) =>
        emu.instances().filter((i) => i.name === m.metadata.name && i.status !== 'deleting').length,
      cleanup: async () => {
        await bed.stop();
        await emu.stop();
      },
    };
  });
});
