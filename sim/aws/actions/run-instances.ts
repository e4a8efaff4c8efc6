// RunInstances: validates the request the way EC2 does, then launches MaxCount instances in `pending`.
// ClientToken makes it idempotent: the same token with the same parameters returns the original reservation,
// with different parameters IdempotentParameterMismatch.
import {
  allocateIpv6,
  allocatePrivateIp,
  allocatePublicIp,
  macAddress,
  privateDnsName,
  publicDnsName,
} from '../addressing.js';
import { Ec2ApiError, invalidParameterCombination, invalidParameterValue } from '../api-error.js';
import type { Ec2State } from '../ec2-state.js';
import { reservationXml } from '../instance-xml.js';
import type { Ec2Instance } from '../model.js';
import { checkDryRun, checkUserData, oneOf } from '../validation.js';
import type { XmlChild } from '../xml.js';
import type { ActionContext } from './action-context.js';
import { readBlockDevices } from './launch-block-devices.js';
import { resolveNetwork } from './launch-network.js';
import {
  checkCapacity,
  countFreeIps,
  readCounts,
  readMarketOptions,
  readTagSpecifications,
  resolveImage,
  resolveInstanceType,
  resolvePlacement,
  USER_DATA_MAX_BYTES,
  usedPrivateIps,
} from './launch-request.js';

export { SPOT_PRICE_FACTOR, spotPrice } from './launch-request.js';

export function runInstances({ params, state }: ActionContext): XmlChild {
  const world = state.world;
  const token = params.get('ClientToken');
  const fingerprint = params.fingerprint(['ClientToken', 'Action', 'Version']);
  if (token !== undefined) {
    if (token.length > 64)
      throw invalidParameterValue('Value for parameter clientToken is invalid: it must be at most 64 ASCII characters');
    const prior = world.clientTokens[token];
    if (prior) {
      if (prior.fingerprint !== fingerprint) {
        throw new Ec2ApiError(
          400,
          'IdempotentParameterMismatch',
          'Arguments on this idempotent request are inconsistent with arguments used in previous request(s).',
        );
      }
      const instances = prior.instanceIds
        .map((id) => state.instance(id))
        .filter((i): i is Ec2Instance => i !== undefined);
      return reservationXml(instances, world.accountId);
    }
  }

  const image = resolveImage(state, params.get('ImageId'));
  const type = resolveInstanceType(state, params.get('InstanceType') ?? 'm1.small');
  if (!type.architectures.includes(image.architecture)) {
    throw invalidParameterValue(
      `The architecture '${type.architectures.join(', ')}' of the specified instance type does not match the architecture '${image.architecture}' of the specified AMI. Specify an instance type and an AMI that have matching architectures, and try again.`,
    );
  }
  const { minCount, maxCount } = readCounts(params);
  const net = resolveNetwork(state, params);
  const placement = resolvePlacement(state, params, net.subnet, type);

  const keyName = params.get('KeyName');
  if (keyName !== undefined && world.keyPairs && !world.keyPairs.includes(keyName)) {
    throw new Ec2ApiError(400, 'InvalidKeyPair.NotFound', `The key pair '${keyName}' does not exist`);
  }
  const profileName = params.get('IamInstanceProfile.Name') ?? params.get('IamInstanceProfile.Arn')?.split('/').pop();
  if (profileName !== undefined && world.iamInstanceProfiles && !world.iamInstanceProfiles.includes(profileName)) {
    throw invalidParameterValue(
      `Value (${profileName}) for parameter iamInstanceProfile.name is invalid. Invalid IAM Instance Profile name`,
    );
  }
  const userData = params.get('UserData');
  if (userData !== undefined) checkUserData(userData, USER_DATA_MAX_BYTES);

  const tagSpecs = readTagSpecifications(params);
  const blockDevices = readBlockDevices(params, image);
  const market = readMarketOptions(params, type);
  const capacityReservationId = params.get(
    'CapacityReservationSpecification.CapacityReservationTarget.CapacityReservationId',
  );
  if (capacityReservationId !== undefined) {
    if (!/^cr-[0-9a-f]{8,17}$/.test(capacityReservationId)) {
      throw new Ec2ApiError(
        400,
        'InvalidCapacityReservationId.Malformed',
        `The capacity reservation ID '${capacityReservationId}' is malformed`,
      );
    }
    if (market.lifecycle === 'spot')
      throw invalidParameterCombination('Spot instances cannot be launched into a capacity reservation.');
  }
  if (market.capacityBlock && capacityReservationId === undefined) {
    throw invalidParameterCombination(
      'A capacity-block launch requires CapacityReservationSpecification.CapacityReservationTarget.CapacityReservationId.',
    );
  }
  const amdSevSnp = oneOf(params.get('CpuOptions.AmdSevSnp'), ['enabled', 'disabled'] as const, 'cpuOptions.amdSevSnp');
  if (amdSevSnp === 'enabled' && !/^(m6a|c6a|r6a)\./.test(type.instanceType)) {
    throw new Ec2ApiError(
      400,
      'UnsupportedOperation',
      `AMD SEV-SNP is not supported for instance type ${type.instanceType}.`,
    );
  }
  const metadata = {
    httpTokens:
      oneOf(
        params.get('MetadataOptions.HttpTokens'),
        ['optional', 'required'] as const,
        'metadataOptions.httpTokens',
      ) ?? 'optional',
    httpProtocolIpv6:
      oneOf(
        params.get('MetadataOptions.HttpProtocolIpv6'),
        ['enabled', 'disabled'] as const,
        'metadataOptions.httpProtocolIpv6',
      ) ?? 'disabled',
    httpEndpoint:
      oneOf(
        params.get('MetadataOptions.HttpEndpoint'),
        ['enabled', 'disabled'] as const,
        'metadataOptions.httpEndpoint',
      ) ?? 'enabled',
    httpPutResponseHopLimit: params.int('MetadataOptions.HttpPutResponseHopLimit') ?? 1,
  };
  if (metadata.httpPutResponseHopLimit < 1 || metadata.httpPutResponseHopLimit > 64) {
    throw invalidParameterValue(
      'Value for parameter metadataOptions.httpPutResponseHopLimit is invalid: it must be between 1 and 64',
    );
  }
  const dnsOptions = {
    hostnameType:
      oneOf(
        params.get('PrivateDnsNameOptions.HostnameType'),
        ['ip-name', 'resource-name'] as const,
        'privateDnsNameOptions.hostnameType',
      ) ?? 'ip-name',
    enableResourceNameDnsARecord: params.bool('PrivateDnsNameOptions.EnableResourceNameDnsARecord') ?? false,
    enableResourceNameDnsAAAARecord: params.bool('PrivateDnsNameOptions.EnableResourceNameDnsAAAARecord') ?? false,
  };

  const shutdownBehavior =
    oneOf(
      params.get('InstanceInitiatedShutdownBehavior'),
      ['stop', 'terminate'] as const,
      'instanceInitiatedShutdownBehavior',
    ) ?? 'stop';
  if (
    market.lifecycle === 'spot' &&
    market.interruptionBehavior === 'terminate' &&
    params.get('InstanceInitiatedShutdownBehavior') === 'stop'
  ) {
    throw invalidParameterCombination('One-time Spot instances must use InstanceInitiatedShutdownBehavior terminate.');
  }
  const terminationProtected = params.bool('DisableApiTermination') ?? false;

  checkCapacity(state, type, placement.availabilityZone, market.lifecycle, minCount);
  // Read once per launch: the addresses this launch hands out are added as it goes.
  const usedIps = usedPrivateIps(state, net.subnet);
  const freeIps = countFreeIps(net.subnet, usedIps, net.requestedPrivateIp, minCount);
  checkDryRun(params);

  const count = Math.min(maxCount, freeIps);
  const reservationId = state.newId('r', (id) => world.instances.some((i) => i.reservationId === id));
  const now = state.clock.now();
  const instances: Ec2Instance[] = [];
  for (let n = 0; n < count; n++) {
    const instanceId = state.newInstanceId();
    const privateIp =
      n === 0 && net.requestedPrivateIp ? net.requestedPrivateIp : allocatePrivateIp(net.subnet, usedIps);
    if (!privateIp) break;
    usedIps.add(privateIp);
    const domainHost = dnsOptions.hostnameType === 'resource-name' ? instanceId : privateIp;
    const inst: Ec2Instance = {
      seq: world.nextSeq++,
      instanceId,
      reservationId,
      ownerId: world.accountId,
      imageId: image.imageId,
      instanceType: type.instanceType,
      architecture: image.architecture,
      keyName,
      launchTime: now,
      state: 'pending',
      stateTransitionReason: '',
      availabilityZone: placement.availabilityZone,
      tenancy: placement.tenancy,
      hostId: placement.hostId,
      affinity: placement.affinity,
      placementGroupName: placement.groupName,
      partitionNumber: placement.partitionNumber,
      subnetId: net.subnet.subnetId,
      vpcId: net.subnet.vpcId,
      privateIpAddress: privateIp,
      privateDnsName: privateDnsName(state.region, domainHost),
      wantsPublicIp: net.publicIp,
      wantsCarrierIp: net.carrierIp,
      ipv6Addresses: [],
      networkInterfaceId: state.newId('eni', (id) => world.instances.some((i) => i.networkInterfaceId === id)),
      macAddress: macAddress(state.knobs.random),
      interfaceType: net.interfaceType,
      securityGroups: net.securityGroups.map((g) => ({ groupId: g.groupId, groupName: g.groupName })),
      tags: tagSpecs.get('instance') ?? [],
      volumeTags: tagSpecs.get('volume') ?? [],
      iamInstanceProfile: profileName
        ? {
            arn: `arn:aws:iam::${world.accountId}:instance-profile/${profileName}`,
            id: `AIPA${state.knobs.random.hex(17).toUpperCase()}`,
          }
        : undefined,
      userData,
      lifecycle: market.lifecycle,
      spotInstanceRequestId: market.lifecycle === 'spot' ? state.newId('sir', () => false, 8) : undefined,
      spotInterruptionBehavior: market.interruptionBehavior,
      blockDevices: blockDevices.map((b) => ({
        ...b,
        volumeId: state.newId('vol', (id) =>
          world.instances.some((i) => i.blockDevices.some((d) => d.volumeId === id)),
        ),
      })),
      rootDeviceName: image.rootDeviceName,
      metadataOptions: metadata,
      privateDnsNameOptions: dnsOptions,
      capacityReservationId,
      amdSevSnp,
      clientToken: token,
      shutdownBehavior:
        market.lifecycle === 'spot' && market.interruptionBehavior === 'terminate' ? 'terminate' : shutdownBehavior,
      terminationProtected,
    };
    for (let k = 0; k < net.ipv6Count; k++) {
      const ip = allocateIpv6(net.subnet, state.knobs.random, usedIpv6(state));
      if (ip) inst.ipv6Addresses.push(ip);
    }
    assignPublicAddress(state, inst);
    state.addLaunched(inst);
    instances.push(inst);
  }
  if (token !== undefined)
    world.clientTokens[token] = { fingerprint, reservationId, instanceIds: instances.map((i) => i.instanceId) };
  state.changed();
  return reservationXml(instances, world.accountId);
}

/** Gives a (re)starting instance a new public or carrier IPv4 if it asked for one, as EC2 does on every start. */
export function assignPublicAddress(state: Ec2State, inst: Ec2Instance): void {
  const used = new Set(
    state.world.instances.flatMap((i) => [i.publicIpAddress, i.carrierIp]).filter((x): x is string => !!x),
  );
  if (inst.wantsPublicIp) {
    inst.publicIpAddress = allocatePublicIp(state.knobs.random, used);
    inst.publicDnsName = publicDnsName(state.region, inst.publicIpAddress);
  } else if (inst.wantsCarrierIp) {
    inst.carrierIp = allocatePublicIp(state.knobs.random, used, 155);
  }
}

function usedIpv6(state: Ec2State): Set<string> {
  return new Set(state.world.instances.filter((i) => i.state !== 'terminated').flatMap((i) => i.ipv6Addresses));
}
