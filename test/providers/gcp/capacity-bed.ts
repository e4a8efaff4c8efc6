// The GCE emulator and the GCP provider binary's wiring on the local control plane, with a capacity window short
// enough to wait out: what the capacity-refusal and capacity-fallback scenarios run on.
import type { Machine } from '../../../lib/index.js';
import { SHORT_CAPACITY_WINDOW, startProviderTestBed } from '../../../lib/testing/index.js';
import { wireGcpProvider } from '../../../cmd/machine-api-provider-gcp.js';
import { startGceEmulator } from '../../../providers/gcp/emulator/index.js';
import { CLUSTER_ID, NAMESPACE, defaultSecrets } from './fixtures.js';

export async function startCapacityBed() {
  const emu = await startGceEmulator({ clusterId: CLUSTER_ID, bootDelayMs: 50, stopDelayMs: 50, deleteDelayMs: 50 });
  const bed = await startProviderTestBed({
    namespace: NAMESPACE,
    secrets: defaultSecrets(),
    instanceView: emu.instanceView(),
    wire: (mgr, c) =>
      wireGcpProvider(mgr, c, {
        nodeLink: true,
        endpoint: emu.endpoint,
        batchWindowMs: 2,
        maxConcurrentReconciles: 5,
        machineController: SHORT_CAPACITY_WINDOW,
        actuator: { requeueAfterMs: 200 },
      }),
  });
  return {
    emu,
    bed,
    /** Instances of the Machine (by its name), not terminated nor terminating. */
    liveInstances: (m: Machine): number =>
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
