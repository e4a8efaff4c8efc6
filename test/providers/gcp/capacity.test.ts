// The GCP provider binary's wiring, in-process, against the GCE emulator: an a3-highgpu-8g (stocked out in
// every zone of the emulated project; GCE says so in the insert operation) goes Failed with
// InsufficientResources after the capacity window, and runs if the zone gets capacity before the window ends.
import type { Machine } from '../../../lib/index.js';
import { SHORT_CAPACITY_WINDOW, describeCapacityRefusal, machineFor } from '../../../sim/kit/index.js';
import { CLUSTER_ID, NAMESPACE, ZONE, gcpSpec } from './fixtures.js';
import { startGcpScenarioBed } from './scenario-bed.js';

describe('machine-api-provider-gcp on the local control plane and the GCE emulator', function () {
  this.timeout(120_000);

  describeCapacityRefusal('gcp', async () => {
    const { emu, bed, liveInstances, cleanup } = await startGcpScenarioBed(SHORT_CAPACITY_WINDOW);
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
      liveInstances,
      cleanup,
    };
  });
});
