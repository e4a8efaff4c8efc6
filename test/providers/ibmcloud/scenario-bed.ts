// The IBM Cloud provider binary's wiring, in-process, on the local control plane against a fresh VPC emulator with
// short lifecycle delays: what the integration test and sim/kit's shared scenarios (a missing Secret, oversize user
// data) run on.
import type { Logger, Machine, MachineControllerOptions } from '../../../lib/index.js';
import { startProviderTestBed, type ProviderTestBed, type WiredProvider } from '../../../sim/kit/index.js';
import { wireIbmCloudProvider, type IbmCloudProvider } from '../../../cmd/machine-api-provider-ibmcloud.js';
import { startIbmVpcEmulator, type IbmVpcEmulator } from '../../../sim/ibmcloud/index.js';
import { CLUSTER_ID, NAMESPACE, defaultSecrets } from './fixtures.js';

export interface IbmScenarioBed {
  emu: IbmVpcEmulator;
  bed: ProviderTestBed<IbmCloudProvider & WiredProvider>;
  /** Instances of the Machine (by name) not being deleted. */
  liveInstances(machine: Machine): number;
  cleanup(): Promise<void>;
}

/** `logger` (default: none) is every controller's, the actuator's included. */
export async function startIbmScenarioBed(
  machineController: MachineControllerOptions,
  logger?: Logger,
): Promise<IbmScenarioBed> {
  const emu = await startIbmVpcEmulator({
    clusterId: CLUSTER_ID,
    timings: { provisionMs: 20, bootMs: 50, deleteMs: 50, stopMs: 50 },
  });
  const bed = await startProviderTestBed({
    namespace: NAMESPACE,
    secrets: defaultSecrets(emu.apiKey),
    instanceView: emu.instanceView(),
    manager: { syncPeriodMs: 60_000, ...(logger ? { logger } : {}) },
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
        machineController,
        actuator: { requeueAfterMs: 200 },
      }),
      // The IBM wiring holds nothing that needs closing once the manager stopped.
      close: () => {},
    }),
  });
  return {
    emu,
    bed,
    liveInstances: (m) => emu.instances().filter((i) => i.name === m.metadata.name && i.status !== 'deleting').length,
    cleanup: async () => {
      await bed.stop();
      await emu.stop();
    },
  };
}
