// The AWS provider binary's wiring, in-process, on the local control plane against a fresh EC2 emulator with short
// lifecycle delays: what the integration test and sim/kit's shared scenarios (capacity, a missing Secret, oversize
// user data) run on.
import type { Logger, Machine, MachineControllerOptions } from '../../../lib/index.js';
import { startProviderTestBed, type ProviderTestBed } from '../../../sim/kit/index.js';
import { wireAwsProvider, type AwsProvider } from '../../../cmd/machine-api-provider-aws.js';
import { startEc2Emulator, type Ec2Emulator } from '../../../sim/aws/index.js';
import { MACHINE_UID_TAG } from '../../../providers/aws/instances.js';
import { CLUSTER_ID, NAMESPACE, defaultSecrets } from './fixtures.js';

export interface AwsScenarioBed {
  emu: Ec2Emulator;
  bed: ProviderTestBed<AwsProvider>;
  /** Instances of the Machine (by its UID tag) neither terminated nor shutting down. */
  liveInstances(machine: Machine): number;
  cleanup(): Promise<void>;
}

/** `logger` (default: none) is every controller's, the actuator's included. */
export async function startAwsScenarioBed(
  machineController: MachineControllerOptions,
  logger?: Logger,
): Promise<AwsScenarioBed> {
  const emu = await startEc2Emulator({ clusterId: CLUSTER_ID, timings: { bootMs: 50, terminateMs: 50, stopMs: 50 } });
  const bed = await startProviderTestBed({
    namespace: NAMESPACE,
    secrets: defaultSecrets(),
    instanceView: emu.instanceView(),
    manager: { syncPeriodMs: 60_000, ...(logger ? { logger } : {}) },
    wire: (mgr, c) =>
      wireAwsProvider(mgr, c, {
        nodeLink: true,
        endpoint: emu.endpoint,
        retryDelayMs: () => 5,
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
