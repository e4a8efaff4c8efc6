// Dedicated hosts: AllocateHosts (idempotent on ClientToken), ReleaseHosts, DescribeHosts.
import { invalidParameterValue, missingParameter } from '../api-error.js';
import type { DedicatedHost, Tag } from '../model.js';
import { checkDryRun, oneOf, readTags } from '../validation.js';
import { el, itemList, opt, tagSet, type XmlChild } from '../xml.js';
import type { ActionContext } from './action-context.js';
import { describeListing } from './describe-listing.js';
import { notFoundFor } from './lookup.js';

export function allocateHosts({ params, state }: ActionContext): XmlChild {
  const w = state.world;
  const token = params.get('ClientToken');
  if (token !== undefined) {
    const prior = w.hosts.filter((h) => h.clientToken === token);
    if (prior.length > 0) return itemList('hostIdSet', prior, (h) => h.hostId);
  }
  const instanceType = params.get('InstanceType');
  if (instanceType === undefined) throw missingParameter('InstanceType');
  if (!w.instanceTypes.some((t) => t.instanceType === instanceType))
    throw invalidParameterValue(`Invalid value '${instanceType}' for InstanceType.`);
  const az = params.get('AvailabilityZone');
  if (az === undefined) throw missingParameter('AvailabilityZone');
  if (!w.availabilityZones.some((z) => z.zoneName === az))
    throw invalidParameterValue(`Invalid availability zone: [${az}]`);
  const quantity = params.int('Quantity') ?? 1;
  if (quantity < 1 || quantity > 10)
    throw invalidParameterValue(`Value (${quantity}) for parameter quantity is invalid.`);
  const autoPlacement = oneOf(params.get('AutoPlacement'), ['on', 'off'] as const, 'autoPlacement') ?? 'off';
  let tags: Tag[] = [];
  for (const spec of params.structList('TagSpecification')) {
    if (spec.get('ResourceType') !== 'dedicated-host') {
      throw invalidParameterValue(
        `'${spec.get('ResourceType') ?? ''}' is not a valid taggable resource type for this operation.`,
      );
    }
    tags = readTags(spec, 'Tag', false);
  }
  checkDryRun(params);
  const created: DedicatedHost[] = [];
  for (let n = 0; n < quantity; n++) {
    const host: DedicatedHost = {
      hostId: state.newId('h', (id) => w.hosts.some((h) => h.hostId === id)),
      instanceType,
      availabilityZone: az,
      autoPlacement,
      state: 'available',
      allocationTime: new Date(state.clock.now()).toISOString(),
      clientToken: token,
      tags: tags.map((t) => ({ ...t })),
    };
    w.hosts.push(host);
    created.push(host);
  }
  state.changed();
  return itemList('hostIdSet', created, (h) => h.hostId);
}

export function releaseHosts({ params, state }: ActionContext): XmlChild {
  const ids = params.list('HostId');
  if (ids.length === 0) throw missingParameter('HostId');
  const successful: string[] = [];
  const unsuccessful: { id: string; code: string; message: string }[] = [];
  for (const id of ids) {
    const host = state.world.hosts.find((h) => h.hostId === id && h.state === 'available');
    if (!host) {
      unsuccessful.push({ id, code: 'Client.InvalidHostID.NotFound', message: `The host ID '${id}' does not exist` });
      continue;
    }
    const occupied = state.world.instances.some((i) => i.hostId === id && i.state !== 'terminated');
    if (occupied) {
      unsuccessful.push({
        id,
        code: 'Client.InvalidHost.Occupied',
        message: `Host '${id}' has instances that are not terminated`,
      });
      continue;
    }
    host.state = 'released';
    host.releaseTime = new Date(state.clock.now()).toISOString();
    successful.push(id);
  }
  state.changed();
  return [
    itemList('successful', successful, (id) => id),
    itemList('unsuccessful', unsuccessful, (u) => [
      el('resourceId', u.id),
      el('error', el('code', u.code), el('message', u.message)),
    ]),
  ];
}

export function describeHosts(ctx: ActionContext): XmlChild {
  const w = ctx.state.world;
  return describeListing<DedicatedHost>(ctx, {
    all: w.hosts,
    filters: {
      'availability-zone': (h) => h.availabilityZone,
      'instance-type': (h) => h.instanceType,
      state: (h) => h.state,
      'auto-placement': (h) => h.autoPlacement,
      'client-token': (h) => h.clientToken,
    },
    tagsOf: (h) => h.tags,
    maxResults: { min: 5, max: 500, fallback: 500 },
    // DescribeHosts has no DryRun parameter.
    dryRun: false,
    byId: { param: 'HostId', idOf: (h) => h.hostId, notFound: notFoundFor('InvalidHostID.NotFound', 'host') },
    tokenKind: 'hosts',
    setName: 'hostSet',
    render: (h) => [
      el('hostId', h.hostId),
      el('autoPlacement', h.autoPlacement),
      el('availabilityZone', h.availabilityZone),
      el('hostProperties', el('instanceType', h.instanceType)),
      itemList(
        'instances',
        w.instances.filter((i) => i.hostId === h.hostId && i.state !== 'terminated'),
        (i) => [el('instanceId', i.instanceId), el('instanceType', i.instanceType)],
      ),
      el('state', h.state),
      el('allocationTime', h.allocationTime),
      opt('releaseTime', h.releaseTime),
      opt('clientToken', h.clientToken),
      el('ownerId', w.accountId),
      tagSet(h.tags),
    ],
  });
}
