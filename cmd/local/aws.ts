// AWS in the local environment: the EC2 emulator (Query/XML protocol, persisted world) and the
// machine-api-provider-aws binary pointed at it with --aws-endpoint.
import { startEc2Emulator } from '../../sim/aws/index.js';
import { COMPONENT, buildProgram, prepareAwsProvider } from '../machine-api-provider-aws.js';
import { parseArgs, type LocalBinary } from './local-binary.js';
import type { LocalProvider } from './providers.js';

/** The binary's own preparation (prepareAwsProvider, as its main() runs it), without runUntilSignal. */
export const awsProviderBinary: LocalBinary = {
  name: COMPONENT,
  script: 'cmd/machine-api-provider-aws.ts',
  async prepare(args, opts) {
    const { manager, close } = await prepareAwsProvider(parseArgs(buildProgram(opts.env), args), opts);
    return { manager, close: () => void close() };
  },
};

export const awsLocalProvider: LocalProvider = {
  name: 'aws',
  samplesDir: 'aws',
  binary: awsProviderBinary,
  cloudArgs: (cloud) => [`--aws-endpoint=${cloud.endpoint}`],
  infrastructure: (cloud) => ({ clusterName: 'local', platformStatus: { type: 'AWS', aws: { region: cloud.region } } }),
  async startEmulator(s) {
    const emu = await startEc2Emulator({
      region: 'us-east-1',
      clusterId: 'local',
      dataDir: s.dataDir,
      port: s.port,
      timings: { bootMs: s.bootDelayMs, terminateMs: s.terminateDelayMs, stopMs: s.terminateDelayMs },
      knobs: s.latencyMs > 0 ? { latency: [{ latency: s.latencyMs }] } : undefined,
      logger: s.logger,
    });
    return {
      endpoint: emu.endpoint,
      region: emu.region,
      instanceView: () => emu.instanceView(),
      adminRoutes: [...emu.adminRoutes, ...emu.capacityAdminRoutes],
      actionCounts: () =>
        Object.fromEntries(Object.entries(emu.knobs.allCounts()).map(([action, c]) => [action, c.total])),
      metadataEnv: async (providerID) => {
        const id = providerID.split('/').at(-1) ?? '';
        return emu.instance(id) ? { AWS_EC2_METADATA_SERVICE_ENDPOINT: await emu.metadataEndpoint(id) } : undefined;
      },
      reclaim: (providerID) => emu.spotInterrupt(providerID.split('/').at(-1) ?? ''),
      stop: () => emu.stop(),
    };
  },
};
