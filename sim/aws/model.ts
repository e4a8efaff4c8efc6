// The emulated EC2/ELB world: seed resources and the instances, hosts and registrations calls create.

export interface Tag {
  key: string;
  value: string;
}

export type InstanceStateName = 'pending' | 'running' | 'shutting-down' | 'terminated' | 'stopping' | 'stopped';

export const INSTANCE_STATE_CODES: Record<InstanceStateName, number> = {
  pending: 0,
  running: 16,
  'shutting-down': 32,
  terminated: 48,
  stopping: 64,
  stopped: 80,
};

export type Architecture = 'x86_64' | 'arm64' | 'i386';

export interface InstanceTypeSpec {
  instanceType: string;
  vCpus: number;
  memoryMiB: number;
  architectures: Architecture[];
  gpus?: { name: string; manufacturer: string; count: number; memoryMiB: number }[];
  currentGeneration: boolean;
  /** On-demand USD per hour, used to derive the emulated spot price. */
  onDemandPrice: number;
}

export interface AvailabilityZone {
  zoneName: string;
  zoneId: string;
  zoneType: 'availability-zone' | 'local-zone' | 'wavelength-zone';
  optInStatus: 'opt-in-not-required' | 'opted-in' | 'not-opted-in';
  groupName: string;
  networkBorderGroup: string;
  parentZoneName?: string;
  parentZoneId?: string;
}

export interface Vpc {
  vpcId: string;
  cidrBlock: string;
  ipv6CidrBlock?: string;
  dhcpOptionsId: string;
  isDefault: boolean;
  tags: Tag[];
}

export interface DhcpOptions {
  dhcpOptionsId: string;
  configurations: { key: string; values: string[] }[];
  tags: Tag[];
}

export interface Subnet {
  subnetId: string;
  vpcId: string;
  availabilityZone: string;
  cidrBlock: string;
  /** A /64, e.g. "2600:1f18:1234:5601::/64". */
  ipv6CidrBlock?: string;
  mapPublicIpOnLaunch: boolean;
  assignIpv6AddressOnCreation: boolean;
  tags: Tag[];
}

export interface SecurityGroup {
  groupId: string;
  groupName: string;
  description: string;
  vpcId: string;
  tags: Tag[];
}

export interface Image {
  imageId: string;
  name: string;
  description: string;
  ownerId: string;
  architecture: Architecture;
  rootDeviceName: string;
  rootVolumeSizeGiB: number;
  snapshotId: string;
  creationDate: string;
  state: 'available' | 'pending' | 'failed' | 'deregistered';
  isPublic: boolean;
  tags: Tag[];
}

export interface Region {
  regionName: string;
  optInStatus: 'opt-in-not-required' | 'opted-in' | 'not-opted-in';
}

export interface ClassicLoadBalancer {
  name: string;
  dnsName: string;
  vpcId: string;
  subnets: string[];
  securityGroups: string[];
  scheme: 'internet-facing' | 'internal';
  createdTime: string;
  instances: string[];
}

export interface LoadBalancerV2 {
  arn: string;
  name: string;
  type: 'network' | 'application' | 'gateway';
  scheme: 'internet-facing' | 'internal';
  vpcId: string;
  dnsName: string;
  subnets: string[];
  createdTime: string;
}

export interface TargetGroup {
  arn: string;
  name: string;
  protocol: string;
  port: number;
  vpcId: string;
  targetType: 'instance' | 'ip' | 'lambda' | 'alb';
  loadBalancerArns: string[];
  targets: { id: string; port: number; availabilityZone?: string }[];
}

export interface DedicatedHost {
  hostId: string;
  instanceType: string;
  availabilityZone: string;
  autoPlacement: 'on' | 'off';
  state: 'available' | 'released';
  allocationTime: string;
  releaseTime?: string;
  clientToken?: string;
  tags: Tag[];
}

export interface BlockDevice {
  deviceName: string;
  volumeId: string;
  volumeSizeGiB: number;
  volumeType: string;
  encrypted: boolean;
  deleteOnTermination: boolean;
  iops?: number;
  throughput?: number;
  kmsKeyId?: string;
}

export interface Ec2Instance {
  /** Launch order, used for stable pagination. */
  seq: number;
  instanceId: string;
  reservationId: string;
  ownerId: string;
  imageId: string;
  instanceType: string;
  architecture: Architecture;
  keyName?: string;
  launchTime: number;
  state: InstanceStateName;
  stateTransitionReason: string;
  stateReason?: { code: string; message: string };
  /** A transition due at a clock time (pending→running, stopping→stopped, shutting-down→terminated). */
  transition?: { to: InstanceStateName; at: number };
  /** When a terminated instance disappears from DescribeInstances. */
  expiresAt?: number;
  /**
   * A Spot interruption EC2 has announced: the instance metadata carries the notice from `noticeAt`, and the
   * instance is terminated (or stopped, per its interruption behaviour) at `reclaimAt`.
   */
  spotInterruption?: { action: 'terminate' | 'stop' | 'hibernate'; noticeAt: number; reclaimAt: number };
  availabilityZone: string;
  tenancy: 'default' | 'dedicated' | 'host';
  hostId?: string;
  affinity?: string;
  placementGroupName?: string;
  partitionNumber?: number;
  subnetId: string;
  vpcId: string;
  privateIpAddress: string;
  privateDnsName: string;
  publicIpAddress?: string;
  publicDnsName?: string;
  carrierIp?: string;
  /** Whether a public (or carrier) IP is (re)assigned on every start. */
  wantsPublicIp: boolean;
  wantsCarrierIp: boolean;
  ipv6Addresses: string[];
  networkInterfaceId: string;
  macAddress: string;
  interfaceType: string;
  securityGroups: { groupId: string; groupName: string }[];
  tags: Tag[];
  volumeTags: Tag[];
  iamInstanceProfile?: { arn: string; id: string };
  /** Base64 as received; never logged or rendered. */
  userData?: string;
  lifecycle?: 'spot';
  spotInstanceRequestId?: string;
  spotInterruptionBehavior?: 'terminate' | 'stop' | 'hibernate';
  blockDevices: BlockDevice[];
  rootDeviceName: string;
  metadataOptions: {
    httpTokens: string;
    httpProtocolIpv6: string;
    httpEndpoint: string;
    httpPutResponseHopLimit: number;
  };
  privateDnsNameOptions: {
    hostnameType: string;
    enableResourceNameDnsARecord: boolean;
    enableResourceNameDnsAAAARecord: boolean;
  };
  capacityReservationId?: string;
  amdSevSnp?: string;
  clientToken?: string;
  /** What an OS-initiated shutdown does (EC2 default: stop). */
  shutdownBehavior: 'stop' | 'terminate';
  /** DisableApiTermination: TerminateInstances answers OperationNotPermitted. */
  terminationProtected: boolean;
}

export interface ClientTokenRecord {
  fingerprint: string;
  reservationId: string;
  instanceIds: string[];
}

/** Everything the emulator knows; persisted as JSON when a dataDir is given. */
export interface Ec2World {
  region: string;
  accountId: string;
  availabilityZones: AvailabilityZone[];
  vpcs: Vpc[];
  dhcpOptions: DhcpOptions[];
  subnets: Subnet[];
  securityGroups: SecurityGroup[];
  images: Image[];
  instanceTypes: InstanceTypeSpec[];
  regions: Region[];
  /** When set, RunInstances rejects other key names (InvalidKeyPair.NotFound); unset accepts any. */
  keyPairs?: string[];
  /** When set, RunInstances rejects other profile names; unset accepts any. */
  iamInstanceProfiles?: string[];
  classicLoadBalancers: ClassicLoadBalancer[];
  loadBalancers: LoadBalancerV2[];
  targetGroups: TargetGroup[];
  hosts: DedicatedHost[];
  instances: Ec2Instance[];
  clientTokens: Record<string, ClientTokenRecord>;
  nextSeq: number;
}
