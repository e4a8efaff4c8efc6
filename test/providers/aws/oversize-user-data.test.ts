// The AWS provider binary's wiring, in-process, against the EC2 emulator: user data over EC2's 16 KB fails the
// Machine before RunInstances (the emulator would answer 413 RequestEntityTooLarge to 900 KB, for ever).
import type { Machine } from '../../../lib/index.js';
import {
  FAST_MACHINE_CONTROLLER,
  REQUEST_TOO_LARGE_ACTION,
  describeOversizeUserData,
  machineFor,
  startProviderTestBed,
} from '../../../lib/testing/index.js';
import { wireAwsProvider } from '../../../cmd/machine-api-provider-aws.js';
import { startEc2Emulator } from '../../../providers/aws/emulator/index.js';
import { MACHINE_UID_TAG } from '../../../providers/aws/instances.js';
import { CLUSTER_ID, NAMESPACE, awsSpec, defaultSecrets } from './fixtures.js';

describe('machine-api-provider-aws on the local control plane and the EC2 emulator', function () {
  this.timeout(120_000);

  describeOversizeUserData('aws', async (logger) => {
    const emu = await startEc2Emulator({ clusterId: CLUSTER_ID, timings: { bootMs: 50, terminateMs: 50, stopMs: 50 } });
    const bed = await startProviderTestBed({
      namespace: NAMESPACE,
      secrets: defaultSecrets(),
      instanceView: emu.instanceView(),
      manager: { syncPeriodMs: 60_000, logger },
      wire: (mgr, c) =>
        wireAwsProvider(mgr, c, {
          nodeLink: true,
          endpoint: emu.endpoint,
          retryDelayMs: () => 5,
          batchWindowMs: 2,
          maxConcurrentReconciles: 5,
          machineController: FAST_MACHINE_CONTROLLER,
          actuator: { requeueAfterMs: 200 },
        }),
    });
    return {
      bed,
      namespace: NAMESPACE,
      limitBytes: 16_384,
      machineNaming: (name: string, secret: string): Machine =>
        machineFor({
          name,
          namespace: NAMESPACE,
          clusterId: CLUSTER_ID,
          spec: awsSpec({ userDataSecret: { name: secret } }),
        }),
      launchCalls: () => emu.knobs.counts('RunInstances').total + emu.knobs.counts(REQUEST_TOO_LARGE_ACTION).total,
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
