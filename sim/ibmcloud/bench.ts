// IBM Cloud as the benchmark and the chaos runs drive it: the VPC emulator whose IAM accepts the planted API key,
// the worker providerSpec, EC2-shaped request buckets answered with 429, and its quota answer.
import { DEFAULT_IBM_RATE_LIMITS } from '../../providers/ibmcloud/index.js';
import type { BenchSimulation } from '../kit/bench-cloud.js';
import { SECRET_VALUES, userDataSecret } from '../kit/planted-secrets.js';
import { launchAdoptedIbm } from './bench-adopted.js';
import { startIbmVpcEmulator } from './index.js';

const IBM_CLUSTER = 'bench';
export const ibmCloudBenchSimulation: BenchSimulation = {
  clusterId: IBM_CLUSTER,
  metricPrefix: 'vpc',
  listingPageSize: 100,
  cloudLabel: 'VPC',
  createActions: ['CreateInstance'],
  describeActions: ['GetInstance', 'ListInstances'],
  deleteAction: 'DeleteInstance',
  capacityFault: 'vpc-over-quota',
  stockOutFallback: { typeField: 'profile', fallback: 'bx2-2x8' },
  reportActionClasses: true,
  // The VPC API's limits are not published per action; EC2's bucket shape, answered with 429.
  clientLimits: DEFAULT_IBM_RATE_LIMITS,
  buckets: [
    { match: 'read', burst: 100, ratePerSecond: 20, perAction: true },
    { match: 'mutate', burst: 200, ratePerSecond: 5, perAction: true },
    { match: 'CreateInstance', burst: 1000, ratePerSecond: 2, perAction: false },
  ],
  async startEmulator(o) {
    // The API key the emulator's IAM accepts is the planted secret, so the scan can look for it.
    const emu = await startIbmVpcEmulator({
      region: 'us-south',
      clusterId: o.clusterId,
      seed: o.seed,
      apiKey: SECRET_VALUES.secretAccessKey,
      timings: { bootMs: o.bootDelayMs, deleteMs: 500, stopMs: 500 },
      knobs: { latency: [{ latency: o.latencyMs }] },
    });
    return {
      endpoint: emu.endpoint,
      extraEndpoints: {
        iam: emu.iamEndpoint,
        resourceManager: emu.resourceManagerEndpoint,
        globalTagging: emu.globalTaggingEndpoint,
      },
      knobs: emu.knobs,
      instanceView: () => emu.instanceView(),
      liveInstances: () =>
        emu
          .instances()
          .filter((i) => i.status !== 'deleting')
          .map((i) => ({ instanceId: i.id, state: i.status, tags: [], machineName: i.name })),
      terminateOutOfBand: (id) => emu.terminateOutOfBand(id),
      refuseLaunches: (refused) => emu.setInstanceQuota(refused ? 0 : undefined),
      revokeKey: (revoked) =>
        revoked ? emu.deleteApiKey(SECRET_VALUES.secretAccessKey) : emu.addApiKey(SECRET_VALUES.secretAccessKey),
      setTypeCapacity: (type, available) => emu.setCapacity(type, '*', available),
      // The IBM Cloud provider spec has no load-balancer field; the provider registers with none.
      addLoadBalancer: () => undefined,
      launchAdopted: (machines, spec) =>
        launchAdoptedIbm(
          {
            vpc: emu.endpoint,
            iam: emu.iamEndpoint,
            resourceManager: emu.resourceManagerEndpoint,
            globalTagging: emu.globalTaggingEndpoint,
          },
          SECRET_VALUES.secretAccessKey,
          o.clusterId,
          machines,
          spec,
        ),
      stop: () => emu.stop(),
    };
  },
  cloudArgs: (cloud) => {
    const extra = cloud.extraEndpoints ?? {};
    return [
      `--ibmcloud-vpc-endpoint=${cloud.endpoint}`,
      `--ibmcloud-iam-endpoint=${extra.iam ?? ''}`,
      `--ibmcloud-resource-manager-endpoint=${extra.resourceManager ?? ''}`,
      `--ibmcloud-global-tagging-endpoint=${extra.globalTagging ?? ''}`,
    ];
  },
  secrets: (namespace) => [
    {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'ibmcloud-credentials', namespace },
      type: 'Opaque',
      stringData: { ibmcloud_api_key: SECRET_VALUES.secretAccessKey },
    },
    userDataSecret(namespace),
  ],
  providerSpec: () => workerSpec('us-south-1'),
  // One MachineSet per zone, as the installer makes them: a zone's compute subnet (a /24 here) holds 250 instances.
  zonalProviderSpecs: () => ['us-south-1', 'us-south-2', 'us-south-3'].map(workerSpec),
};

function workerSpec(zone: string): Record<string, unknown> {
  return {
    apiVersion: 'ibmcloudproviderconfig.openshift.io/v1beta1',
    kind: 'IBMCloudMachineProviderSpec',
    vpc: `${IBM_CLUSTER}-vpc`,
    image: `${IBM_CLUSTER}-rhcos`,
    profile: 'bx2-4x16',
    region: 'us-south',
    zone,
    resourceGroup: IBM_CLUSTER,
    primaryNetworkInterface: {
      subnet: `${IBM_CLUSTER}-subnet-compute-${zone}`,
      securityGroups: [`${IBM_CLUSTER}-sg-cluster-wide`, `${IBM_CLUSTER}-sg-openshift-net`],
    },
    bootVolume: { encryptionKey: '' },
    tags: [],
    credentialsSecret: { name: 'ibmcloud-credentials' },
    userDataSecret: { name: 'worker-user-data' },
  };
}
