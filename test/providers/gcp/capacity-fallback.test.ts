// The GCP provider binary's wiring, in-process, against the GCE emulator: Machines with capacity fallbacks during
// a stock-out (GCE says "no capacity" in the insert's zone operation, after accepting the insert).
import type { CapacityChoice, Machine } from '../../../lib/index.js';
import { SHORT_CAPACITY_WINDOW, describeCapacityFallback, machineFor } from '../../../sim/kit/index.js';
import { startGcpScenarioBed } from './scenario-bed.js';
import { CLUSTER_ID, NAMESPACE, gcpSpec } from './fixtures.js';

/** The providerSpec fields of a choice: machine type, zone, provisioning model (a fallback says standard). */
const fieldsOf = (c: CapacityChoice, fallback: boolean): Record<string, unknown> => ({
  machineType: c.instanceType,
  zone: c.zone,
  ...(c.market === 'spot' ? { provisioningModel: 'Spot' } : fallback ? { preemptible: false } : {}),
});

describe('machine-api-provider-gcp on the local control plane and the GCE emulator', function () {
  this.timeout(120_000);

  describeCapacityFallback('gcp', async () => {
    const { emu, bed, liveInstances, cleanup } = await startGcpScenarioBed(SHORT_CAPACITY_WINDOW);
    return {
      bed,
      namespace: NAMESPACE,
      machine: (name: string, [primary, ...rest]: readonly CapacityChoice[]): Machine =>
        machineFor({
          name,
          namespace: NAMESPACE,
          clusterId: CLUSTER_ID,
          spec: gcpSpec({ ...fieldsOf(primary!, false), fallbacks: rest.map((c) => fieldsOf(c, true)) }),
        }),
      choices: [
        { instanceType: 'n2-standard-4', zone: 'us-central1-a', market: 'on-demand' },
        { instanceType: 'e2-standard-4', zone: 'us-central1-a', market: 'on-demand' },
        { instanceType: 'n2-standard-4', zone: 'us-central1-b', market: 'on-demand' },
      ],
      spot: { instanceType: 'e2-standard-4', zone: 'us-central1-c', market: 'spot' },
      setCapacity: (c, available) => emu.setStockout(c.instanceType, c.zone, !available, c.market),
      launchCalls: () => emu.knobs.counts('instances.insert').total,
      loseNextLaunchReply: () => void emu.knobs.loseNextReplies('instances.insert'),
      lostLaunchReplies: () => emu.knobs.counts('instances.insert').lostReplies,
      liveInstances,
      cleanup,
    };
  });
});
