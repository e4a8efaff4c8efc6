// The GCP provider binary's wiring, in-process, on the local control plane against a fresh GCE emulator with short
// lifecycle delays: what the integration test and sim/kit's shared scenarios (capacity, a missing Secret, oversize
// user data) run on.
import type { Logger, Machine, MachineControllerOptions } from '../../../lib/index.js';
import { startProviderTestBed, type ProviderTestBed } from '../../../sim/kit/index.js';
import { wireGcpProvider, type GcpProvider } from '../../../cmd/machine-api-provider-gcp.js';
import { startGceEmulator, type GceEmulator } from '../../../sim/gcp/index.js';
import { CLUSTER_ID, NAMESPACE, defaultSecrets } from './fixtures.js';

export interface GcpScenarioBed {
  emu: GceEmulator;
  bed: ProviderTestBed<GcpProvider>;
  /** Instances of the Machine (by its Node name) neither terminating nor terminated. */
  liveInstances(machine: Machine): number;
  cleanup(): Promise<void>;
}

/** `logger` (default: none) is every controller's, the actuator's included. */
export async function startGcpScenarioBed(
  machineController: MachineControllerOptions,
  logger?: Logger,
): Promise<GcpScenarioBed> {
  // Compute calls must be signed by a key the project has, as on GCE: the provider signs with the Secret's key.
  const emu = await startGceEmulator({
    requireAuth: true,
    clusterId: CLUSTER_ID,
    bootDelayMs: 50,
    stopDelayMs: 50,
    deleteDelayMs: 50,
  });
  const bed = await startProviderTestBed({
    namespace: NAMESPACE,
    secrets: defaultSecrets(),
    instanceView: emu.instanceView(),
    manager: { syncPeriodMs: 60_000, ...(logger ? { logger } : {}) },
    wire: (mgr, c) =>
      wireGcpProvider(mgr, c, {
        nodeLink: true,
        endpoint: emu.endpoint,
        batchWindowMs: 2,
        maxConcurrentReconciles: 5,
        machineController,
        actuator: { requeueAfterMs: 200 },
      }),
  });
  return {
    emu,
    bed,
    liveInstances: (m) =>
      emu
        .instanceView()
        .listInstances()
        .filter((i) => i.nodeName === m.metadata.name && i.state !== 'terminating' && i.state !== 'terminated').length,
    cleanup: async () => {
      await bed.stop();
      await emu.stop();
    },
  };
}
