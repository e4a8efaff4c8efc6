// Reading and validating a RunInstances request's network: the one network interface or the instance-level
// subnet (else the default VPC's), security groups by id or name, public/carrier IP, IPv6 count and a requested
// private IP, with EC2's error codes and wording.
import { cidrContains } from '../addressing.js';
import { Ec2ApiError, invalidParameterCombination, invalidParameterValue } from '../api-error.js';
import type { Ec2State } from '../ec2-state.js';
import type { SecurityGroup, Subnet } from '../model.js';
import type { QueryParams } from '../query-params.js';
import { checkIdFormat, oneOf } from '../validation.js';

export interface ResolvedNetwork {
  subnet: Subnet;
  securityGroups: SecurityGroup[];
  publicIp: boolean;
  carrierIp: boolean;
  interfaceType: string;
  ipv6Count: number;
  requestedPrivateIp?: string;
}

export function resolveNetwork(state: Ec2State, params: QueryParams): ResolvedNetwork {
  const world = state.world;
  const nics = params.structList('NetworkInterface');
  if (nics.length > 1) {
    throw new Ec2ApiError(
      400,
      'Unsupported',
      'The emulator supports exactly one network interface (DeviceIndex 0) per RunInstances request.',
    );
  }
  const nic = nics[0];
  if (nic && params.get('SubnetId') !== undefined) {
    throw invalidParameterCombination(
      'Network interfaces and an instance-level subnet ID may not be specified on the same request',
    );
  }
  if (nic && (params.list('SecurityGroupId').length > 0 || params.list('SecurityGroup').length > 0)) {
    throw invalidParameterCombination(
      'Network interfaces and an instance-level security groups may not be specified on the same request',
    );
  }
  if (nic) {
    if (nic.get('NetworkInterfaceId') !== undefined) {
      throw new Ec2ApiError(
        400,
        'Unsupported',
        'Attaching an existing network interface is not supported by the emulator.',
      );
    }
    const idx = nic.int('DeviceIndex');
    if (idx !== undefined && idx !== 0)
      throw invalidParameterValue(
        `Value (${idx}) for parameter deviceIndex is invalid. The primary network interface must use device index 0.`,
      );
  }
  const src = nic ?? params;
  const subnetId = src.get('SubnetId');
  let subnet: Subnet | undefined;
  if (subnetId === undefined) {
    const defaultVpc = world.vpcs.find((v) => v.isDefault);
    if (!defaultVpc)
      throw new Ec2ApiError(
        400,
        'VPCIdNotSpecified',
        'No default VPC for this user. GroupName is only supported for EC2-Classic and default VPC.',
      );
    const az = params.get('Placement.AvailabilityZone');
    subnet = world.subnets.find((s) => s.vpcId === defaultVpc.vpcId && (az === undefined || s.availabilityZone === az));
    if (!subnet) throw invalidParameterValue(`No default subnet for availability zone: '${az ?? ''}'.`);
  } else {
    checkIdFormat(subnetId, 'subnet', 'InvalidSubnetID.Malformed');
    subnet = world.subnets.find((s) => s.subnetId === subnetId);
    if (!subnet) throw new Ec2ApiError(400, 'InvalidSubnetID.NotFound', `The subnet ID '${subnetId}' does not exist`);
  }
  const sub = subnet;

  const groupIds = src.list('SecurityGroupId');
  const groupNames = nic ? [] : params.list('SecurityGroup');
  if (groupNames.length > 0 && !world.vpcs.find((v) => v.vpcId === sub.vpcId)?.isDefault) {
    throw invalidParameterCombination('The parameter groupName cannot be used with the parameter subnet');
  }
  let securityGroups: SecurityGroup[];
  if (groupIds.length === 0 && groupNames.length === 0) {
    const dflt = world.securityGroups.find((g) => g.vpcId === sub.vpcId && g.groupName === 'default');
    securityGroups = dflt ? [dflt] : [];
  } else {
    securityGroups = [
      ...groupIds.map((id) => {
        const g = world.securityGroups.find((x) => x.groupId === id && x.vpcId === sub.vpcId);
        if (!g)
          throw new Ec2ApiError(
            400,
            'InvalidGroup.NotFound',
            `The security group '${id}' does not exist in VPC '${sub.vpcId}'`,
          );
        return g;
      }),
      ...groupNames.map((name) => {
        const g = world.securityGroups.find((x) => x.groupName === name && x.vpcId === sub.vpcId);
        if (!g)
          throw new Ec2ApiError(
            400,
            'InvalidGroup.NotFound',
            `The security group '${name}' does not exist in default VPC '${sub.vpcId}'`,
          );
        return g;
      }),
    ];
  }

  const zone = world.availabilityZones.find((z) => z.zoneName === sub.availabilityZone);
  const assocPublic = nic?.bool('AssociatePublicIpAddress');
  const assocCarrier = nic?.bool('AssociateCarrierIpAddress') ?? false;
  if (assocCarrier && zone?.zoneType !== 'wavelength-zone') {
    throw invalidParameterValue(
      `AssociateCarrierIpAddress can only be used with a subnet in a Wavelength Zone; subnet '${sub.subnetId}' is in ${sub.availabilityZone}`,
    );
  }
  if (assocCarrier && assocPublic)
    throw invalidParameterCombination(
      'AssociatePublicIpAddress and AssociateCarrierIpAddress cannot both be specified',
    );
  const interfaceType =
    oneOf(
      nic?.get('InterfaceType'),
      ['interface', 'efa', 'efa-only', 'trunk'] as const,
      'networkInterface.interfaceType',
    ) ?? 'interface';

  let ipv6Count = src.int('Ipv6AddressCount') ?? (sub.assignIpv6AddressOnCreation ? 1 : 0);
  if (nic?.bool('PrimaryIpv6') === true && ipv6Count === 0) ipv6Count = 1;
  if (ipv6Count > 0 && !sub.ipv6CidrBlock) {
    throw invalidParameterValue(
      `The subnet '${sub.subnetId}' does not have an IPv6 CIDR block; Ipv6AddressCount cannot be used.`,
    );
  }
  if (ipv6Count > 10) throw invalidParameterValue(`Value (${ipv6Count}) for parameter ipv6AddressCount is invalid.`);

  const requestedPrivateIp = src.get('PrivateIpAddress');
  if (requestedPrivateIp !== undefined && !cidrContains(sub.cidrBlock, requestedPrivateIp)) {
    throw new Ec2ApiError(
      400,
      'InvalidParameterValue',
      `Address ${requestedPrivateIp} does not fall within the subnet's address range`,
    );
  }
  return {
    subnet: sub,
    securityGroups,
    publicIp: assocPublic ?? (zone?.zoneType === 'wavelength-zone' ? false : sub.mapPublicIpOnLaunch),
    carrierIp: assocCarrier,
    interfaceType,
    ipv6Count,
    requestedPrivateIp,
  };
}
