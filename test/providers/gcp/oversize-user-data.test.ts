// The GCP provider binary's wiring, in-process, against the GCE emulator: user data over GCE's 256 KB per metadata
// value fails the Machine before instances.insert.
import type { Machine } from '../../../lib/index.js';
import {
  FAST_MACHINE_CONTROLLER,
  REQUEST_TOO_LARGE_ACTION,
  describeOversizeUserData,
  machineFor,
  startProviderTestBed,
} from '../../../lib/testing/index.js';
import { wireGcpProvider } from '../../../cmd/machine-api-provider-gcp.js';
import { startGceEmulator } from '../../../providers/gcp/emulator/index.js';
import { CLUSTER_ID, NAMESPACE, defaultSecrets, gcpSpec } from './fixtures.js';

describe('machine-api-provider-gcp on the local control plane and the GCE emulator', function () {
  this.timeout(120_000);

  describeOversizeUserData('gcp', async (logger) => {
    const emu = await startGceEmulator({ clusterId: CLUSTER_ID, bootDelayMs: 50, stopDelayMs: 50, deleteDelayMs: 50 });
    const bed = await startProviderTestBed({
      namespace: NAMESPACE,
      secrets: defaultSecrets(),
      instanceView: emu.instanceView(),
      manager: { syncPeriodMs: 60_000, logger },
      wire: (mgr, c) =>
        wireGcpProvider(mgr, c, {
          nodeLink: true,
          endpoint: emu.endpoint,
          batchWindowMs: 2,
          maxConcurrentReconciles: 5,
          machineController: FAST_MACHINE_CONTROLLER,
          actuator: { requeueAfterMs: 200 },
        }),
    });
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
