// The EC2 emulator and the AWS provider binary's wiring on the local control plane, with a capacity window short
// enough to wait out: what the capacity-refusal and capacity-fallback scenarios run on.
import { SHORT_CAPACITY_WINDOW, startProviderTestBed } from '../../../lib/testing/index.js';
import { wireAwsProvider } from '../../../cmd/machine-api-provider-aws.js';
import { startEc2Emulator } from '../../../providers/aws/emulator/index.js';
import { MACHINE_UID_TAG } from '../../../providers/aws/instances.js';
import type { Machine } from '../../../lib/index.js';
import { CLUSTER_ID, NAMESPACE, defaultSecrets } from './fixtures.js';

export async function startCapacityBed() {
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
    emu,
    bed,
    /** Instances of the Machine (by its UID tag), not terminated nor terminating. */
    liveInstances: (m: Machine): number =>
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
}
