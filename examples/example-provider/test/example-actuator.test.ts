// The worked example provider passes the conformance suite every provider runs, with and without slow clouds.
import { FakeClock, type Machine, MachineClusterIDLabel } from '@machine-api-ts/lib';
import { describeActuatorConformance } from '@machine-api-ts/lib/kit';
import { ExampleActuator, ExampleCloud } from '../src/index.js';

const NS = 'example';
let uid = 0;
const machineFor = (name: string, value: Record<string, unknown>): Machine => ({
  metadata: { name, namespace: NS, uid: `example-uid-${++uid}`, labels: { [MachineClusterIDLabel]: 'c' } },
  spec: { providerSpec: { value } },
});

for (const slow of [false, true]) {
  describeActuatorConformance(
    slow ? 'the example provider on a slow, lagging cloud' : 'the example provider',
    async () => {
      const clock = new FakeClock();
      const cloud = new ExampleCloud(clock, slow ? { bootMs: 20_000, terminateMs: 30_000, visibilityMs: 5_000 } : {});
      const actuator = new ExampleActuator({ cloud, clock });
      return {
        actuator,
        namespace: NS,
        validMachine: (name) => machineFor(name, { instanceType: 'example.large', zone: 'example-zone-b' }),
        invalidMachine: () => ({
          machine: machineFor('invalid', { zone: 'Not A Zone' }),
          field: 'spec.providerSpec.value.zone',
        }),
        countInstancesFor: (m) => cloud.liveNamed(m.metadata.name ?? ''),
        loseNextReply: () => cloud.loseNextReply(),
        throttle: (on) => cloud.throttle(on),
        cleanup: () => {},
        pollIntervalMs: 1,
        advance: () => clock.step(2_000),
      };
    },
  );
}
