// IBM Cloud in the local environment: the VPC emulator (REST/JSON, with IAM, Resource Manager and Global
// Tagging on the same port; persisted world) and the machine-api-provider-ibmcloud binary pointed at it.
import { startIbmVpcEmulator } from './index.js';
import { totalActionCounts, type LocalSimulation } from '../kit/local-cloud.js';

export const ibmCloudLocalSimulation: LocalSimulation = {
  samplesDir: 'ibmcloud',
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
      adminRoutes: emu.adminRoutes,
      actionCounts: () => totalActionCounts(emu.knobs.allCounts()),
      stop: () => emu.stop(),
    };
  },
};
