// The GCP provider binary's wiring, in-process, against the GCE emulator: user data over GCE's 256 KB per metadata
// value fails the Machine before instances.insert.
import type { Machine } from '../../../lib/index.js';
import {
  FAST_MACHINE_CONTROLLER,
  REQUEST_TOO_LARGE_ACTION,
  describeOversizeUserData,
  machineFor,
} from '../../../sim/kit/index.js';
import { CLUSTER_ID, NAMESPACE, gcpSpec } from './fixtures.js';
import { startGcpScenarioBed } from './scenario-bed.js';

describe('machine-api-provider-gcp on the local control plane and the GCE emulator', function () {
  this.timeout(120_000);

  describeOversizeUserData('gcp', async (logger) => {
    const { emu, bed, liveInstances, cleanup } = await startGcpScenarioBed(FAST_MACHINE_CONTROLLER, logger);
    return {
      bed,
      namespace: NAMESPACE,
      limitBytes: 256 * 1024,
      machineNaming: (name: string, secret: string): Machine =>
        machineFor({
          name,
          namespace: NAMESPACE,
          clusterId: CLUSTER_ID,
          spec: gcpSpec({ userDataSecret: { name: secret } }),
        }),
      launchCalls: () => emu.knobs.counts('instances.insert').total + emu.knobs.counts(REQUEST_TOO_LARGE_ACTION).total,
      liveInstances,
      cleanup,
    };
  });
});
