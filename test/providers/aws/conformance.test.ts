// The library's actuator conformance suite, run against the AWS actuator and the EC2 emulator.
import { RealClock, type Machine } from '../../../lib/index.js';
import { describeActuatorConformance } from '../../../sim/kit/index.js';
import { startEc2Emulator } from '../../../sim/aws/index.js';
import { createAwsActuator } from '../../../providers/aws/index.js';
import { MACHINE_UID_TAG } from '../../../providers/aws/instances.js';
import { NAMESPACE, awsSpec, machine, secretsClient } from './fixtures.js';

describeActuatorConformance('aws', async () => {
  const emu = await startEc2Emulator({ timings: { bootMs: 30, terminateMs: 30 } });
  const actuator = createAwsActuator({
    client: secretsClient(),
    clock: new RealClock(),
    endpoint: emu.endpoint,
    retryDelayMs: () => 1,
    batchWindowMs: 2,
    rateLimits: { describe: { qps: 1000, burst: 1000 }, mutate: { qps: 1000, burst: 1000 } },
  });
  const ours = (m: Machine) =>
    emu
      .instances()
      .filter((i) => i.tags.some((t) => t.key === MACHINE_UID_TAG && t.value === m.metadata.uid))
      .filter((i) => i.state !== 'terminated' && i.state !== 'shutting-down');
  return {
    actuator,
    namespace: NAMESPACE,
    validMachine: (name) => machine(name),
    invalidMachine: () => ({
      machine: machine('invalid', awsSpec({ placement: { region: 'us-east-1', tenancy: 'shared' } })),
      field: 'spec.providerSpec.value.placement.tenancy',
    }),
    countInstancesFor: (m) => ours(m).length,
    // Every SDK attempt loses its reply, so the actuator sees the failure a crash would.
    loseNextReply: () => void emu.knobs.loseNextReplies('RunInstances', 3),
    throttle: (on) => void (on ? emu.knobs.throttleNext('*', 1_000_000) : emu.knobs.reset()),
    advance: () => emu.advance(),
    eventuallyTimeoutMs: 10_000,
    cleanup: async () => {
      actuator.close();
      await emu.stop();
    },
  };
});
