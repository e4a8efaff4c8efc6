// AWS as the benchmark and the chaos runs drive it: the EC2 emulator signed for with the planted access key, the
// worker providerSpec the installer writes, EC2's request buckets and its capacity answer.
import { DEFAULT_EC2_RATE_LIMITS } from '../../providers/aws/index.js';
import type { BenchSimulation } from '../kit/bench-cloud.js';
import { benchAccessKey, SECRET_VALUES, userDataSecret } from '../kit/planted-secrets.js';
import { launchAdoptedAws } from './bench-adopted.js';
import { addAwsLoadBalancer } from './chaos-load-balancer.js';
import { startEc2Emulator } from './ec2-emulator.js';

const AWS_CLUSTER = 'bench';
const AWS_INSTANCE_TYPE = 'm6i.xlarge';
export const awsBenchSimulation: BenchSimulation = {
  clusterId: AWS_CLUSTER,
  metricPrefix: 'ec2',
  listingPageSize: 1_000,
  cloudLabel: 'EC2',
  createActions: ['RunInstances'],
  describeActions: ['DescribeInstances'],
  deleteAction: 'TerminateInstances',
  capacityFault: 'ec2-insufficient-instance-capacity',
  stockOutFallback: { typeField: 'instanceType', fallback: 'm6a.xlarge' },
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
      launchAdopted: (machines, spec) => launchAdoptedAws(emu.endpoint, emu.region, o.clusterId, machines, spec),
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
  providerSpec: () => workerSpec('us-east-1a'),
  // One MachineSet per zone, as the installer makes them: a zone's /20 private subnet holds 4,091 instances.
  zonalProviderSpecs: () => ['us-east-1a', 'us-east-1b', 'us-east-1c'].map(workerSpec),
};

function workerSpec(zone: string): Record<string, unknown> {
  return {
    apiVersion: 'machine.openshift.io/v1beta1',
    kind: 'AWSMachineProviderConfig',
    ami: { id: 'ami-0a1b2c3d4e5f00001' },
    instanceType: AWS_INSTANCE_TYPE,
    blockDevices: [{ ebs: { encrypted: true, iops: 0, kmsKey: { arn: '' }, volumeSize: 120, volumeType: 'gp3' } }],
    credentialsSecret: { name: 'aws-cloud-credentials' },
    deviceIndex: 0,
    iamInstanceProfile: { id: `${AWS_CLUSTER}-worker-profile` },
    metadataServiceOptions: {},
    placement: { availabilityZone: zone, region: 'us-east-1' },
    securityGroups: [{ filters: [{ name: 'tag:Name', values: [`${AWS_CLUSTER}-node`] }] }],
    subnet: { filters: [{ name: 'tag:Name', values: [`${AWS_CLUSTER}-subnet-private-${zone}`] }] },
    tags: [{ name: `kubernetes.io/cluster/${AWS_CLUSTER}`, value: 'owned' }],
    userDataSecret: { name: 'worker-user-data' },
  };
}
