// The AWS provider binary's wiring, in-process, against the EC2 emulator: a p5.48xlarge (no capacity in any
// zone of the emulated account) goes Failed with InsufficientResources after the capacity window, and runs
// if the capacity comes back before the window ends.
import type { Machine } from '../../../lib/index.js';
import { SHORT_CAPACITY_WINDOW, describeCapacityRefusal, machineFor } from '../../../sim/kit/index.js';
import { CLUSTER_ID, NAMESPACE, awsSpec } from './fixtures.js';
import { startAwsScenarioBed } from './scenario-bed.js';

describe('machine-api-provider-aws on the local control plane and the EC2 emulator', function () {
  this.timeout(120_000);

  describeCapacityRefusal('aws', async () => {
    const { emu, bed, liveInstances, cleanup } = await startAwsScenarioBed(SHORT_CAPACITY_WINDOW);
    return {
      bed,
      namespace: NAMESPACE,
      exhaustedMachine: (name: string): Machine =>
        machineFor({
          name,
          namespace: NAMESPACE,
          clusterId: CLUSTER_ID,
          spec: awsSpec({ instanceType: 'p5.48xlarge' }),
        }),
      zone: 'us-east-1a',
      instanceType: 'p5.48xlarge',
      cloudCode: 'InsufficientInstanceCapacity',
      setCapacity: (available: boolean) => emu.setInsufficientCapacity('p5.48xlarge', 'us-east-1a', !available),
      liveInstances,
      cleanup,
    };
  });
});
