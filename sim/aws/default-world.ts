// The seed an emulator starts from: one VPC shaped like an OpenShift installer's (private and public subnets
// per zone, a wavelength and a local zone, installer-named security groups, RHCOS AMIs for both
// architectures, network load balancers with ip and instance target groups).
import { DEFAULT_INSTANCE_TYPES } from './instance-type-table.js';
import type { AvailabilityZone, Ec2World, Region, Subnet, Tag } from './model.js';

export interface DefaultWorldOptions {
  region: string;
  /** The infrastructure name used in resource names and the kubernetes.io/cluster/<id> tag. */
  clusterId?: string;
  accountId?: string;
}

/**
 * Types no zone has capacity for until a test turns it on: what an account without capacity reservations
 * sees for the largest GPU types.
 */
export const DEFAULT_EXHAUSTED_INSTANCE_TYPES: readonly string[] = ['p5.48xlarge'];

export const DEFAULT_CLUSTER_ID = 'test-cluster';
export const DEFAULT_ACCOUNT_ID = '123456789012';

/** "us-east-1" → "use1", the prefix of zone ids. */
function regionShortName(region: string): string {
  const [geo = 'xx', dir = 'x', num = '1'] = region.split('-');
  return `${geo}${dir.charAt(0)}${num}`;
}

/** The DHCP domain EC2 gives a VPC: ec2.internal in us-east-1, <region>.compute.internal elsewhere. */
export function internalDomain(region: string): string {
  return region === 'us-east-1' ? 'ec2.internal' : `${region}.compute.internal`;
}

const regionsWith = (optInStatus: Region['optInStatus'], names: readonly string[]): Region[] =>
  names.map((regionName) => ({ regionName, optInStatus }));

/** Most regions need no opt-in; of the opt-in ones, the account has opted into one and not into two. */
const REGIONS: Region[] = [
  ...regionsWith('opt-in-not-required', [
    'us-east-1',
    'us-east-2',
    'us-west-1',
    'us-west-2',
    'ca-central-1',
    'eu-west-1',
    'eu-central-1',
    'ap-northeast-1',
    'ap-southeast-1',
  ]),
  ...regionsWith('opted-in', ['me-south-1']),
  ...regionsWith('not-opted-in', ['af-south-1', 'ap-east-1']),
];

export function defaultWorld(opts: DefaultWorldOptions): Ec2World {
  const region = opts.region;
  const cluster = opts.clusterId ?? DEFAULT_CLUSTER_ID;
  const account = opts.accountId ?? DEFAULT_ACCOUNT_ID;
  const short = regionShortName(region);
  const owned: Tag = { key: `kubernetes.io/cluster/${cluster}`, value: 'owned' };
  const name = (value: string): Tag => ({ key: 'Name', value });
  const vpcId = 'vpc-0e1a2b3c4d5e6f701';
  const letters = ['a', 'b', 'c'] as const;
  const wavelength = `${region}-wl1-bos-wlz-1`;
  const localZone = `${region}-bos-1a`;

  const zones: AvailabilityZone[] = letters.map((l, i) => ({
    zoneName: `${region}${l}`,
    zoneId: `${short}-az${i + 1}`,
    zoneType: 'availability-zone',
    optInStatus: 'opt-in-not-required',
    groupName: region,
    networkBorderGroup: region,
  }));
  zones.push(
    {
      zoneName: wavelength,
      zoneId: `${short}-wl1-bos-wlz1`,
      zoneType: 'wavelength-zone',
      optInStatus: 'opted-in',
      groupName: `${region}-wl1`,
      networkBorderGroup: wavelength,
      parentZoneName: `${region}a`,
      parentZoneId: `${short}-az1`,
    },
    {
      zoneName: localZone,
      zoneId: `${short}-bos1-az1`,
      zoneType: 'local-zone',
      optInStatus: 'opted-in',
      groupName: `${region}-bos-1`,
      networkBorderGroup: `${region}-bos-1`,
      parentZoneName: `${region}a`,
      parentZoneId: `${short}-az1`,
    },
  );

  // A private and a public subnet per zone, tagged for internal and internet-facing load balancers.
  const tiers = [
    {
      tier: 'private',
      idLetter: 'a',
      cidr: (n: number) => `10.0.${16 * n}.0/20`,
      ipv6Digit: 0,
      isPublic: false,
      role: 'kubernetes.io/role/internal-elb',
    },
    {
      tier: 'public',
      idLetter: 'b',
      cidr: (n: number) => `10.0.${100 + n}.0/24`,
      ipv6Digit: 1,
      isPublic: true,
      role: 'kubernetes.io/role/elb',
    },
  ];
  const subnets: Subnet[] = tiers.flatMap((t) =>
    letters.map((l, i) => {
      const az = `${region}${l}`;
      return {
        subnetId: `subnet-0a1b2c3d4e5f0${t.idLetter}00${i + 1}`,
        vpcId,
        availabilityZone: az,
        cidrBlock: t.cidr(i + 1),
        ipv6CidrBlock: `2600:1f18:4a3b:5c${t.ipv6Digit}${i + 1}::/64`,
        mapPublicIpOnLaunch: t.isPublic,
        assignIpv6AddressOnCreation: false,
        tags: [name(`${cluster}-subnet-${t.tier}-${az}`), owned, { key: t.role, value: '1' }],
      };
    }),
  );
  subnets.push(
    {
      subnetId: 'subnet-0a1b2c3d4e5f0c001',
      vpcId,
      availabilityZone: wavelength,
      cidrBlock: '10.0.200.0/24',
      mapPublicIpOnLaunch: false,
      assignIpv6AddressOnCreation: false,
      tags: [name(`${cluster}-subnet-public-${wavelength}`), owned],
    },
    {
      subnetId: 'subnet-0a1b2c3d4e5f0d001',
      vpcId,
      availabilityZone: localZone,
      cidrBlock: '10.0.210.0/24',
      mapPublicIpOnLaunch: false,
      assignIpv6AddressOnCreation: false,
      tags: [name(`${cluster}-subnet-private-${localZone}`), owned],
    },
  );

  const sg = (n: number, groupName: string, description: string, tagged = true) => ({
    groupId: `sg-0a1b2c3d4e5f0000${n}`,
    groupName,
    description,
    vpcId,
    tags: tagged ? [name(groupName), owned] : [],
  });
  const nlbArn = (n: string, id: string) =>
    `arn:aws:elasticloadbalancing:${region}:${account}:loadbalancer/net/${n}/${id}`;
  const tgArn = (n: string, id: string) => `arn:aws:elasticloadbalancing:${region}:${account}:targetgroup/${n}/${id}`;
  const intArn = nlbArn(`${cluster}-int`, '0a1b2c3d4e5f6071');
  const extArn = nlbArn(`${cluster}-ext`, '0a1b2c3d4e5f6072');
  const ingressArn = nlbArn(`${cluster}-ingress`, '0a1b2c3d4e5f6073');
  const created = '2026-01-01T00:00:00.000Z';
  const privateSubnets = subnets.slice(0, 3).map((s) => s.subnetId);
  const publicSubnets = subnets.slice(3, 6).map((s) => s.subnetId);

  return {
    region,
    accountId: account,
    availabilityZones: zones,
    vpcs: [
      {
        vpcId,
        cidrBlock: '10.0.0.0/16',
        ipv6CidrBlock: '2600:1f18:4a3b:5c00::/56',
        dhcpOptionsId: 'dopt-0e1a2b3c4d5e6f701',
        isDefault: false,
        tags: [name(`${cluster}-vpc`), owned],
      },
    ],
    dhcpOptions: [
      {
        dhcpOptionsId: 'dopt-0e1a2b3c4d5e6f701',
        configurations: [
          { key: 'domain-name', values: [internalDomain(region)] },
          { key: 'domain-name-servers', values: ['AmazonProvidedDNS'] },
        ],
        tags: [name(`${cluster}-dhcp-options`)],
      },
    ],
    subnets,
    securityGroups: [
      sg(0, 'default', 'default VPC security group', false),
      sg(1, `${cluster}-node`, 'Cluster node security group'),
      sg(2, `${cluster}-controlplane`, 'Control plane security group'),
      sg(3, `${cluster}-lb`, 'Load balancer security group'),
      sg(4, `${cluster}-worker-sg`, 'Worker security group (pre-4.16 installer name)'),
      sg(5, `${cluster}-master-sg`, 'Master security group (pre-4.16 installer name)'),
    ],
    images: [
      {
        imageId: 'ami-0a1b2c3d4e5f00001',
        name: 'rhcos-418.94.202410090804-0-x86_64',
        description: 'Red Hat Enterprise Linux CoreOS 418.94.202410090804-0 (x86_64)',
        ownerId: '531415883065',
        architecture: 'x86_64',
        rootDeviceName: '/dev/xvda',
        rootVolumeSizeGiB: 16,
        snapshotId: 'snap-0a1b2c3d4e5f00001',
        creationDate: '2024-10-09T12:41:07.000Z',
        state: 'available',
        isPublic: true,
        tags: [],
      },
      {
        imageId: 'ami-0a1b2c3d4e5f00002',
        name: 'rhcos-418.94.202410090804-0-aarch64',
        description: 'Red Hat Enterprise Linux CoreOS 418.94.202410090804-0 (aarch64)',
        ownerId: '531415883065',
        architecture: 'arm64',
        rootDeviceName: '/dev/xvda',
        rootVolumeSizeGiB: 16,
        snapshotId: 'snap-0a1b2c3d4e5f00002',
        creationDate: '2024-10-09T12:45:51.000Z',
        state: 'available',
        isPublic: true,
        tags: [],
      },
      {
        imageId: 'ami-0a1b2c3d4e5f00003',
        name: 'rhcos-417.94.202407010929-0-x86_64',
        description: 'Red Hat Enterprise Linux CoreOS 417.94.202407010929-0 (x86_64)',
        ownerId: '531415883065',
        architecture: 'x86_64',
        rootDeviceName: '/dev/xvda',
        rootVolumeSizeGiB: 16,
        snapshotId: 'snap-0a1b2c3d4e5f00003',
        creationDate: '2024-07-01T09:29:00.000Z',
        state: 'available',
        isPublic: true,
        tags: [],
      },
      {
        imageId: 'ami-0a1b2c3d4e5f00004',
        name: `${cluster}-custom-worker`,
        description: 'Private image with a /dev/sda1 root device',
        ownerId: account,
        architecture: 'x86_64',
        rootDeviceName: '/dev/sda1',
        rootVolumeSizeGiB: 30,
        snapshotId: 'snap-0a1b2c3d4e5f00004',
        creationDate: '2025-03-15T08:00:00.000Z',
        state: 'available',
        isPublic: false,
        tags: [name(`${cluster}-custom-worker`), owned],
      },
    ],
    instanceTypes: DEFAULT_INSTANCE_TYPES.map((t) => ({
      ...t,
      architectures: [...t.architectures],
      gpus: t.gpus?.map((g) => ({ ...g })),
    })),
    regions: REGIONS.map((r) => ({ ...r })),
    classicLoadBalancers: [
      {
        name: `${cluster}-classic`,
        dnsName: `${cluster}-classic-1234567890.${region}.elb.amazonaws.com`,
        vpcId,
        subnets: publicSubnets,
        securityGroups: ['sg-0a1b2c3d4e5f00003'],
        scheme: 'internet-facing',
        createdTime: created,
        instances: [],
      },
    ],
    loadBalancers: [
      {
        arn: intArn,
        name: `${cluster}-int`,
        type: 'network',
        scheme: 'internal',
        vpcId,
        dnsName: `${cluster}-int-0a1b2c3d4e.elb.${region}.amazonaws.com`,
        subnets: privateSubnets,
        createdTime: created,
      },
      {
        arn: extArn,
        name: `${cluster}-ext`,
        type: 'network',
        scheme: 'internet-facing',
        vpcId,
        dnsName: `${cluster}-ext-0a1b2c3d4f.elb.${region}.amazonaws.com`,
        subnets: publicSubnets,
        createdTime: created,
      },
      {
        arn: ingressArn,
        name: `${cluster}-ingress`,
        type: 'network',
        scheme: 'internet-facing',
        vpcId,
        dnsName: `${cluster}-ingress-0a1b2c3d50.elb.${region}.amazonaws.com`,
        subnets: publicSubnets,
        createdTime: created,
      },
    ],
    targetGroups: [
      {
        arn: tgArn(`${cluster}-aint`, '0b1c2d3e4f506071'),
        name: `${cluster}-aint`,
        protocol: 'TCP',
        port: 6443,
        vpcId,
        targetType: 'ip',
        loadBalancerArns: [intArn],
        targets: [],
      },
      {
        arn: tgArn(`${cluster}-sint`, '0b1c2d3e4f506072'),
        name: `${cluster}-sint`,
        protocol: 'TCP',
        port: 22623,
        vpcId,
        targetType: 'ip',
        loadBalancerArns: [intArn],
        targets: [],
      },
      {
        arn: tgArn(`${cluster}-aext`, '0b1c2d3e4f506073'),
        name: `${cluster}-aext`,
        protocol: 'TCP',
        port: 6443,
        vpcId,
        targetType: 'ip',
        loadBalancerArns: [extArn],
        targets: [],
      },
      {
        arn: tgArn(`${cluster}-ingress-http`, '0b1c2d3e4f506074'),
        name: `${cluster}-ingress-http`,
        protocol: 'TCP',
        port: 80,
        vpcId,
        targetType: 'instance',
        loadBalancerArns: [ingressArn],
        targets: [],
      },
    ],
    hosts: [],
    instances: [],
    clientTokens: {},
    nextSeq: 1,
  };
}
