// The emulated account as plain JSON-able records (so it can be saved and restored as-is). API responses are
// rendered from these records (render.ts); `seq` orders every collection and backs the paging tokens.
import type { InstanceStatus } from '../../providers/ibmcloud/vpc-types.js';

export interface ResourceGroupRec {
  id: string;
  name: string;
  default: boolean;
  seq: number;
}

export interface VpcRec {
  id: string;
  name: string;
  resourceGroupId: string;
  createdAt: number;
  seq: number;
}

export interface SubnetRec {
  id: string;
  name: string;
  vpcId: string;
  zone: string;
  resourceGroupId: string;
  /** e.g. "10.240.0.0/24". */
  cidr: string;
  /** The next host number handed out to an instance (the first four addresses are reserved by IBM). */
  nextHost: number;
  seq: number;
}

export interface SecurityGroupRec {
  id: string;
  name: string;
  vpcId: string;
  resourceGroupId: string;
  seq: number;
}

export interface ImageRec {
  id: string;
  name: string;
  visibility: 'private' | 'public';
  /** Unset for public (stock) images. */
  resourceGroupId?: string;
  architecture: 'amd64' | 's390x';
  osName: string;
  status: 'available' | 'deprecated' | 'pending' | 'failed';
  minimumProvisionedSize: number;
  seq: number;
}

export interface DedicatedHostRec {
  id: string;
  name: string;
  zone: string;
  resourceGroupId: string;
  supportedProfiles: string[];
  instancePlacementEnabled: boolean;
  seq: number;
}

export interface ProfileRec {
  name: string;
  family: 'balanced' | 'compute' | 'memory' | 'gpu';
  vcpu: number;
  /** GiB. */
  memory: number;
  architecture: 'amd64' | 's390x';
  vcpuManufacturer: 'intel' | 'amd' | 'ibm';
  gpu?: { count: number; manufacturer: string; model: string; memoryGiB: number };
  /** Gbps of network bandwidth. */
  bandwidthGbps: number;
  seq: number;
}

export interface BootVolumeRec {
  profile: string;
  capacity: number;
  iops?: number;
  bandwidth?: number;
  encryptionKeyCrn?: string;
}

/** Where an instance goes next and when; "gone" removes it. */
export interface TransitionRec {
  to: InstanceStatus | 'gone';
  at: number;
}

export interface InstanceRec {
  id: string;
  name: string;
  status: InstanceStatus;
  statusReasons: { code: string; message: string }[];
  createdAt: number;
  profile: string;
  zone: string;
  vpcId: string;
  resourceGroupId: string;
  imageId: string;
  subnetId: string;
  securityGroupIds: string[];
  nicId: string;
  /** Allocated when the instance enters `starting`; "0.0.0.0" before, as the real VPC reports it. */
  ip: string;
  userData: string;
  bootVolume: BootVolumeRec;
  dedicatedHostId?: string;
  transition?: TransitionRec;
  seq: number;
}

export interface IbmWorld {
  region: string;
  zones: string[];
  accountId: string;
  /** The infrastructure name: the cluster-ID label of the Machines, part of every providerID. */
  clusterId: string;
  /** Next value of `seq`. */
  nextSeq: number;
  /** Signs the IAM tokens this emulator issues, so a restarted emulator still honours them. */
  tokenSecret: string;
  resourceGroups: ResourceGroupRec[];
  vpcs: VpcRec[];
  subnets: SubnetRec[];
  securityGroups: SecurityGroupRec[];
  images: ImageRec[];
  dedicatedHosts: DedicatedHostRec[];
  profiles: ProfileRec[];
  instances: InstanceRec[];
  /** User tags by resource CRN. */
  tags: Record<string, string[]>;
}
