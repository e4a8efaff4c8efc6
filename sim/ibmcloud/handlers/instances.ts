// /instances: list (filters name, vpc.id, vpc.name, vpc.crn, resource_group.id; paged), get, create, delete.
// New instances are invisible to list and get for the configured eventual-consistency delay.
import { IbmApiError, notFound } from '../api-error.js';
import type { InstanceRec } from '../model.js';
import { page } from '../listing.js';
import { renderInstance } from '../render.js';
import { UNALLOCATED_IP, VIEW_GET, VIEW_LIST, crn } from '../vpc-state.js';
import { validatePrototype } from '../validation.js';
import { ok, type HandlerRequest, type Route } from './context.js';

function visibleInstance(req: HandlerRequest, id: string): InstanceRec {
  const inst = req.st.instance(id);
  if (!inst || !req.st.knobs.isVisible(id, VIEW_GET)) throw notFound('Instance', id);
  return inst;
}

function list(req: HandlerRequest) {
  const { st, query } = req;
  const world = st.world;
  const name = query.get('name');
  const vpcId = query.get('vpc.id');
  const vpcName = query.get('vpc.name');
  const vpcCrn = query.get('vpc.crn');
  const rg = query.get('resource_group.id');
  const vpcNameOf = (id: string) => world.vpcs.find((v) => v.id === id)?.name;
  const items = world.instances.filter(
    (i) =>
      st.knobs.isVisible(i.id, VIEW_LIST) &&
      (name === null || i.name === name) &&
      (vpcId === null || i.vpcId === vpcId) &&
      (vpcName === null || vpcNameOf(i.vpcId) === vpcName) &&
      (vpcCrn === null || crn(world, world.region, 'vpc', i.vpcId) === vpcCrn) &&
      (rg === null || i.resourceGroupId === rg),
  );
  return ok(
    page(items, query, {
      key: 'instances',
      url: `${req.render.base}/instances`,
      render: (i) => renderInstance(req.render, i),
    }),
  );
}

function create(req: HandlerRequest) {
  const { st } = req;
  const v = validatePrototype(st.world, req.body);
  checkInstanceQuota(st.world.instances.length, st.instanceQuota);
  if (st.capacity.isExhausted(v.profile.name, v.zone)) throw insufficientCapacity(v.profile.name, v.zone);
  const inst: InstanceRec = {
    id: st.newInstanceId(v.zone),
    name: v.name,
    status: 'pending',
    statusReasons: [],
    createdAt: st.clock.now(),
    profile: v.profile.name,
    zone: v.zone,
    vpcId: v.vpcId,
    resourceGroupId: v.resourceGroupId,
    imageId: v.image.id,
    subnetId: v.subnet.id,
    securityGroupIds: v.securityGroupIds,
    nicId: st.newZonalId(v.zone),
    ip: UNALLOCATED_IP,
    userData: v.userData,
    bootVolume: v.bootVolume,
    dedicatedHostId: v.dedicatedHost?.id,
    seq: st.nextSeq(),
  };
  st.addCreated(inst);
  return { status: 201, body: renderInstance(req.render, inst) };
}

/** A zone out of the profile: refused before anything is created, so the client may try elsewhere at once. */
const insufficientCapacity = (profile: string, zone: string): IbmApiError =>
  new IbmApiError(
    400,
    'insufficient_capacity',
    `The zone ${zone} does not have enough capacity for instance profile ${profile} now. Try another zone or profile, or try again later.`,
  );

/** VPC refuses a create that would take the account past its instance quota; nothing is created. */
function checkInstanceQuota(instances: number, quota: number | undefined): void {
  if (quota === undefined || instances < quota) return;
  throw new IbmApiError(
    400,
    'over_quota',
    `The request exceeds the account's quota of ${quota} virtual server instances in this region. Delete instances or request a quota increase.`,
  );
}

function remove(req: HandlerRequest) {
  const id = req.params.id ?? '';
  req.st.delete(visibleInstance(req, id));
  return { status: 204 };
}

export const INSTANCE_ROUTES: Route[] = [
  { method: 'GET', path: '/instances', action: 'ListInstances', handler: list },
  { method: 'POST', path: '/instances', action: 'CreateInstance', handler: create },
  {
    method: 'GET',
    path: '/instances/{id}',
    action: 'GetInstance',
    handler: (req) => ok(renderInstance(req.render, visibleInstance(req, req.params.id ?? ''))),
  },
  { method: 'DELETE', path: '/instances/{id}', action: 'DeleteInstance', handler: remove },
];
