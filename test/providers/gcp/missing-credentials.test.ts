// The GCP provider binary's wiring, in-process, against the GCE emulator: what a missing credentials
// Secret does to a new Machine and to a deleting one, and how fast they recover once it is there.
import type { Machine, Secret } from '../../../lib/index.js';
import {
  WAIT_FOR_SECRET_EVENTS,
  describeMissingCredentialsSecret,
  machineFor,
  startProviderTestBed,
} from '../../../sim/kit/index.js';
import { wireGcpProvider } from '../../../cmd/machine-api-provider-gcp.js';
import { startGceEmulator } from '../../../sim/gcp/index.js';
import { CLUSTER_ID, NAMESPACE, defaultSecrets, gcpSpec } from './fixtures.js';

describe('machine-api-provider-gcp on the local control plane and the GCE emulator', function () {
  this.timeout(120_000);
  const credentials = defaultSecrets().find((s) => s.metadata.name === 'gcp-cloud-credentials')!;

  describeMissingCredentialsSecret('gcp', async () => {
    const emu = await startGceEmulator({ clusterId: CLUSTER_ID, bootDelayMs: 50, stopDelayMs: 50, deleteDelayMs: 50 });
    const bed = await startProviderTestBed({
      namespace: NAMESPACE,
      secrets: defaultSecrets(),
      instanceView: emu.instanceView(),
      wire: (mgr, c) =>
        wireGcpProvider(mgr, c, {
          nodeLink: true,
          endpoint: emu.endpoint,
          batchWindowMs: 2,
          maxConcurrentReconciles: 5,
          machineController: WAIT_FOR_SECRET_EVENTS,
          actuator: { requeueAfterMs: 200 },
        }),
    });
    return {
      bed,
      namespace: NAMESPACE,
      machineNaming: (name: string, secret: string): Machine =>
        machineFor({
          name,
          namespace: NAMESPACE,
          clusterId: CLUSTER_ID,
          spec: gcpSpec({ credentialsSecret: { name: secret } }),
        }),
      credentialsSecret: (name: string): Secret => ({
        metadata: { namespace: NAMESPACE, name },
        data: { ...credentials.data },
      }),
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
