// Pure translation between Machines and EC2: the RunInstances request a Machine asks for, and the Machine
// fields an EC2 instance implies. No I/O here, so every rule is unit-tested directly.
import { createHash } from 'node:crypto';
import type {
  BlockDeviceMapping,
  Instance,
  InstanceMarketOptionsRequest,
  InstanceNetworkInterfaceSpecification,
  Placement as Ec2Placement,
  RunInstancesCommandInput,
  Tag,
} from '@aws-sdk/client-ec2';
import {
  InvalidMachineConfigurationError,
  MachineInterruptibleInstanceLabel,
  placementLabels,
  type Machine,
  type NodeAddress,
  type SizeLimit,
} from '../../lib/index.js';
import { PROVIDER_SPEC_PATH, type AWSMachineProviderConfig, type TagSpecification } from './provider-spec.js';

export const CLUSTER_TAG_PREFIX = 'kubernetes.io/cluster/';
/** Identifies which Machine (by UID) launched an instance, so a reused Machine name never adopts an old instance. */
export const MACHINE_UID_TAG = 'machine.openshift.io/machine-uid';
export const NAME_TAG = 'Name';

/** EC2 takes at most 16 KB of user data, counted before RunInstances base64-encodes it. */
export const EC2_USER_DATA_LIMIT: SizeLimit = {
  maxBytes: 16_384,
  what: 'EC2 user data (counted before base64 encoding)',
};

export type IpFamily = 'IPv4' | 'DualStackIPv4Primary' | 'DualStackIPv6Primary';

/** Everything launching needs that comes from a cloud look-up rather than from the spec. */
export interface ResolvedLaunchInputs {
  imageId: string;
  /** The AMI's root device name; needed only when a block device has no deviceName. */
  rootDeviceName?: string;
  subnetId?: string;
  securityGroupIds: string[];
  /** Zone type of the subnet's AZ when publicIp is set: wavelength zones get a carrier IP. */
  zoneType?: string;
  userData?: Uint8Array;
  /** Infrastructure status.platformStatus.aws.resourceTags. */
  infrastructureTags?: TagSpecification[];
  ipFamily?: IpFamily;
  /** Dynamically allocated dedicated host. */
  dedicatedHostId?: string;
  /** The capacity entry launched (0 = the primary): each entry has its own ClientToken. */
  capacityEntry?: number;
}

export function clusterIdOf(machine: Machine): string {
  const labels = machine.metadata.labels ?? {};
  const id = labels['machine.openshift.io/cluster-api-cluster'] ?? labels['sigs.k8s.io/cluster-api-cluster'];
  if (!id) {
    throw new InvalidMachineConfigurationError(
      `${machine.metadata.name ?? ''}: missing "machine.openshift.io/cluster-api-cluster" label`,
      {
        field: 'metadata.labels[machine.openshift.io/cluster-api-cluster]',
      },
    );
  }
  return id;
}

/**
 * The RunInstances ClientToken: a digest of the Machine UID, so that however often creation is retried
 * (lost reply, controller restart) EC2 returns the one instance it launched first. 64 hex chars, EC2's limit.
 */
/**
 * The Machine's ClientToken for its capacity entry `entry` (0, the primary, keeps the token of Machines without
 * fallbacks). Per entry because EC2 refuses a token replayed with other parameters (another instance type or
 * subnet); a replay of the same entry still returns the instance it made.
 */
export function clientTokenFor(machine: Machine, entry = 0): string {
  const uid = machine.metadata.uid;
  if (!uid)
    throw new Error(`machine ${machine.metadata.name ?? ''} has no UID; cannot derive an idempotent ClientToken`);
  const seed = entry === 0 ? `machine.openshift.io/${uid}` : `machine.openshift.io/${uid}/capacity-entry/${entry}`;
  return createHash('sha256').update(seed).digest('hex');
}

/**
 * Spec tags, then Infrastructure tags, without Name and kubernetes.io/cluster/*; then the cluster ownership
 * tag, Name and the Machine UID. First occurrence of a key wins.
 */
export function buildTags(
  machine: Machine,
  config: AWSMachineProviderConfig,
  clusterId: string,
  infrastructureTags: TagSpecification[] = [],
): Tag[] {
  const out: Tag[] = [];
  const seen = new Set<string>();
  const add = (Key: string, Value: string) => {
    if (seen.has(Key)) return;
    seen.add(Key);
    out.push({ Key, Value });
  };
  for (const t of [...(config.tags ?? []), ...infrastructureTags]) {
    if (t.name === NAME_TAG || t.name.startsWith(CLUSTER_TAG_PREFIX) || t.name === MACHINE_UID_TAG) continue;
    add(t.name, t.value);
  }
  add(`${CLUSTER_TAG_PREFIX}${clusterId}`, 'owned');
  add(NAME_TAG, machine.metadata.name ?? '');
  if (machine.metadata.uid) add(MACHINE_UID_TAG, machine.metadata.uid);
  return out;
}

/** Tags the instance lacks or carries with another value; what Update re-asserts (additively, never deleting). */
export function missingTags(desired: Tag[], actual: Tag[] | undefined): Tag[] {
  const have = new Map((actual ?? []).map((t) => [t.Key, t.Value]));
  return desired.filter((t) => have.get(t.Key) !== t.Value);
}

const IOPS_VOLUME_TYPES = new Set(['io1', 'io2', 'gp3']);

export function buildBlockDeviceMappings(
  config: AWSMachineProviderConfig,
  rootDeviceName: string | undefined,
): BlockDeviceMapping[] | undefined {
  const out: BlockDeviceMapping[] = [];
  for (const [i, bd] of (config.blockDevices ?? []).entries()) {
    const ebs = bd.ebs;
    if (!ebs) continue;
    const deviceName = bd.deviceName ?? rootDeviceName;
    if (!deviceName) {
      throw new InvalidMachineConfigurationError(
        `${PROVIDER_SPEC_PATH}.blockDevices[${i}].deviceName: the AMI has no root device name to use`,
        {
          field: `${PROVIDER_SPEC_PATH}.blockDevices[${i}].deviceName`,
        },
      );
    }
    const kms = ebs.kmsKey?.id || ebs.kmsKey?.arn || undefined;
    out.push({
      DeviceName: deviceName,
      Ebs: {
        VolumeSize: ebs.volumeSize,
        VolumeType: ebs.volumeType as never,
        Encrypted: ebs.encrypted,
        DeleteOnTermination: true,
        Iops:
          ebs.iops !== undefined && ebs.iops > 0 && IOPS_VOLUME_TYPES.has(ebs.volumeType ?? '') ? ebs.iops : undefined,
        Throughput:
          ebs.throughputMib !== undefined && ebs.throughputMib > 0 && ebs.volumeType === 'gp3'
            ? ebs.throughputMib
            : undefined,
        KmsKeyId: kms,
      },
    });
  }
  return out.length > 0 ? out : undefined;
}

export function needsRootDeviceName(config: AWSMachineProviderConfig): boolean {
  return (config.blockDevices ?? []).some((bd) => bd.ebs && !bd.deviceName);
}

export function buildPlacement(config: AWSMachineProviderConfig, dedicatedHostId?: string): Ec2Placement | undefined {
  const p = config.placement;
  if (p.host) {
    return {
      Tenancy: p.tenancy ? (p.tenancy as never) : undefined,
      Affinity: p.host.affinity === 'DedicatedHost' ? 'host' : 'default',
      HostId: dedicatedHostId ?? p.host.dedicatedHost?.id,
    };
  }
  const placement: Ec2Placement = {};
  // With an explicit subnet the subnet fixes the zone; the reference sends the AZ only for filtered subnets.
  if (p.availabilityZone && !config.subnet.id) placement.AvailabilityZone = p.availabilityZone;
  if (config.placementGroupName) {
    placement.GroupName = config.placementGroupName;
    if (config.placementGroupPartition !== undefined) placement.PartitionNumber = config.placementGroupPartition;
  }
  if (p.tenancy) placement.Tenancy = p.tenancy as never;
  return Object.keys(placement).length > 0 ? placement : undefined;
}

export function buildMarketOptions(config: AWSMachineProviderConfig): InstanceMarketOptionsRequest | undefined {
  const market = config.marketType || (config.spotMarketOptions ? 'Spot' : 'OnDemand');
  if (market === 'Spot') {
    return {
      MarketType: 'spot',
      SpotOptions: {
        InstanceInterruptionBehavior: 'terminate',
        SpotInstanceType: 'one-time',
        MaxPrice: config.spotMarketOptions?.maxPrice || undefined,
      },
    };
  }
  if (market === 'CapacityBlock') return { MarketType: 'capacity-block' };
  return undefined;
}

function buildNetworkInterface(
  config: AWSMachineProviderConfig,
  r: ResolvedLaunchInputs,
): InstanceNetworkInterfaceSpecification {
  const nic: InstanceNetworkInterfaceSpecification = {
    DeviceIndex: config.deviceIndex,
    SubnetId: r.subnetId,
    Groups: r.securityGroupIds.length > 0 ? r.securityGroupIds : undefined,
  };
  if (config.publicIp !== undefined) {
    if (r.zoneType === 'wavelength-zone') nic.AssociateCarrierIpAddress = config.publicIp;
    else nic.AssociatePublicIpAddress = config.publicIp;
  }
  if (config.networkInterfaceType === 'ENA') nic.InterfaceType = 'interface';
  if (config.networkInterfaceType === 'EFA') nic.InterfaceType = 'efa';
  if (r.ipFamily === 'DualStackIPv6Primary') {
    nic.PrimaryIpv6 = true;
    nic.Ipv6AddressCount = 1;
  }
  return nic;
}

/** The RunInstances request for a Machine. Never logged: it carries the user data. */
export function buildRunInstancesInput(
  machine: Machine,
  config: AWSMachineProviderConfig,
  clusterId: string,
  r: ResolvedLaunchInputs,
): RunInstancesCommandInput {
  const tags = buildTags(machine, config, clusterId, r.infrastructureTags);
  const dualStack = r.ipFamily === 'DualStackIPv4Primary' || r.ipFamily === 'DualStackIPv6Primary';
  const input: RunInstancesCommandInput = {
    ImageId: r.imageId,
    InstanceType: config.instanceType as never,
    MinCount: 1,
    MaxCount: 1,
    ClientToken: clientTokenFor(machine, r.capacityEntry),
    KeyName: config.keyName || undefined,
    UserData: Buffer.from(r.userData ?? new Uint8Array()).toString('base64'),
    IamInstanceProfile: config.iamInstanceProfile?.id ? { Name: config.iamInstanceProfile.id } : undefined,
    NetworkInterfaces: [buildNetworkInterface(config, r)],
    TagSpecifications: [
      { ResourceType: 'instance', Tags: tags },
      { ResourceType: 'volume', Tags: tags },
    ],
    BlockDeviceMappings: buildBlockDeviceMappings(config, r.rootDeviceName),
    Placement: buildPlacement(config, r.dedicatedHostId),
    InstanceMarketOptions: buildMarketOptions(config),
  };
  const auth = config.metadataServiceOptions.authentication;
  if (auth || dualStack) {
    input.MetadataOptions = {
      HttpTokens: auth === 'Required' ? 'required' : auth === 'Optional' ? 'optional' : undefined,
      HttpProtocolIpv6: dualStack ? 'enabled' : undefined,
    };
  }
  if (dualStack) {
    input.PrivateDnsNameOptions = {
      HostnameType: 'resource-name',
      EnableResourceNameDnsARecord: true,
      EnableResourceNameDnsAAAARecord: true,
    };
  }
  if (config.capacityReservationId) {
    input.CapacityReservationSpecification = {
      CapacityReservationTarget: { CapacityReservationId: config.capacityReservationId },
    };
  }
  const cc = config.cpuOptions?.confidentialCompute;
  if (cc) input.CpuOptions = { AmdSevSnp: cc === 'AMDEncryptedVirtualizationNestedPaging' ? 'enabled' : 'disabled' };
  return input;
}

// ---- readers: instance → Machine fields ----

export const instanceState = (i: Instance): string => i.State?.Name ?? 'unknown';
export const isTerminated = (i: Instance): boolean => instanceState(i) === 'terminated';
/** Still booting: EC2 has not reported it running yet. */
export const isBooting = (i: Instance): boolean => instanceState(i) === 'pending';
/** Gone or going: an instance in these states will never run again. */
export const isGone = (i: Instance): boolean => ['terminated', 'shutting-down'].includes(instanceState(i));

export function providerIdOf(i: Instance): string {
  return `aws:///${i.Placement?.AvailabilityZone ?? ''}/${i.InstanceId ?? ''}`;
}

/** Whether an instance was launched for this Machine (not a predecessor that had the same name). */
export function belongsTo(machine: Machine, i: Instance): boolean {
  const uidTag = i.Tags?.find((t) => t.Key === MACHINE_UID_TAG)?.Value;
  if (i.ClientToken && machine.metadata.uid && i.ClientToken === clientTokenFor(machine)) return true;
  if (uidTag !== undefined) return uidTag === machine.metadata.uid;
  // Launched before UID tagging (e.g. by the reference provider): the Name+cluster match is all we have.
  return true;
}

const launchMs = (i: Instance): number => (i.LaunchTime ? new Date(i.LaunchTime).getTime() : Number.POSITIVE_INFINITY);

/** Oldest first; the instance a Machine keeps when duplicates exist. */
export function sortOldestFirst(instances: Instance[]): Instance[] {
  return [...instances].sort(
    (a, b) => launchMs(a) - launchMs(b) || (a.InstanceId ?? '').localeCompare(b.InstanceId ?? ''),
  );
}

/**
 * The node addresses an instance implies, in the reference order: per in-use ENI its IPv6 then private
 * IPv4 addresses (InternalIP), the public IPv4 (ExternalIP), the private DNS name (InternalDNS and Hostname),
 * the private DNS name rewritten with each DHCP domain (InternalDNS), the public DNS name (ExternalDNS).
 */
export function addressesOf(i: Instance, dhcpDomains: string[] = []): NodeAddress[] {
  const out: NodeAddress[] = [];
  const seen = new Set<string>();
  const add = (type: string, address: string | undefined) => {
    if (!address) return;
    const key = `${type}/${address}`;
    if (seen.has(key)) return;
    seen.add(key);
    out.push({ type, address });
  };
  const enis = (i.NetworkInterfaces ?? []).filter((n) => n.Status === undefined || n.Status === 'in-use');
  for (const eni of enis) {
    for (const v6 of eni.Ipv6Addresses ?? []) add('InternalIP', v6.Ipv6Address);
    for (const v4 of eni.PrivateIpAddresses ?? []) add('InternalIP', v4.PrivateIpAddress);
  }
  if (enis.length === 0) add('InternalIP', i.PrivateIpAddress);
  add('ExternalIP', i.PublicIpAddress);
  const privateDns = i.PrivateDnsName;
  add('InternalDNS', privateDns);
  add('Hostname', privateDns);
  if (privateDns) {
    const host = privateDns.split('.')[0] ?? privateDns;
    for (const d of dhcpDomains) {
      const name = d ? `${host}.${d}` : host;
      if (name !== privateDns) add('InternalDNS', name);
    }
  }
  add('ExternalDNS', i.PublicDnsName);
  return out;
}

/** Labels Update sets on the Machine (never removes). */
export function machineLabelsFor(i: Instance, region: string): Record<string, string> {
  const labels = placementLabels({
    region,
    zone: i.Placement?.AvailabilityZone || undefined,
    instanceType: i.InstanceType || undefined,
  });
  if (i.InstanceLifecycle === 'spot') labels[MachineInterruptibleInstanceLabel] = '';
  return labels;
}

/** First value of the DHCP options' domain-name, split on spaces; [''] when options exist without it. */
export function dhcpDomainsOf(
  configurations: Array<{ Key?: string; Values?: Array<{ Value?: string }> }> | undefined,
): string[] {
  if (!configurations) return [];
  const domain = configurations.find((c) => c.Key === 'domain-name');
  const first = domain?.Values?.[0]?.Value;
  if (first === undefined) return [''];
  return first.split(' ').filter((d) => d !== '');
}
