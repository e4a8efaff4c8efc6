// The AWS provider binary's wiring, in-process, against the EC2 emulator: a p5.48xlarge (no capacity in any
// zone of the emulated account) goes Failed with InsufficientResources after the capacity window, and runs
// if the capacity comes back before the window ends.
import type { Machine } from '../../../lib/index.js';
import {
  SHORT_CAPACITY_WINDOW,
  describeCapacityRefusal,
  machineFor,
  startProviderTestBed,
} from '../../../sim/kit/index.js';
import { wireAwsProvider } from '../../../cmd/machine-api-provider-aws.js';
import { startEc2Emulator } from '../../../sim/aws/index.js';
import { MACHINE_UID_TAG } from '../../../providers/aws/instances.js';
import { CLUSTER_ID, NAMESPACE, awsSpec, defaultSecrets } from './fixtures.js';

describe('machine-api-provider-aws on the local control plane and the EC2 emulator', function () {
  this.timeout(120_000);

  describeCapacityRefusal('aws', async () => {
    const emu = await startEc2Emulator({ clusterId: CLUSTER_ID, timings: { bootMs: 50, terminateMs: 50, stopMs: 50 } });
    const bed = await startProviderTestBed({
      namespace: NAMESPACE,
      secrets: defaultSecrets(),
      instanceView: emu.instanceView(),
      wire: (mgr, c) =>
        wireAwsProvider(mgr, c, {
          nodeLink: true,
          endpoint: emu.endpoint,
          retryDelayMs: () => 5,
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
          spec: awsSpec({ instanceType: 'p5.48xlarge' }),
        }),
      zone: 'us-east-1a',
      instanceType: 'p5.48xlarge',
      cloudCode: 'InsufficientInstanceCapacity',
      setCapacity: (available: boolean) => emu.setInsufficientCapacity('p5.48xlarge', 'us-east-1a', !available),
      liveInstances: (m: Machine) =>
        emu
          .instances()
          .filter(
            (i) =>
              i.tags.some((t) => t.key === MACHINE_UID_TAG && t.value === m.metadata.uid) &&
              i.state !== 'terminated' &&
              i.state !== 'shutting-down',
          ).length,
      cleanup: async () => {
        await bed.stop();
        await emu.stop();
      },
    };
  });
});
