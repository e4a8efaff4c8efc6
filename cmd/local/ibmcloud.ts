// IBM Cloud in the local environment: the VPC emulator (REST/JSON, with IAM, Resource Manager and Global
// Tagging on the same port; persisted world) and the machine-api-provider-ibmcloud binary pointed at it.
import { startIbmVpcEmulator } from '../../sim/ibmcloud/index.js';
import { COMPONENT, buildProgram, prepareIbmCloudProvider } from '../machine-api-provider-ibmcloud.js';
import { parseArgs, type LocalBinary } from './local-binary.js';
import type { LocalProvider } from './providers.js';

/** The binary's own preparation (prepareIbmCloudProvider, as its main() runs it), without runUntilSignal. */
export const ibmCloudProviderBinary: LocalBinary = {
  name: COMPONENT,
  script: 'cmd/machine-api-provider-ibmcloud.ts',
  async prepare(args, opts) {
    const { manager, close } = await prepareIbmCloudProvider(parseArgs(buildProgram(opts.env), args), opts);
    return { manager, close: () => void close() };
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
      instanceView: () => emu.instanceView(),
      adminRoutes: [...emu.adminRoutes, ...emu.capacityAdminRoutes],
      actionCounts: () =>
        Object.fromEntries(Object.entries(emu.knobs.allCounts()).map(([action, c]) => [action, c.total])),
      stop: () => emu.stop(),
    };
  },
};
