// The IBM Cloud provider binary's wiring, in-process, against the VPC emulator: user data over the VPC's 64 KB fails
// the Machine before POST /instances.
import type { Machine } from '../../../lib/index.js';
import { FAST_MACHINE_CONTROLLER, describeOversizeUserData, machineFor } from '../../../sim/kit/index.js';
import { CLUSTER_ID, NAMESPACE, ibmSpec } from './fixtures.js';
import { startIbmScenarioBed } from './scenario-bed.js';

describe('machine-api-provider-ibmcloud on the local control plane and the VPC emulator', function () {
  this.timeout(120_000);

  describeOversizeUserData('ibmcloud', async (logger) => {
    const { emu, bed, liveInstances, cleanup } = await startIbmScenarioBed(FAST_MACHINE_CONTROLLER, logger);
    return {
      bed,
      namespace: NAMESPACE,
      limitBytes: 64 * 1024,
      machineNaming: (name: string, secret: string): Machine =>
        machineFor({
          name,
          namespace: NAMESPACE,
          clusterId: CLUSTER_ID,
          spec: ibmSpec({ userDataSecret: { name: secret } }),
        }),
      // The VPC's route names the call before its body is read: a body refused for its size counts as CreateInstance.
      launchCalls: () => emu.knobs.counts('CreateInstance').total,
      liveInstances,
      cleanup,
    };
  });
});
