// Wire shapes of the IBM Cloud VPC, Resource Manager and Global Tagging calls we make, limited to the fields
// the actuator and the scale-from-zero catalog read or send. Field names are the API's own (snake_case), so a
// response body is used as-is without a mapping layer.

/** A reference to another resource by id (the API also returns crn/href/name on most of them). */
export interface IdRef {
  id: string;
  name?: string;
  crn?: string;
  href?: string;
}

export interface NameRef {
  name: string;
  href?: string;
}

export type InstanceStatus =
  'deleting' | 'failed' | 'pending' | 'restarting' | 'running' | 'starting' | 'stopped' | 'stopping';

export interface StatusReason {
  code: string;
  message: string;
  more_info?: string;
}

export interface ReservedIp {
  /** "0.0.0.0" until the address is allocated. */
  address: string;
  id?: string;
  name?: string;
}

export interface NetworkInterface {
  id: string;
  name?: string;
  primary_ip?: ReservedIp;
  subnet?: IdRef;
  security_groups?: IdRef[];
}

export interface VpcInstance {
  id: string;
  crn: string;
  href?: string;
  name: string;
  status: InstanceStatus;
  status_reasons?: StatusReason[];
  lifecycle_state?: string;
  /** RFC 3339. */
  created_at: string;
  profile: NameRef;
  vcpu?: { architecture: string; count: number; manufacturer?: string };
  /** GiB. */
  memory?: number;
  zone: NameRef;
  vpc: IdRef;
  resource_group: IdRef;
  image?: IdRef;
  primary_network_interface?: NetworkInterface;
  network_interfaces?: NetworkInterface[];
  placement_target?: IdRef;
  dedicated_host?: IdRef;
}

export interface BootVolumePrototype {
  profile: { name: string };
  /** GiB. */
  capacity?: number;
  iops?: number;
  /** Mbps. */
  bandwidth?: number;
  encryption_key?: { crn: string };
}

/** InstancePrototypeInstanceByImage, with the fields the provider sends. */
export interface InstancePrototype {
  name: string;
  image: { id: string };
  profile: { name: string };
  zone: { name: string };
  resource_group: { id: string };
  vpc: { id: string };
  primary_network_interface: { subnet: { id: string }; security_groups?: { id: string }[]; name?: string };
  user_data?: string;
  boot_volume_attachment?: { volume: BootVolumePrototype; delete_volume_on_instance_delete?: boolean };
  placement_target?: { id: string };
}

/** A profile property that is either a single value or (for flexible profiles) a range/enum; we read fixed ones. */
export interface ProfileValue {
  type: string;
  value?: number;
  default?: number;
  min?: number;
  max?: number;
  values?: number[];
}

export interface InstanceProfile {
  name: string;
  href?: string;
  family?: string;
  status?: string;
  vcpu_count: ProfileValue;
  /** GiB. */
  memory: ProfileValue;
  gpu_count?: ProfileValue;
  gpu_manufacturer?: { type: string; values: string[] };
  gpu_model?: { type: string; values: string[] };
  gpu_memory?: ProfileValue;
  vcpu_architecture: { type: string; value: string };
  vcpu_manufacturer?: { type: string; value: string };
  os_architecture: { type: string; default: string; values: string[] };
}

export interface Region {
  name: string;
  /** e.g. "https://us-south.iaas.cloud.ibm.com"; the VPC service URL is this plus "/v1". */
  endpoint: string;
  href?: string;
  status: string;
}

export interface Vpc {
  id: string;
  crn: string;
  name: string;
  status?: string;
  resource_group: IdRef;
}

export interface Image {
  id: string;
  crn: string;
  name: string;
  status: string;
  visibility: string;
  resource_group?: IdRef;
  operating_system?: { name: string; architecture: string };
  minimum_provisioned_size?: number;
}

export interface Subnet {
  id: string;
  crn: string;
  name: string;
  vpc: IdRef;
  zone: NameRef;
  resource_group: IdRef;
  ipv4_cidr_block?: string;
  status?: string;
}

export interface SecurityGroup {
  id: string;
  crn: string;
  name: string;
  vpc: IdRef;
  resource_group: IdRef;
}

export interface DedicatedHost {
  id: string;
  crn: string;
  name: string;
  zone: NameRef;
  resource_group: IdRef;
  state?: string;
  lifecycle_state?: string;
  instance_placement_enabled?: boolean;
  supported_instance_profiles?: NameRef[];
}

/** Resource Manager v2 resource group. */
export interface ResourceGroup {
  id: string;
  crn?: string;
  account_id: string;
  name: string;
  state: string;
  default: boolean;
}

/** One resource's outcome of a Global Tagging attach call. */
export interface TagResult {
  resource_id: string;
  is_error?: boolean;
  message?: string;
}

// ---- list filters (API query parameters, named for the caller) ---------------------------------------------

export interface InstanceFilter {
  name?: string;
  vpcId?: string;
  vpcName?: string;
  resourceGroupId?: string;
}

export interface ResourceGroupFilter {
  resourceGroupId?: string;
}

export interface ImageFilter extends ResourceGroupFilter {
  name?: string;
  /** "private" for custom images (the provider only uses private ones). */
  visibility?: 'private' | 'public';
}

export interface SubnetFilter extends ResourceGroupFilter {
  vpcId?: string;
  zoneName?: string;
}

export interface SecurityGroupFilter extends ResourceGroupFilter {
  vpcId?: string;
}

export interface DedicatedHostFilter extends ResourceGroupFilter {
  zoneName?: string;
  name?: string;
}

export interface ResourceGroupLookup {
  accountId?: string;
  name?: string;
}
