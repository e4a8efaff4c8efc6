// CreateTags, DeleteTags and DescribeTags over every tagged resource the emulator holds. A call naming
// any unknown resource fails as a whole, and nothing is changed.
import { Ec2ApiError, missingParameter } from '../api-error.js';
import { VIEW_BY_ID } from '../ec2-state.js';
import type { Tag } from '../model.js';
import { checkDryRun, mergeTags, readTags } from '../validation.js';
import { el, type XmlChild } from '../xml.js';
import type { ActionContext } from './action-context.js';
import { describeListing } from './describe-listing.js';

interface Tagged {
  id: string;
  type: string;
  get(): Tag[];
  set(tags: Tag[]): void;
}

function notFound(code: string, message: string): Ec2ApiError {
  return new Ec2ApiError(400, code, message);
}

function resolve(ctx: ActionContext, id: string): Tagged {
  const { state } = ctx;
  const w = state.world;
  const wrap = <T extends { tags: Tag[] }>(type: string, obj: T | undefined, code: string, message: string): Tagged => {
    if (!obj) throw notFound(code, message);
    return { id, type, get: () => obj.tags, set: (t) => (obj.tags = t) };
  };
  const prefix = id.split('-')[0];
  switch (prefix) {
    case 'i':
      return wrap('instance', state.requireInstances([id], VIEW_BY_ID)[0], 'InvalidInstanceID.NotFound', '');
    case 'subnet':
      return wrap(
        'subnet',
        w.subnets.find((s) => s.subnetId === id),
        'InvalidSubnetID.NotFound',
        `The subnet ID '${id}' does not exist`,
      );
    case 'sg':
      return wrap(
        'security-group',
        w.securityGroups.find((s) => s.groupId === id),
        'InvalidGroup.NotFound',
        `The security group '${id}' does not exist`,
      );
    case 'vpc':
      return wrap(
        'vpc',
        w.vpcs.find((v) => v.vpcId === id),
        'InvalidVpcID.NotFound',
        `The vpc ID '${id}' does not exist`,
      );
    case 'ami':
      return wrap(
        'image',
        w.images.find((v) => v.imageId === id),
        'InvalidAMIID.NotFound',
        `The image id '[${id}]' does not exist`,
      );
    case 'dopt':
      return wrap(
        'dhcp-options',
        w.dhcpOptions.find((d) => d.dhcpOptionsId === id),
        'InvalidDhcpOptionID.NotFound',
        `The dhcpOption ID '${id}' does not exist`,
      );
    case 'h':
      return wrap(
        'dedicated-host',
        w.hosts.find((h) => h.hostId === id && h.state !== 'released'),
        'InvalidHostID.NotFound',
        `The host ID '${id}' does not exist`,
      );
    default:
      throw new Ec2ApiError(400, 'InvalidID', `The ID '${id}' is not valid`);
  }
}

function allTagged(ctx: ActionContext): Tagged[] {
  const w = ctx.state.world;
  const ids = [
    ...w.instances.filter((i) => ctx.state.knobs.isVisible(i.instanceId, VIEW_BY_ID)).map((i) => i.instanceId),
    ...w.subnets.map((s) => s.subnetId),
    ...w.securityGroups.map((s) => s.groupId),
    ...w.vpcs.map((v) => v.vpcId),
    ...w.images.map((i) => i.imageId),
    ...w.dhcpOptions.map((d) => d.dhcpOptionsId),
    ...w.hosts.filter((h) => h.state !== 'released').map((h) => h.hostId),
  ];
  return ids.map((id) => resolve(ctx, id));
}

export function createTags(ctx: ActionContext): XmlChild {
  const ids = ctx.params.list('ResourceId');
  if (ids.length === 0) throw missingParameter('ResourceId');
  const tags = readTags(ctx.params, 'Tag', true);
  if (tags.length === 0) throw missingParameter('Tag');
  const targets = ids.map((id) => resolve(ctx, id));
  // Compute every result first so a tag-limit error leaves nothing half-applied.
  const updated = targets.map((t) => mergeTags(t.get(), tags, t.id));
  checkDryRun(ctx.params);
  targets.forEach((t, i) => t.set(updated[i] as Tag[]));
  ctx.state.changed();
  return el('return', true);
}

export function deleteTags(ctx: ActionContext): XmlChild {
  const ids = ctx.params.list('ResourceId');
  if (ids.length === 0) throw missingParameter('ResourceId');
  const specs = ctx.params.structList('Tag').map((t) => ({ key: t.get('Key'), value: t.get('Value') }));
  const targets = ids.map((id) => resolve(ctx, id));
  checkDryRun(ctx.params);
  for (const t of targets) {
    // No Tag.N at all deletes every tag; a given Value deletes the key only when the value matches.
    t.set(
      specs.length === 0
        ? []
        : t
            .get()
            .filter((tag) => !specs.some((s) => s.key === tag.key && (s.value === undefined || s.value === tag.value))),
    );
  }
  ctx.state.changed();
  return el('return', true);
}

export function describeTags(ctx: ActionContext): XmlChild {
  const rows = allTagged(ctx).flatMap((r) =>
    r.get().map((t) => ({ resourceId: r.id, resourceType: r.type, key: t.key, value: t.value })),
  );
  return describeListing<(typeof rows)[number]>(ctx, {
    all: rows,
    filters: {
      'resource-id': (r) => r.resourceId,
      'resource-type': (r) => r.resourceType,
      key: (r) => r.key,
      value: (r) => r.value,
    },
    // Unlike EC2, the emulator does not check DryRun on DescribeTags.
    dryRun: false,
    tokenKind: 'tags',
    setName: 'tagSet',
    render: (r) => [
      el('resourceId', r.resourceId),
      el('resourceType', r.resourceType),
      el('key', r.key),
      el('value', r.value),
    ],
  });
}
