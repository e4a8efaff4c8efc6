// AWS in the local environment: the EC2 emulator (Query/XML protocol, persisted world) and the
// machine-api-provider-aws binary pointed at it with --aws-endpoint.
import { RealClock } from '../../lib/index.js';
import { startEc2Emulator } from '../../sim/aws/index.js';
import {
  awsSettingsFromInfrastructure,
  buildProgram,
  COMPONENT,
  wireAwsProvider,
} from '../machine-api-provider-aws.js';
import { managerFromFlags, providerControllerFlags, readStandardFlags } from '../internal/index.js';
import { parseArgs, type LocalBinary } from './local-binary.js';
import type { LocalProvider } from './providers.js';

/** The same steps as runAwsProvider, up to (not including) runUntilSignal. */
export const awsProviderBinary: LocalBinary = {
  name: COMPONENT,
  script: 'cmd/machine-api-provider-aws.ts',
  async prepare(args, opts) {
    const program = parseArgs(buildProgram(opts.env), args);
    const flags = readStandardFlags(program);
    const aws = program.opts<{ awsEndpoint?: string; awsRegion?: string }>();
    const { manager, client, logger } = await managerFromFlags(flags, COMPONENT, { logStream: opts.logStream });
    const infra = await awsSettingsFromInfrastructure(client, logger);
    const controllers = providerControllerFlags(program, flags);
    const provider = wireAwsProvider(
      manager,
      client,
      {
        ...infra,
        endpoint: aws.awsEndpoint,
        region: aws.awsRegion,
        ...controllers,
        machineController: { ...controllers.machineController, ...opts.machineController },
      },
      new RealClock(),
    );
    return { manager, close: () => provider.close() };
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
      adminRoutes: emu.adminRoutes,
      instanceView: () => emu.instanceView(),
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
