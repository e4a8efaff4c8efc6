// The EC2 XML of an instance as DescribeInstances/RunInstances return it. A terminated instance keeps its
// identity but, as on AWS, no longer shows network details.
import { INSTANCE_STATE_CODES, type Ec2Instance } from './model.js';
import { el, itemList, opt, tagSet, type Xml, type XmlChild } from './xml.js';

export function stateXml(name: string, state: Ec2Instance['state']): Xml {
  return el(name, el('code', INSTANCE_STATE_CODES[state]), el('name', state));
}

export function instanceXml(inst: Ec2Instance, ownerId: string): XmlChild[] {
  const gone = inst.state === 'terminated';
  const launch = new Date(inst.launchTime);
  const association =
    !gone && (inst.publicIpAddress || inst.carrierIp)
      ? el(
          'association',
          opt('publicIp', inst.publicIpAddress),
          opt('publicDnsName', inst.publicDnsName),
          opt('carrierIp', inst.carrierIp),
          el('ipOwnerId', 'amazon'),
        )
      : undefined;
  const nic: XmlChild[] = [
    el('networkInterfaceId', inst.networkInterfaceId),
    el('subnetId', inst.subnetId),
    el('vpcId', inst.vpcId),
    el('description'),
    el('ownerId', ownerId),
    el('status', 'in-use'),
    el('macAddress', inst.macAddress),
    el('privateIpAddress', inst.privateIpAddress),
    el('privateDnsName', inst.privateDnsName),
    el('sourceDestCheck', true),
    itemList('groupSet', inst.securityGroups, (g) => [el('groupId', g.groupId), el('groupName', g.groupName)]),
    el(
      'attachment',
      el('attachmentId', `eni-attach-${inst.networkInterfaceId.slice(4)}`),
      el('deviceIndex', 0),
      el('status', 'attached'),
      el('attachTime', launch),
      el('deleteOnTermination', true),
      el('networkCardIndex', 0),
    ),
    association,
    itemList('privateIpAddressesSet', [inst.privateIpAddress], (ip) => [
      el('privateIpAddress', ip),
      el('privateDnsName', inst.privateDnsName),
      el('primary', true),
      association,
    ]),
    itemList('ipv6AddressesSet', inst.ipv6Addresses, (ip) => [
      el('ipv6Address', ip),
      el('isPrimaryIpv6', ip === inst.ipv6Addresses[0]),
    ]),
    el('interfaceType', inst.interfaceType),
  ];

  return [
    el('instanceId', inst.instanceId),
    el('imageId', inst.imageId),
    stateXml('instanceState', inst.state),
    el('privateDnsName', gone ? '' : inst.privateDnsName),
    el('dnsName', gone ? '' : (inst.publicDnsName ?? '')),
    el('reason', inst.stateTransitionReason),
    opt('keyName', inst.keyName),
    el('amiLaunchIndex', 0),
    el('productCodes'),
    el('instanceType', inst.instanceType),
    el('launchTime', launch),
    el(
      'placement',
      el('availabilityZone', inst.availabilityZone),
      el('groupName', inst.placementGroupName ?? ''),
      opt('partitionNumber', inst.partitionNumber),
      el('tenancy', inst.tenancy),
      opt('hostId', inst.hostId),
      opt('affinity', inst.affinity),
    ),
    el('monitoring', el('state', 'disabled')),
    gone ? undefined : el('subnetId', inst.subnetId),
    gone ? undefined : el('vpcId', inst.vpcId),
    gone ? undefined : el('privateIpAddress', inst.privateIpAddress),
    gone ? undefined : opt('ipAddress', inst.publicIpAddress),
    gone ? undefined : opt('ipv6Address', inst.ipv6Addresses[0]),
    el('sourceDestCheck', true),
    itemList('groupSet', gone ? [] : inst.securityGroups, (g) => [
      el('groupId', g.groupId),
      el('groupName', g.groupName),
    ]),
    inst.stateReason
      ? el('stateReason', el('code', inst.stateReason.code), el('message', inst.stateReason.message))
      : undefined,
    el('architecture', inst.architecture),
    el('rootDeviceType', 'ebs'),
    el('rootDeviceName', inst.rootDeviceName),
    itemList('blockDeviceMapping', gone ? [] : inst.blockDevices, (b) => [
      el('deviceName', b.deviceName),
      el(
        'ebs',
        el('volumeId', b.volumeId),
        el('status', 'attached'),
        el('attachTime', launch),
        el('deleteOnTermination', b.deleteOnTermination),
      ),
    ]),
    opt('instanceLifecycle', inst.lifecycle),
    opt('spotInstanceRequestId', inst.spotInstanceRequestId),
    el('virtualizationType', 'hvm'),
    el('clientToken', inst.clientToken ?? ''),
    tagSet(inst.tags),
    el('hypervisor', 'xen'),
    itemList('networkInterfaceSet', gone ? [] : [inst], () => nic),
    inst.iamInstanceProfile
      ? el('iamInstanceProfile', el('arn', inst.iamInstanceProfile.arn), el('id', inst.iamInstanceProfile.id))
      : undefined,
    el('ebsOptimized', false),
    el('enaSupport', true),
    el('cpuOptions', opt('amdSevSnp', inst.amdSevSnp)),
    opt('capacityReservationId', inst.capacityReservationId),
    el(
      'capacityReservationSpecification',
      inst.capacityReservationId
        ? el('capacityReservationTarget', el('capacityReservationId', inst.capacityReservationId))
        : el('capacityReservationPreference', 'open'),
    ),
    el(
      'metadataOptions',
      el('state', 'applied'),
      el('httpTokens', inst.metadataOptions.httpTokens),
      el('httpPutResponseHopLimit', inst.metadataOptions.httpPutResponseHopLimit),
      el('httpEndpoint', inst.metadataOptions.httpEndpoint),
      el('httpProtocolIpv6', inst.metadataOptions.httpProtocolIpv6),
      el('instanceMetadataTags', 'disabled'),
    ),
    el(
      'privateDnsNameOptions',
      el('hostnameType', inst.privateDnsNameOptions.hostnameType),
      el('enableResourceNameDnsARecord', inst.privateDnsNameOptions.enableResourceNameDnsARecord),
      el('enableResourceNameDnsAAAARecord', inst.privateDnsNameOptions.enableResourceNameDnsAAAARecord),
    ),
  ];
}

/** Instances grouped into <reservationSet> items, keeping the given order. */
export function reservationSetXml(instances: readonly Ec2Instance[], ownerId: string): Xml {
  const groups: Ec2Instance[][] = [];
  for (const inst of instances) {
    const last = groups[groups.length - 1];
    if (last && last[0]?.reservationId === inst.reservationId) last.push(inst);
    else groups.push([inst]);
  }
  return itemList('reservationSet', groups, (g) => reservationXml(g, ownerId));
}

export function reservationXml(instances: readonly Ec2Instance[], ownerId: string): XmlChild[] {
  return [
    el('reservationId', instances[0]?.reservationId ?? ''),
    el('ownerId', ownerId),
    el('groupSet'),
    itemList('instancesSet', instances, (i) => instanceXml(i, ownerId)),
  ];
}
