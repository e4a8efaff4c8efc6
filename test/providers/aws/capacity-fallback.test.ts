// The AWS provider binary's wiring, in-process, against the EC2 emulator: Machines with capacity fallbacks
// during a stock-out (instance type, zone with its subnet, and spot to on-demand).
import type { CapacityChoice, Machine } from '../../../lib/index.js';
import { SHORT_CAPACITY_WINDOW, describeCapacityFallback, machineFor } from '../../../sim/kit/index.js';
import { startAwsScenarioBed } from './scenario-bed.js';
import { CLUSTER_ID, NAMESPACE, awsSpec } from './fixtures.js';

/** The providerSpec fields of a choice: type, zone with its private subnet, market (a fallback says on-demand). */
const fieldsOf = (c: CapacityChoice, fallback: boolean): Record<string, unknown> => ({
  instanceType: c.instanceType,
  placement: { availabilityZone: c.zone },
  subnet: { filters: [{ name: 'tag:Name', values: [`${CLUSTER_ID}-subnet-private-${c.zone}`] }] },
  ...(c.market === 'spot' ? { spotMarketOptions: {} } : fallback ? { marketType: 'OnDemand' } : {}),
});

describe('machine-api-provider-aws on the local control plane and the EC2 emulator', function () {
  this.timeout(120_000);

  describeCapacityFallback('aws', async () => {
    const { emu, bed, liveInstances, cleanup } = await startAwsScenarioBed(SHORT_CAPACITY_WINDOW);
    return {
      bed,
      namespace: NAMESPACE,
      machine: (name: string, [primary, ...rest]: readonly CapacityChoice[]): Machine => {
        const spec = awsSpec({
          ...fieldsOf(primary!, false),
          placement: { region: 'us-east-1', availabilityZone: primary!.zone },
          fallbacks: rest.map((c) => fieldsOf(c, true)),
        });
        return machineFor({ name, namespace: NAMESPACE, clusterId: CLUSTER_ID, spec });
      },
      choices: [
        { instanceType: 'm6i.large', zone: 'us-east-1a', market: 'on-demand' },
        { instanceType: 'm6a.xlarge', zone: 'us-east-1a', market: 'on-demand' },
        { instanceType: 'm6i.large', zone: 'us-east-1b', market: 'on-demand' },
      ],
      spot: { instanceType: 'm5.large', zone: 'us-east-1c', market: 'spot' },
      setCapacity: (c, available) => emu.setInsufficientCapacity(c.instanceType, c.zone, !available, c.market),
      launchCalls: () => emu.knobs.counts('RunInstances').total,
      loseNextLaunchReply: () => void emu.knobs.loseNextReplies('RunInstances'),
      lostLaunchReplies: () => emu.knobs.counts('RunInstances').lostReplies,
      liveInstances,
      cleanup,
    };
  });
});
