// The library's actuator conformance suite, run against the IBM Cloud actuator and the VPC emulator.
import { RealClock, type Machine } from '../../../lib/index.js';
import { describeActuatorConformance } from '../../../sim/kit/index.js';
import { startIbmVpcEmulator } from '../../../sim/ibmcloud/index.js';
import { createIbmCloudActuator } from '../../../providers/ibmcloud/index.js';
import { NAMESPACE, ibmSpec, machine, secretsClient } from './fixtures.js';

describeActuatorConformance('ibmcloud', async () => {
  const emu = await startIbmVpcEmulator({ timings: { provisionMs: 10, bootMs: 30, deleteMs: 30, stopMs: 30 } });
  const actuator = createIbmCloudActuator({
    client: secretsClient(),
    clock: new RealClock(),
    endpoints: {
      vpc: emu.endpoint,
      iam: emu.iamEndpoint,
      resourceManager: emu.resourceManagerEndpoint,
      globalTagging: emu.globalTaggingEndpoint,
    },
    retry: { retries: 2, minTimeoutMs: 1, maxTimeoutMs: 5 },
    batchWindowMs: 2,
    rateLimits: { describe: { qps: 1000, burst: 1000 }, mutate: { qps: 1000, burst: 1000 } },
  });
  const ours = (m: Machine) => emu.instances().filter((i) => i.name === m.metadata.name && i.status !== 'deleting');
  return {
    actuator,
    namespace: NAMESPACE,
    validMachine: (name) => machine(name),
    invalidMachine: () => ({
      machine: machine('invalid', ibmSpec({ zone: 'eu-de-1' })),
      field: 'spec.providerSpec.value.zone',
    }),
    countInstancesFor: (m) => ours(m).length,
    loseNextReply: () => void emu.knobs.loseNextReplies('CreateInstance', 1),
    throttle: (on) => void (on ? emu.knobs.throttleNext('*', 1_000_000) : emu.knobs.reset()),
    advance: () => emu.advance(),
    eventuallyTimeoutMs: 10_000,
    cleanup: () => emu.stop(),
  };
});
