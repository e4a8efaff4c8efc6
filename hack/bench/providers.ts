// The clouds the benchmark and the chaos runs can drive: per cloud, how to start its emulator, which provider
// binary runs against it (and with which flags), the Secrets and the worker providerSpec the MachineSets use,
// which emulator actions count as "create" and "describe", and the request buckets of the throttled scenario.
import type { CloudRateLimits, Secret } from '../../lib/index.js';
import type { EmulatorKnobs, InstanceView } from '../../sim/kit/index.js';
import { startEc2Emulator } from '../../sim/aws/index.js';
import { DEFAULT_EC2_RATE_LIMITS, MACHINE_UID_TAG } from '../../providers/aws/index.js';
import { DEFAULT_GCE_RATE_LIMITS } from '../../providers/gcp/index.js';
import { DEFAULT_IBM_RATE_LIMITS } from '../../providers/ibmcloud/index.js';
import { DEFAULT_PROJECT, startGceEmulator } from '../../sim/gcp/index.js';
import { startIbmVpcEmulator } from '../../sim/ibmcloud/index.js';
import { benchAccessKey, benchServiceAccountKey, SECRET_VALUES } from './planted-secrets.js';
import { addAwsLoadBalancer, addGcpTargetPool, type BenchLoadBalancer } from './load-balancers.js';

export const PROVIDER_NAMES = ['aws', 'gcp', 'ibmcloud'] as const;
export type ProviderName = (typeof PROVIDER_NAMES)[number];

export { SECRET_VALUES };

export interface Bucket {
  /** An action name or class ("describe", "mutate", "read"), as the emulator kit matches them. */
  match: string;
  burst: number;
  ratePerSecond: number;
  perAction: boolean;
}

/** An instance the cloud still runs (not deleted or being deleted), in the shape the invariants read. */
export interface LiveInstance {
  instanceId: string;
  state: string;
  tags: Array<{ key: string; value: string }>;
  /** The instance name where the cloud names instances after their Machine (GCE, IBM VPC). */
  machineName?: string;
}

export interface BenchCloud {
  readonly endpoint: string;
  /** More endpoints the provider binary is pointed at (IBM Cloud's IAM, Resource Manager, Global Tagging). */
  readonly extraEndpoints?: Readonly<Record<string, string>>;
  readonly knobs: EmulatorKnobs;
  instanceView(): InstanceView;
  liveInstances(): LiveInstance[];
  /** Deletes the instance as someone at the console would (no API call counted). */
  terminateOutOfBand(instanceId: string): void;
  /**
   * While set, every launch is refused with the cloud's own capacity or quota answer (EC2
   * InsufficientInstanceCapacity, GCE ZONE_RESOURCE_POOL_EXHAUSTED in the insert operation, VPC over_quota).
   * setTypeCapacity turns one instance type's capacity off or on in every zone and market (the stock-out scenario).
   */
  refuseLaunches(refused: boolean): void;
  /** While set, the cloud does not know the Secret's key (AuthFailure, 401, BXNIM0415E), as after a revocation. */
  revokeKey(revoked: boolean): void;
  setTypeCapacity(instanceType: string, available: boolean): void;
  /** Creates the chaos load balancer in the world; undefined when the cloud's provider registers with none. */
  addLoadBalancer(): BenchLoadBalancer | undefined;
  stop(): Promise<void>;
}

export interface BenchCloudOptions {
  clusterId: string;
  seed: number;
  bootDelayMs: number;
  latencyMs: number;
}

export interface BenchProvider {
  name: ProviderName;
  /** The provider binary, as its Deployment container name and script. */
  binary: { name: string; script: string };
  /** Goes in the MachineSets' cluster label and names the emulator's seeded network. */
  clusterId: string;
  /** Prefix of the cloud-call metric keys ("ec2CallsPerMachine") and the label in target names. */
  metricPrefix: string;
  cloudLabel: string;
  /** Actions that create / read an instance, for the per-machine create and describe metrics. */
  createActions: string[];
  describeActions: string[];
  /** The delete action (chaos: lost replies). */
  deleteAction: string;
  /** Chaos fault name of refuseLaunches, in the cloud's words. */
  capacityFault: string;
  /** Whether scenarios report the create/describe metrics (AWS keeps its established output). */
  reportActionClasses: boolean;
  /** Throttled scenario buckets (full size; --quick uses a tenth of each burst). */
  buckets: Bucket[];
  /** The controller's own client-side request limits (its defaults): how long it needs to rest before a scenario. */
  clientLimits: CloudRateLimits;
  startEmulator(o: BenchCloudOptions): Promise<BenchCloud>;
  cloudArgs(cloud: BenchCloud): string[];
  secrets(namespace: string): Secret[];
  providerSpec(): Record<string, unknown>;
}

const userDataSecret = (namespace: string): Secret => ({
  apiVersion: 'v1',
  kind: 'Secret',
  metadata: { name: 'worker-user-data', namespace },
  type: 'Opaque',
  stringData: {
    userData: `{"ignition":{"version":"3.2.0"},"token":"${SECRET_VALUES.userData}"}`,
    disableTemplating: 'true',
  },
});

const gone = new Set(['terminated', 'terminating']);

/** Instances from the emulator's instance view, named by the last segment of their providerID. */
function viewInstances(view: InstanceView): LiveInstance[] {
  return view
    .listInstances()
    .filter((i) => !gone.has(i.state))
    .map((i) => {
      const name = i.providerID.split('/').pop() ?? i.providerID;
      return { instanceId: name, state: i.state, tags: [], machineName: name };
    });
}
const AWS_CLUSTER = 'bench';
const AWS_INSTANCE_TYPE = 'm6i.xlarge';
export const awsBench: BenchProvider = {
  name: 'aws',
  binary: { name: 'machine-api-provider-aws', script: 'cmd/machine-api-provider-aws.ts' },
  clusterId: AWS_CLUSTER,
  metricPrefix: 'ec2',
  cloudLabel: 'EC2',
  createActions: ['RunInstances'],
  describeActions: ['DescribeInstances'],
  deleteAction: 'TerminateInstances',
  capacityFault: 'ec2-insufficient-instance-capacity',
  reportActionClasses: false,
  // EC2's documented request buckets (per API: non-mutating 100 refilling 20/s, mutating 200 refilling 5/s;
  // RunInstances' resource bucket 1,000 refilling 2/s, one token per instance).
  clientLimits: DEFAULT_EC2_RATE_LIMITS,
  buckets: [
    { match: 'describe', burst: 100, ratePerSecond: 20, perAction: true },
    { match: 'mutate', burst: 200, ratePerSecond: 5, perAction: true },
    { match: 'RunInstances', burst: 1000, ratePerSecond: 2, perAction: false },
  ],
  async startEmulator(o) {
    // The planted key is the account's, so the calls are signed with it and the scan can look for it.
    const emu = await startEc2Emulator({
      accessKeys: [benchAccessKey],
      clusterId: o.clusterId,
      seed: o.seed,
      timings: { bootMs: o.bootDelayMs },
      knobs: { latency: [{ latency: o.latencyMs }] },
    });
    return {
      endpoint: emu.endpoint,
      knobs: emu.knobs,
      instanceView: () => emu.instanceView(),
      liveInstances: () => emu.instances().filter((i) => i.state !== 'terminated' && i.state !== 'shutting-down'),
      terminateOutOfBand: (id) => emu.terminateOutOfBand(id),
      refuseLaunches: (refused) => emu.setInsufficientCapacity(AWS_INSTANCE_TYPE, '*', refused),
      revokeKey: (revoked) =>
        revoked ? emu.revokeAccessKey(SECRET_VALUES.accessKeyId) : emu.addAccessKey(benchAccessKey),
      setTypeCapacity: (type, available) => emu.setInsufficientCapacity(type, '*', !available, '*'),
      addLoadBalancer: () => addAwsLoadBalancer(emu),
      stop: () => emu.stop(),
    };
  },
  cloudArgs: (cloud) => [`--aws-endpoint=${cloud.endpoint}`],
  secrets: (namespace) => [
    {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'aws-cloud-credentials', namespace },
      type: 'Opaque',
      stringData: {
        aws_access_key_id: SECRET_VALUES.accessKeyId,
        aws_secret_access_key: SECRET_VALUES.secretAccessKey,
      },
    },
    userDataSecret(namespace),
  ],
  // The providerSpec the installer writes for a worker: subnet and security group by tag filter.
  providerSpec: () => ({
    apiVersion: 'machine.openshift.io/v1beta1',
    kind: 'AWSMachineProviderConfig',
    ami: { id: 'ami-0a1b2c3d4e5f00001' },
    instanceType: AWS_INSTANCE_TYPE,
    blockDevices: [{ ebs: { encrypted: true, iops: 0, kmsKey: { arn: '' }, volumeSize: 120, volumeType: 'gp3' } }],
    credentialsSecret: { name: 'aws-cloud-credentials' },
    deviceIndex: 0,
    iamInstanceProfile: { id: `${AWS_CLUSTER}-worker-profile` },
    metadataServiceOptions: {},
    placement: { availabilityZone: 'us-east-1a', region: 'us-east-1' },
    securityGroups: [{ filters: [{ name: 'tag:Name', values: [`${AWS_CLUSTER}-node`] }] }],
    subnet: { filters: [{ name: 'tag:Name', values: [`${AWS_CLUSTER}-subnet-private-us-east-1a`] }] },
    tags: [{ name: `kubernetes.io/cluster/${AWS_CLUSTER}`, value: 'owned' }],
    userDataSecret: { name: 'worker-user-data' },
  }),
};

const GCP_CLUSTER = 'bench';
const GCP_MACHINE_TYPE = 'n2-standard-4';
const GCP_REGION = 'us-central1';
export const gcpBench: BenchProvider = {
  name: 'gcp',
  binary: { name: 'machine-api-provider-gcp', script: 'cmd/machine-api-provider-gcp.ts' },
  clusterId: GCP_CLUSTER,
  metricPrefix: 'gce',
  cloudLabel: 'GCE',
  createActions: ['instances.insert'],
  describeActions: ['instances.get', 'instances.list', 'instances.aggregatedList'],
  deleteAction: 'instances.delete',
  capacityFault: 'gce-zone-resource-pool-exhausted',
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

const IBM_CLUSTER = 'bench';
export const ibmCloudBench: BenchProvider = {
  name: 'ibmcloud',
  binary: { name: 'machine-api-provider-ibmcloud', script: 'cmd/machine-api-provider-ibmcloud.ts' },
  clusterId: IBM_CLUSTER,
  metricPrefix: 'vpc',
  cloudLabel: 'VPC',
  createActions: ['CreateInstance'],
  describeActions: ['GetInstance', 'ListInstances'],
  deleteAction: 'DeleteInstance',
  capacityFault: 'vpc-over-quota',
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
  providerSpec: () => ({
    apiVersion: 'ibmcloudproviderconfig.openshift.io/v1beta1',
    kind: 'IBMCloudMachineProviderSpec',
    vpc: `${IBM_CLUSTER}-vpc`,
    image: `${IBM_CLUSTER}-rhcos`,
    profile: 'bx2-4x16',
    region: 'us-south',
    zone: 'us-south-1',
    resourceGroup: IBM_CLUSTER,
    primaryNetworkInterface: {
      subnet: `${IBM_CLUSTER}-subnet-compute-us-south-1`,
      securityGroups: [`${IBM_CLUSTER}-sg-cluster-wide`, `${IBM_CLUSTER}-sg-openshift-net`],
    },
    bootVolume: { encryptionKey: '' },
    tags: [],
    credentialsSecret: { name: 'ibmcloud-credentials' },
    userDataSecret: { name: 'worker-user-data' },
  }),
};

export const benchProviders: Record<ProviderName, BenchProvider> = {
  aws: awsBench,
  gcp: gcpBench,
  ibmcloud: ibmCloudBench,
};

export function isProviderName(v: string): v is ProviderName {
  return (PROVIDER_NAMES as readonly string[]).includes(v);
}

export function benchProvider(name: string): BenchProvider {
  if (!isProviderName(name))
    throw new RangeError(`--provider must be one of ${PROVIDER_NAMES.join(', ')}, got ${JSON.stringify(name)}`);
  return benchProviders[name];
}

export { MACHINE_UID_TAG };
