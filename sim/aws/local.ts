// AWS in the local environment: the EC2 emulator (Query/XML protocol, persisted world) and the
// machine-api-provider-aws binary pointed at it with --aws-endpoint.
import { startEc2Emulator } from './index.js';
import { totalActionCounts, type LocalSimulation } from '../kit/local-cloud.js';

export const awsLocalSimulation: LocalSimulation = {
  samplesDir: 'aws',
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
      adminRoutes: emu.adminRoutes,
      actionCounts: () => totalActionCounts(emu.knobs.allCounts()),
      metadataEnv: async (providerID) => {
        const id = providerID.split('/').at(-1) ?? '';
        return emu.instance(id) ? { AWS_EC2_METADATA_SERVICE_ENDPOINT: await emu.metadataEndpoint(id) } : undefined;
      },
      reclaim: (providerID) => emu.spotInterrupt(providerID.split('/').at(-1) ?? ''),
      stop: () => emu.stop(),
    };
  },
};
