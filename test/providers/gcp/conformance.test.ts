// The library's actuator conformance suite, run against the GCP actuator and the GCE emulator with the real
// @google-cloud/compute clients.
import { RealClock, type Machine } from '../../../lib/index.js';
import { describeActuatorConformance } from '../../../sim/kit/index.js';
import { startGceEmulator } from '../../../sim/gcp/index.js';
import { createGcpActuator } from '../../../providers/gcp/index.js';
import { NAMESPACE, gcpSpec, machine, secretsClient } from './fixtures.js';

describeActuatorConformance('gcp', async () => {
  const emu = await startGceEmulator({ bootDelayMs: 30, deleteDelayMs: 30, stopDelayMs: 30 });
  const actuator = createGcpActuator({
    client: secretsClient(),
    clock: new RealClock(),
    endpoint: emu.endpoint,
    batchWindowMs: 2,
    rateLimits: { describe: { qps: 1000, burst: 1000 }, mutate: { qps: 1000, burst: 1000 } },
    requeueAfterMs: 50,
  });
  const ours = (m: Machine) => emu.instances().filter((i) => i.name === m.metadata.name);
  return {
    actuator,
    namespace: NAMESPACE,
    validMachine: (name) => machine(name),
    invalidMachine: () => ({
      machine: machine('invalid', gcpSpec({ provisioningModel: 'Cheap' })),
      field: 'spec.providerSpec.value.provisioningModel',
    }),
    countInstancesFor: (m) => ours(m).length,
    loseNextReply: () => void emu.knobs.loseNextReplies('instances.insert', 1),
    throttle: (on) => void (on ? emu.knobs.throttleNext('*', 1_000_000) : emu.knobs.reset()),
    advance: () => emu.advance(),
    eventuallyTimeoutMs: 10_000,
    cleanup: async () => {
      await actuator.close();
      await emu.stop();
    },
  };
});
