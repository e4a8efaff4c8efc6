// CreateTags, DeleteTags and DescribeTags over every tagged resource the emulator holds. A call naming
// any unknown resource fails as a whole, and nothing is changed.
import { Ec2ApiError, missingParameter } from '../api-error.js';
import { VIEW_BY_ID } from '../ec2-state.js';
import type { Ec2World, Tag } from '../model.js';
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

/** A kind of resource the world holds: its id prefix, how to find one, and EC2's words when there is none. */
interface WorldKind {
  type: string;
  ids(w: Ec2World): string[];
  find(w: Ec2World, id: string): { tags: Tag[] } | undefined;
  code: string;
  missing(id: string): string;
}

const byPrefix = <T extends { tags: Tag[] }>(list: (w: Ec2World) => T[], idOf: (o: T) => string) => ({
  ids: (w: Ec2World) => list(w).map(idOf),
  find: (w: Ec2World, id: string) => list(w).find((o) => idOf(o) === id),
});

const WORLD_KINDS: Record<string, WorldKind> = {
  subnet: {
    type: 'subnet',
    ...byPrefix(
      (w) => w.subnets,
      (s) => s.subnetId,
    ),
    code: 'InvalidSubnetID.NotFound',
    missing: (id) => `The subnet ID '${id}' does not exist`,
  },
  sg: {
    type: 'security-group',
    ...byPrefix(
      (w) => w.securityGroups,
      (s) => s.groupId,
    ),
    code: 'InvalidGroup.NotFound',
    missing: (id) => `The security group '${id}' does not exist`,
  },
  vpc: {
    type: 'vpc',
    ...byPrefix(
      (w) => w.vpcs,
      (v) => v.vpcId,
    ),
    code: 'InvalidVpcID.NotFound',
    missing: (id) => `The vpc ID '${id}' does not exist`,
  },
  ami: {
    type: 'image',
    ...byPrefix(
      (w) => w.images,
      (i) => i.imageId,
    ),
    code: 'InvalidAMIID.NotFound',
    missing: (id) => `The image id '[${id}]' does not exist`,
  },
  dopt: {
    type: 'dhcp-options',
    ...byPrefix(
      (w) => w.dhcpOptions,
      (d) => d.dhcpOptionsId,
    ),
    code: 'InvalidDhcpOptionID.NotFound',
    missing: (id) => `The dhcpOption ID '${id}' does not exist`,
  },
  // A released host is gone for tagging.
  h: {
    type: 'dedicated-host',
    ...byPrefix(
      (w) => w.hosts.filter((h) => h.state !== 'released'),
      (h) => h.hostId,
    ),
    code: 'InvalidHostID.NotFound',
    missing: (id) => `The host ID '${id}' does not exist`,
  },
};

function tagged(id: string, type: string, obj: { tags: Tag[] }): Tagged {
  return { id, type, get: () => obj.tags, set: (t) => (obj.tags = t) };
}

function resolve(ctx: ActionContext, id: string): Tagged {
  const prefix = id.split('-')[0] ?? '';
  if (prefix === 'i') return tagged(id, 'instance', ctx.state.requireInstances([id], VIEW_BY_ID)[0]!);
  const kind = Object.hasOwn(WORLD_KINDS, prefix) ? WORLD_KINDS[prefix] : undefined;
  if (!kind) throw new Ec2ApiError(400, 'InvalidID', `The ID '${id}' is not valid`);
  const obj = kind.find(ctx.state.world, id);
  if (!obj) throw notFound(kind.code, kind.missing(id));
  return tagged(id, kind.type, obj);
}

function allTagged(ctx: ActionContext): Tagged[] {
  const w = ctx.state.world;
  const ids = [
    ...w.instances.filter((i) => ctx.state.knobs.isVisible(i.instanceId, VIEW_BY_ID)).map((i) => i.instanceId),
    ...Object.values(WORLD_KINDS).flatMap((k) => k.ids(w)),
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
