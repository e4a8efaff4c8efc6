// The GCP provider binary's wiring, in-process, against the GCE emulator: an a3-highgpu-8g (stocked out in
// every zone of the emulated project; GCE says so in the insert operation) goes Failed with
// InsufficientResources after the capacity window, and runs if the zone gets capacity before the window ends.
import type { Machine } from '../../../lib/index.js';
import {
  SHORT_CAPACITY_WINDOW,
  describeCapacityRefusal,
  machineFor,
  startProviderTestBed,
} from '../../../sim/kit/index.js';
import { wireGcpProvider } from '../../../cmd/machine-api-provider-gcp.js';
import { startGceEmulator } from '../../../sim/gcp/index.js';
import { CLUSTER_ID, NAMESPACE, ZONE, defaultSecrets, gcpSpec } from './fixtures.js';

describe('machine-api-provider-gcp on the local control plane and the GCE emulator', function () {
  this.timeout(120_000);

  describeCapacityRefusal('gcp', async () => {
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
      bed,
      namespace: NAMESPACE,
      exhaustedMachine: (name: string): Machine =>
        machineFor({
          name,
          namespace: NAMESPACE,
          clusterId: CLUSTER_ID,
          spec: gcpSpec({ machineType: 'a3-highgpu-8g', onHostMaintenance: 'Terminate' }),
        }),
      zone: ZONE,
      instanceType: 'a3-highgpu-8g',
      cloudCode: 'ZONE_RESOURCE_POOL_EXHAUSTED',
      setCapacity: (available: boolean) => emu.setStockout('a3-highgpu-8g', ZONE, !available),
      liveInstances: (m: Machine) =>
        emu
          .instanceView()
          .listInstances()
          .filter((i) => i.nodeName === m.metadata.name && i.state !== 'terminating' && i.state !== 'terminated')
          .length,
      cleanup: async () => {
        await bed.stop();
        await emu.stop();
      },
    };
  });
});
