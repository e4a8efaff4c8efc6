// The AWS provider binary's wiring, in-process, against the EC2 emulator: user data over EC2's 16 KB fails the
// Machine before RunInstances (the emulator would answer 413 RequestEntityTooLarge to 900 KB, for ever).
import type { Machine } from '../../../lib/index.js';
import {
  FAST_MACHINE_CONTROLLER,
  REQUEST_TOO_LARGE_ACTION,
  describeOversizeUserData,
  machineFor,
} from '../../../sim/kit/index.js';
import { CLUSTER_ID, NAMESPACE, awsSpec } from './fixtures.js';
import { startAwsScenarioBed } from './scenario-bed.js';

describe('machine-api-provider-aws on the local control plane and the EC2 emulator', function () {
  this.timeout(120_000);

  describeOversizeUserData('aws', async (logger) => {
    const { emu, bed, liveInstances, cleanup } = await startAwsScenarioBed(FAST_MACHINE_CONTROLLER, logger);
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
      liveInstances,
      cleanup,
    };
  });
});
