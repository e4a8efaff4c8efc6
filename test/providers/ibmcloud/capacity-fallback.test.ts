// The IBM Cloud provider binary's wiring, in-process, against the VPC emulator: Machines with capacity fallbacks
// (another profile, or another zone with its subnet) during a stock-out. VPC has no spot market.
import type { CapacityChoice, Machine } from '../../../lib/index.js';
import { SHORT_CAPACITY_WINDOW, describeCapacityFallback, machineFor } from '../../../sim/kit/index.js';
import { startIbmScenarioBed } from './scenario-bed.js';
import { CLUSTER_ID, NAMESPACE, ibmSpec } from './fixtures.js';

/** The providerSpec fields of a choice: profile, zone with its subnet. */
const fieldsOf = (c: CapacityChoice): Record<string, unknown> => ({
  profile: c.instanceType,
  zone: c.zone,
  primaryNetworkInterface: { subnet: `${CLUSTER_ID}-subnet-compute-${c.zone}` },
});

describe('machine-api-provider-ibmcloud on the local control plane and the VPC emulator', function () {
  this.timeout(120_000);

  describeCapacityFallback('ibmcloud', async () => {
    const { emu, bed, liveInstances, cleanup } = await startIbmScenarioBed(SHORT_CAPACITY_WINDOW);
    return {
      bed,
      namespace: NAMESPACE,
      machine: (name: string, [primary, ...rest]: readonly CapacityChoice[]): Machine => {
        const { primaryNetworkInterface, ...primaryFields } = fieldsOf(primary!);
        const base = ibmSpec();
        const nic = { ...(base.primaryNetworkInterface as object), ...(primaryNetworkInterface as object) };
        const spec = ibmSpec({ ...primaryFields, primaryNetworkInterface: nic, fallbacks: rest.map(fieldsOf) });
        return machineFor({ name, namespace: NAMESPACE, clusterId: CLUSTER_ID, spec });
      },
      choices: [
        { instanceType: 'bx2-4x16', zone: 'us-south-1', market: 'on-demand' },
        { instanceType: 'bx2-2x8', zone: 'us-south-1', market: 'on-demand' },
        { instanceType: 'bx2-4x16', zone: 'us-south-2', market: 'on-demand' },
      ],
      setCapacity: (c, available) => emu.setCapacity(c.instanceType, c.zone, available),
      launchCalls: () => emu.knobs.counts('CreateInstance').total,
      loseNextLaunchReply: () => void emu.knobs.loseNextReplies('CreateInstance'),
      lostLaunchReplies: () => emu.knobs.counts('CreateInstance').lostReplies,
      liveInstances,
      cleanup,
    };
  });
});
