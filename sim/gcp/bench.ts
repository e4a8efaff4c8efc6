// GCP as the benchmark and the chaos runs drive it: the GCE emulator with a service-account key made for this
// process (the provider signs its calls with it; the scan looks for its private key body and id), the worker
// providerSpec, Compute Engine-shaped request buckets and its stock-out answer.
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { DEFAULT_GCE_RATE_LIMITS } from '../../providers/gcp/index.js';
import { viewInstances, type BenchSimulation } from '../kit/bench-cloud.js';
import { userDataSecret } from '../kit/planted-secrets.js';
import { launchAdoptedGcp } from './bench-adopted.js';
import { addGcpTargetPool } from './chaos-target-pool.js';
import { DEFAULT_PROJECT, startGceEmulator, type ServiceAccountKeyInput } from './index.js';

let benchKey: (ServiceAccountKeyInput & Record<string, string>) | undefined;

/** The service-account key of this bench process (made once): the GCE emulator knows it, the Secret holds it. */
export function benchServiceAccountKey(): ServiceAccountKeyInput & Record<string, string> {
  benchKey ??= {
    type: 'service_account',
    project_id: DEFAULT_PROJECT,
    private_key_id: randomBytes(20).toString('hex'),
    private_key: generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({
      type: 'pkcs8',
      format: 'pem',
    }) as string,
    client_email: `machine-api@${DEFAULT_PROJECT}.iam.gserviceaccount.com`,
    client_id: '100000000000000000001',
    auth_uri: 'https://accounts.google.com/o/oauth2/auth',
    token_uri: 'https://oauth2.googleapis.com/token',
  };
  return benchKey;
}

const GCP_CLUSTER = 'bench';
const GCP_MACHINE_TYPE = 'n2-standard-4';
const GCP_REGION = 'us-central1';
export const gcpBenchSimulation: BenchSimulation = {
  clusterId: GCP_CLUSTER,
  metricPrefix: 'gce',
  listingPageSize: 500,
  cloudLabel: 'GCE',
  createActions: ['instances.insert'],
  describeActions: ['instances.get', 'instances.list', 'instances.aggregatedList'],
  deleteAction: 'instances.delete',
  capacityFault: 'gce-zone-resource-pool-exhausted',
  stockOutFallback: { typeField: 'machineType', fallback: 'e2-standard-4' },
  reportActionClasses: true,
  // Compute Engine meters per project per minute by class; these buckets have EC2's shape (reads cheap,
  // mutations scarce, inserts scarcest) so the scenario is comparable, answered with 403 rateLimitExceeded.
  clientLimits: DEFAULT_GCE_RATE_LIMITS,
  buckets: [
    { match: 'read', burst: 100, ratePerSecond: 20, perAction: true },
    { match: 'mutate', burst: 200, ratePerSecond: 5, perAction: true },
    { match: 'instances.insert', burst: 1000, ratePerSecond: 2, perAction: false },
  ],
  async startEmulator(o) {
    // The emulator seeds <clusterId>-network and <clusterId>-worker-subnet in DEFAULT_PROJECT.
    const emu = await startGceEmulator({
      serviceAccountKeys: [benchServiceAccountKey()],
      project: DEFAULT_PROJECT,
      clusterId: o.clusterId,
      bootDelayMs: o.bootDelayMs,
      stopDelayMs: 500,
      deleteDelayMs: 500,
      knobs: { latency: [{ latency: o.latencyMs }] },
    });
    return {
      endpoint: emu.endpoint,
      knobs: emu.knobs,
      instanceView: () => emu.instanceView(),
      liveInstances: () => viewInstances(emu.instanceView()),
      terminateOutOfBand: (name) => emu.terminateOutOfBand(name),
      refuseLaunches: (refused) => emu.setStockout(GCP_MACHINE_TYPE, '*', refused),
      revokeKey: (revoked) =>
        revoked
          ? emu.deleteServiceAccountKey(benchServiceAccountKey().private_key_id)
          : emu.addServiceAccountKey(benchServiceAccountKey()),
      setTypeCapacity: (type, available) => emu.setStockout(type, '*', !available, '*'),
      addLoadBalancer: () => addGcpTargetPool(emu, DEFAULT_PROJECT, GCP_REGION),
      launchAdopted: (machines, spec) => {
        // Thousands of workers are past the project's default regional quota: their owner had it raised.
        for (const metric of ['INSTANCES', 'CPUS']) emu.setQuotaLimit(GCP_REGION, metric, undefined);
        return launchAdoptedGcp(emu.apiRoot, o.clusterId, machines, spec);
      },
      stop: () => emu.stop(),
    };
  },
  cloudArgs: (cloud) => [`--gcp-endpoint=${cloud.endpoint}`],
  secrets: (namespace) => [
    {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'gcp-cloud-credentials', namespace },
      type: 'Opaque',
      // A key made for this run, which the emulator knows: the provider signs its calls with it (the scan
      // looks for its private key body and id).
      stringData: { 'service_account.json': JSON.stringify(benchServiceAccountKey()) },
    },
    userDataSecret(namespace),
  ],
  providerSpec: () => ({
    apiVersion: 'machine.openshift.io/v1beta1',
    kind: 'GCPMachineProviderSpec',
    credentialsSecret: { name: 'gcp-cloud-credentials' },
    userDataSecret: { name: 'worker-user-data' },
    projectID: DEFAULT_PROJECT,
    region: GCP_REGION,
    zone: 'us-central1-a',
    machineType: GCP_MACHINE_TYPE,
    canIPForward: false,
    deletionProtection: false,
    disks: [
      {
        autoDelete: true,
        boot: true,
        sizeGb: 128,
        type: 'pd-ssd',
        image: 'projects/rhcos-cloud/global/images/rhcos-9-6-20251023-0-gcp-x86-64',
        labels: {},
      },
    ],
    networkInterfaces: [{ network: `${GCP_CLUSTER}-network`, subnetwork: `${GCP_CLUSTER}-worker-subnet` }],
    serviceAccounts: [
      {
        email: `${GCP_CLUSTER}-w@${DEFAULT_PROJECT}.iam.gserviceaccount.com`,
        scopes: ['https://www.googleapis.com/auth/cloud-platform'],
      },
    ],
    tags: [`${GCP_CLUSTER}-worker`],
    labels: {},
    shieldedInstanceConfig: {},
  }),
};
