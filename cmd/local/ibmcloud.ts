// IBM Cloud in the local environment: the VPC emulator (REST/JSON, with IAM, Resource Manager and Global
// Tagging on the same port; persisted world) and the machine-api-provider-ibmcloud binary pointed at it.
import { RealClock } from '../../lib/index.js';
import { startIbmVpcEmulator } from '../../sim/ibmcloud/index.js';
import {
  buildProgram,
  COMPONENT,
  endpointsOf,
  ibmEndpointsFromInfrastructure,
  wireIbmCloudProvider,
} from '../machine-api-provider-ibmcloud.js';
import { managerFromFlags, providerControllerFlags, readStandardFlags } from '../internal/index.js';
import { parseArgs, type LocalBinary } from './local-binary.js';
import type { LocalProvider } from './providers.js';

/** The same steps as runIbmCloudProvider, up to (not including) runUntilSignal. */
export const ibmCloudProviderBinary: LocalBinary = {
  name: COMPONENT,
  script: 'cmd/machine-api-provider-ibmcloud.ts',
  async prepare(args, opts) {
    const program = parseArgs(buildProgram(opts.env), args);
    const flags = readStandardFlags(program);
    const { manager, client, logger } = await managerFromFlags(flags, COMPONENT, { logStream: opts.logStream });
    const endpoints = endpointsOf(program.opts(), await ibmEndpointsFromInfrastructure(client, logger));
    wireIbmCloudProvider(manager, client, { endpoints, ...providerControllerFlags(program, flags) }, new RealClock());
    return { manager, close: () => {} };
  },
};

export const ibmCloudLocalProvider: LocalProvider = {
  name: 'ibmcloud',
  samplesDir: 'ibmcloud',
  binary: ibmCloudProviderBinary,
  infrastructure: (cloud) => ({
    clusterName: 'local',
    platformStatus: {
      type: 'IBMCloud',
      ibmcloud: { location: cloud.region, resourceGroupName: 'local', providerType: 'VPC' },
    },
  }),
  // The emulator serves IAM, Resource Manager and Global Tagging beside the VPC API.
  cloudArgs: (cloud) => {
    const iam = cloud.extraEndpoints?.iamEndpoint ?? '';
    return [
      `--ibmcloud-vpc-endpoint=${cloud.endpoint}`,
      `--ibmcloud-iam-endpoint=${iam}`,
      `--ibmcloud-resource-manager-endpoint=${iam}`,
      `--ibmcloud-global-tagging-endpoint=${iam}`,
    ];
  },
  async startEmulator(s) {
    const emu = await startIbmVpcEmulator({
      region: 'us-south',
      clusterId: 'local',
      dataDir: s.dataDir,
      port: s.port,
      timings: { bootMs: s.bootDelayMs, deleteMs: s.terminateDelayMs, stopMs: s.terminateDelayMs },
      knobs: s.latencyMs > 0 ? { latency: [{ latency: s.latencyMs }] } : undefined,
      logger: s.logger,
    });
    return {
      endpoint: emu.endpoint,
      region: emu.region,
      extraEndpoints: { iamEndpoint: emu.iamEndpoint },
      adminRoutes: emu.adminRoutes,
      instanceView: () => emu.instanceView(),
      actionCounts: () =>
        Object.fromEntries(Object.entries(emu.knobs.allCounts()).map(([action, c]) => [action, c.total])),
      stop: () => emu.stop(),
    };
  },
};
