// DescribeSubnets, DescribeSecurityGroups, DescribeVpcs, DescribeDhcpOptions, DescribeAvailabilityZones,
// DescribeRegions.
import { Ec2ApiError, invalidParameterValue } from '../api-error.js';
import { subnetCapacity } from '../addressing.js';
import { filterPredicate, readFilters } from '../filters.js';
import type { AvailabilityZone, DhcpOptions, Region, SecurityGroup, Subnet, Vpc } from '../model.js';
import { checkDryRun } from '../validation.js';
import { el, itemList, opt, tagSet, type XmlChild } from '../xml.js';
import type { ActionContext } from './action-context.js';
import { describeListing } from './describe-listing.js';
import { notFoundEach, notFoundFor } from './lookup.js';

function zoneOf(ctx: ActionContext, name: string): AvailabilityZone | undefined {
  return ctx.state.world.availabilityZones.find((z) => z.zoneName === name);
}

export function describeSubnets(ctx: ActionContext): XmlChild {
  const w = ctx.state.world;
  const used = (s: Subnet) => w.instances.filter((i) => i.subnetId === s.subnetId && i.state !== 'terminated').length;
  return describeListing<Subnet>(ctx, {
    all: w.subnets,
    filters: {
      'subnet-id': (s) => s.subnetId,
      'vpc-id': (s) => s.vpcId,
      'availability-zone': (s) => s.availabilityZone,
      // The legacy camelCase name the OpenShift provider still sends.
      availabilityZone: (s) => s.availabilityZone,
      'availability-zone-id': (s) => zoneOf(ctx, s.availabilityZone)?.zoneId,
      'cidr-block': (s) => s.cidrBlock,
      cidrBlock: (s) => s.cidrBlock,
      cidr: (s) => s.cidrBlock,
      'ipv6-cidr-block-association.ipv6-cidr-block': (s) => s.ipv6CidrBlock,
      'map-public-ip-on-launch': (s) => s.mapPublicIpOnLaunch,
      'default-for-az': () => false,
      defaultForAz: () => false,
      state: () => 'available',
      'owner-id': () => w.accountId,
    },
    tagsOf: (s) => s.tags,
    byId: { param: 'SubnetId', idOf: (s) => s.subnetId, notFound: notFoundFor('InvalidSubnetID.NotFound', 'subnet') },
    tokenKind: 'subnets',
    setName: 'subnetSet',
    render: (s) => [
      el('subnetId', s.subnetId),
      el('subnetArn', `arn:aws:ec2:${w.region}:${w.accountId}:subnet/${s.subnetId}`),
      el('state', 'available'),
      el('ownerId', w.accountId),
      el('vpcId', s.vpcId),
      el('cidrBlock', s.cidrBlock),
      s.ipv6CidrBlock
        ? itemList('ipv6CidrBlockAssociationSet', [s.ipv6CidrBlock], (c) => [
            el('ipv6CidrBlock', c),
            el('associationId', `subnet-cidr-assoc-${s.subnetId.slice(7)}`),
            el('ipv6CidrBlockState', el('state', 'associated')),
          ])
        : el('ipv6CidrBlockAssociationSet'),
      el('availableIpAddressCount', Math.max(0, subnetCapacity(s) - used(s))),
      el('availabilityZone', s.availabilityZone),
      el('availabilityZoneId', zoneOf(ctx, s.availabilityZone)?.zoneId ?? ''),
      el('defaultForAz', false),
      el('mapPublicIpOnLaunch', s.mapPublicIpOnLaunch),
      el('assignIpv6AddressOnCreation', s.assignIpv6AddressOnCreation),
      tagSet(s.tags),
    ],
  });
}

export function describeSecurityGroups(ctx: ActionContext): XmlChild {
  const { params, state } = ctx;
  const w = state.world;
  const names = params.list('GroupName');
  return describeListing<SecurityGroup>(ctx, {
    all: w.securityGroups,
    filters: {
      'group-id': (g) => g.groupId,
      'group-name': (g) => g.groupName,
      'vpc-id': (g) => g.vpcId,
      description: (g) => g.description,
      'owner-id': () => w.accountId,
    },
    tagsOf: (g) => g.tags,
    byId: {
      param: 'GroupId',
      idOf: (g) => g.groupId,
      notFound: notFoundEach('InvalidGroup.NotFound', (id) => `The security group '${id}' does not exist`),
    },
    narrow: (selected) => {
      if (names.length === 0) return selected;
      // Group names only address the default VPC; elsewhere callers must use the group-name filter.
      const defaultVpc = w.vpcs.find((v) => v.isDefault)?.vpcId;
      const missing = names.filter((n) => !w.securityGroups.some((g) => g.groupName === n && g.vpcId === defaultVpc));
      if (missing.length > 0) {
        throw new Ec2ApiError(
          400,
          'InvalidGroup.NotFound',
          `The security group '${missing.join(', ')}' does not exist in default VPC '${defaultVpc ?? 'none'}'`,
        );
      }
      return selected.filter((g) => names.includes(g.groupName) && g.vpcId === defaultVpc);
    },
    tokenKind: 'security-groups',
    setName: 'securityGroupInfo',
    render: (g) => [
      el('ownerId', w.accountId),
      el('groupId', g.groupId),
      el('groupName', g.groupName),
      el('groupDescription', g.description),
      el('vpcId', g.vpcId),
      el('securityGroupArn', `arn:aws:ec2:${w.region}:${w.accountId}:security-group/${g.groupId}`),
      el('ipPermissions'),
      itemList('ipPermissionsEgress', [g], () => [
        el('ipProtocol', '-1'),
        itemList('ipRanges', ['0.0.0.0/0'], (c) => el('cidrIp', c)),
      ]),
      tagSet(g.tags),
    ],
  });
}

export function describeVpcs(ctx: ActionContext): XmlChild {
  const w = ctx.state.world;
  return describeListing<Vpc>(ctx, {
    all: w.vpcs,
    filters: {
      'vpc-id': (v) => v.vpcId,
      cidr: (v) => v.cidrBlock,
      'cidr-block-association.cidr-block': (v) => v.cidrBlock,
      'ipv6-cidr-block-association.ipv6-cidr-block': (v) => v.ipv6CidrBlock,
      'dhcp-options-id': (v) => v.dhcpOptionsId,
      'is-default': (v) => v.isDefault,
      state: () => 'available',
      'owner-id': () => w.accountId,
    },
    tagsOf: (v) => v.tags,
    byId: { param: 'VpcId', idOf: (v) => v.vpcId, notFound: notFoundFor('InvalidVpcID.NotFound', 'vpc') },
    tokenKind: 'vpcs',
    setName: 'vpcSet',
    render: (v) => [
      el('vpcId', v.vpcId),
      el('ownerId', w.accountId),
      el('state', 'available'),
      el('cidrBlock', v.cidrBlock),
      itemList('cidrBlockAssociationSet', [v.cidrBlock], (c) => [
        el('cidrBlock', c),
        el('associationId', `vpc-cidr-assoc-${v.vpcId.slice(4)}`),
        el('cidrBlockState', el('state', 'associated')),
      ]),
      v.ipv6CidrBlock
        ? itemList('ipv6CidrBlockAssociationSet', [v.ipv6CidrBlock], (c) => [
            el('ipv6CidrBlock', c),
            el('ipv6CidrBlockState', el('state', 'associated')),
            el('networkBorderGroup', w.region),
          ])
        : el('ipv6CidrBlockAssociationSet'),
      el('dhcpOptionsId', v.dhcpOptionsId),
      el('instanceTenancy', 'default'),
      el('isDefault', v.isDefault),
      tagSet(v.tags),
    ],
  });
}

export function describeDhcpOptions(ctx: ActionContext): XmlChild {
  const w = ctx.state.world;
  return describeListing<DhcpOptions>(ctx, {
    all: w.dhcpOptions,
    filters: {
      'dhcp-options-id': (d) => d.dhcpOptionsId,
      key: (d) => d.configurations.map((c) => c.key),
      value: (d) => d.configurations.flatMap((c) => c.values),
      'owner-id': () => w.accountId,
    },
    tagsOf: (d) => d.tags,
    byId: {
      param: 'DhcpOptionsId',
      idOf: (d) => d.dhcpOptionsId,
      notFound: notFoundEach('InvalidDhcpOptionID.NotFound', (id) => `The dhcpOption ID '${id}' does not exist`),
    },
    tokenKind: 'dhcp-options',
    setName: 'dhcpOptionsSet',
    render: (d) => [
      el('dhcpOptionsId', d.dhcpOptionsId),
      el('ownerId', w.accountId),
      itemList('dhcpConfigurationSet', d.configurations, (c) => [
        el('key', c.key),
        itemList('valueSet', c.values, (v) => el('value', v)),
      ]),
      tagSet(d.tags),
    ],
  });
}

export function describeAvailabilityZones(ctx: ActionContext): XmlChild {
  const { params, state } = ctx;
  const w = state.world;
  const names = params.list('ZoneName');
  const zoneIds = params.list('ZoneId');
  const unknown = [
    ...names.filter((n) => !zoneOf(ctx, n)),
    ...zoneIds.filter((id) => !w.availabilityZones.some((z) => z.zoneId === id)),
  ];
  if (unknown.length > 0) throw invalidParameterValue(`Invalid availability zone: [${unknown.join(', ')}]`);
  const all = params.bool('AllAvailabilityZones') ?? false;
  const predicate = filterPredicate<AvailabilityZone>(readFilters(params), {
    'zone-name': (z) => z.zoneName,
    'zone-id': (z) => z.zoneId,
    'zone-type': (z) => z.zoneType,
    'region-name': () => w.region,
    state: () => 'available',
    'opt-in-status': (z) => z.optInStatus,
    'group-name': (z) => z.groupName,
    'network-border-group': (z) => z.networkBorderGroup,
    'parent-zone-name': (z) => z.parentZoneName,
    'parent-zone-id': (z) => z.parentZoneId,
  });
  checkDryRun(params);
  const zones = w.availabilityZones
    .filter(
      (z) => (names.length === 0 && zoneIds.length === 0) || names.includes(z.zoneName) || zoneIds.includes(z.zoneId),
    )
    .filter((z) => all || names.length > 0 || zoneIds.length > 0 || z.optInStatus !== 'not-opted-in')
    .filter(predicate);
  return itemList('availabilityZoneInfo', zones, (z) => [
    el('zoneName', z.zoneName),
    el('zoneState', 'available'),
    el('regionName', w.region),
    el('zoneId', z.zoneId),
    el('zoneType', z.zoneType),
    el('optInStatus', z.optInStatus),
    el('groupName', z.groupName),
    el('networkBorderGroup', z.networkBorderGroup),
    opt('parentZoneName', z.parentZoneName),
    opt('parentZoneId', z.parentZoneId),
    el('messageSet'),
  ]);
}

export function describeRegions(ctx: ActionContext): XmlChild {
  const { params, state } = ctx;
  const names = params.list('RegionName');
  const regions = state.world.regions;
  const unknown = names.filter((n) => !regions.some((r) => r.regionName === n));
  if (unknown.length > 0) throw invalidParameterValue(`Invalid region: ${unknown.join(', ')}`);
  const all = params.bool('AllRegions') ?? false;
  const predicate = filterPredicate<Region>(readFilters(params), {
    'region-name': (r) => r.regionName,
    endpoint: (r) => `ec2.${r.regionName}.amazonaws.com`,
    'opt-in-status': (r) => r.optInStatus,
  });
  checkDryRun(params);
  const selected = regions
    .filter((r) => names.length === 0 || names.includes(r.regionName))
    .filter((r) => all || names.length > 0 || r.optInStatus !== 'not-opted-in')
    .filter(predicate);
  return itemList('regionInfo', selected, (r) => [
    el('regionName', r.regionName),
    el('regionEndpoint', `ec2.${r.regionName}.amazonaws.com`),
    el('optInStatus', r.optInStatus),
  ]);
}
