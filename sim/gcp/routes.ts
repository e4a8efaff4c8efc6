// Which handler answers which REST method and path (compute/v1 and the one Cloud Resource Manager call the
// provider makes), and the action name (as in the API reference, e.g. "instances.insert") used for knobs and
// call counters.
import * as catalog from './handlers/catalog.js';
import type { Handler } from './handlers/context.js';
import * as inst from './handlers/instances.js';
import * as lb from './handlers/load-balancing.js';
import * as ops from './handlers/operations.js';
import * as crm from './handlers/resource-manager.js';

export interface Route {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE' | 'PATCH';
  /** Path segments after the leading "/"; "{x}" binds a parameter. */
  segments: string[];
  action: string;
  handler: Handler;
}

const P = 'compute/v1/projects/{project}';
const Z = `${P}/zones/{zone}`;
const R = `${P}/regions/{region}`;
const G = `${P}/global`;

const TABLE: [Route['method'], string, string, Handler][] = [
  ['POST', `${Z}/instances`, 'instances.insert', inst.insertInstance],
  ['GET', `${Z}/instances`, 'instances.list', inst.listInstances],
  ['GET', `${P}/aggregated/instances`, 'instances.aggregatedList', inst.aggregatedListInstances],
  ['GET', `${Z}/instances/{instance}`, 'instances.get', inst.getInstance],
  ['DELETE', `${Z}/instances/{instance}`, 'instances.delete', inst.deleteInstance],
  ['POST', `${Z}/instances/{instance}/start`, 'instances.start', inst.startInstance],
  ['POST', `${Z}/instances/{instance}/stop`, 'instances.stop', inst.stopInstance],
  ['POST', `${Z}/instances/{instance}/setLabels`, 'instances.setLabels', inst.setInstanceLabels],
  ['POST', `${Z}/instances/{instance}/setMetadata`, 'instances.setMetadata', inst.setInstanceMetadata],
  ['POST', `${Z}/instances/{instance}/setTags`, 'instances.setTags', inst.setInstanceTags],
  [
    'POST',
    `${Z}/instances/{resource}/setDeletionProtection`,
    'instances.setDeletionProtection',
    inst.setInstanceDeletionProtection,
  ],

  ['GET', `${Z}/operations`, 'zoneOperations.list', ops.listOperations('zone')],
  ['GET', `${Z}/operations/{operation}`, 'zoneOperations.get', ops.getOperation('zone')],
  ['DELETE', `${Z}/operations/{operation}`, 'zoneOperations.delete', ops.deleteOperation('zone')],
  ['POST', `${Z}/operations/{operation}/wait`, 'zoneOperations.wait', ops.waitOperation('zone')],
  ['GET', `${R}/operations`, 'regionOperations.list', ops.listOperations('region')],
  ['GET', `${R}/operations/{operation}`, 'regionOperations.get', ops.getOperation('region')],
  ['DELETE', `${R}/operations/{operation}`, 'regionOperations.delete', ops.deleteOperation('region')],
  ['POST', `${R}/operations/{operation}/wait`, 'regionOperations.wait', ops.waitOperation('region')],
  ['GET', `${G}/operations`, 'globalOperations.list', ops.listOperations('global')],
  ['GET', `${G}/operations/{operation}`, 'globalOperations.get', ops.getOperation('global')],
  ['POST', `${G}/operations/{operation}/wait`, 'globalOperations.wait', ops.waitOperation('global')],

  ['GET', `${Z}/machineTypes`, 'machineTypes.list', catalog.listMachineTypes],
  ['GET', `${P}/aggregated/machineTypes`, 'machineTypes.aggregatedList', catalog.aggregatedListMachineTypes],
  ['GET', `${Z}/machineTypes/{machineType}`, 'machineTypes.get', catalog.getMachineType],
  ['GET', `${Z}/acceleratorTypes`, 'acceleratorTypes.list', catalog.listAcceleratorTypes],
  ['GET', `${Z}/acceleratorTypes/{acceleratorType}`, 'acceleratorTypes.get', catalog.getAcceleratorType],
  ['GET', `${Z}/diskTypes`, 'diskTypes.list', catalog.listDiskTypes],
  ['GET', `${Z}/diskTypes/{diskType}`, 'diskTypes.get', catalog.getDiskType],
  ['GET', `${Z}/disks`, 'disks.list', catalog.listDisks],
  ['GET', `${Z}/disks/{disk}`, 'disks.get', catalog.getDisk],
  ['GET', `${G}/images`, 'images.list', catalog.listImages],
  ['GET', `${G}/images/family/{family}`, 'images.getFromFamily', catalog.getImageFromFamily],
  ['GET', `${G}/images/{image}`, 'images.get', catalog.getImage],
  ['GET', `${Z}/imageFamilyViews/{family}`, 'imageFamilyViews.get', catalog.getImageFamilyView],
  ['GET', `${G}/networks/{network}`, 'networks.get', catalog.getNetwork],
  ['GET', `${R}/subnetworks/{subnetwork}`, 'subnetworks.get', catalog.getSubnetwork],
  ['GET', `${P}/zones`, 'zones.list', catalog.listZones],
  ['GET', Z, 'zones.get', catalog.getZone],
  ['GET', `${P}/regions`, 'regions.list', catalog.listRegions],
  ['GET', R, 'regions.get', catalog.getRegion],
  ['GET', P, 'projects.get', catalog.getProject],

  ['GET', `${R}/targetPools`, 'targetPools.list', lb.listTargetPools],
  ['GET', `${R}/targetPools/{targetPool}`, 'targetPools.get', lb.getTargetPool],
  ['POST', `${R}/targetPools/{targetPool}/addInstance`, 'targetPools.addInstance', lb.addTargetPoolInstance],
  ['POST', `${R}/targetPools/{targetPool}/removeInstance`, 'targetPools.removeInstance', lb.removeTargetPoolInstance],
  ['GET', `${Z}/instanceGroups`, 'instanceGroups.list', lb.listInstanceGroups],
  ['POST', `${Z}/instanceGroups`, 'instanceGroups.insert', lb.insertInstanceGroup],
  ['GET', `${Z}/instanceGroups/{instanceGroup}`, 'instanceGroups.get', lb.getInstanceGroup],
  ['DELETE', `${Z}/instanceGroups/{instanceGroup}`, 'instanceGroups.delete', lb.deleteInstanceGroup],
  [
    'POST',
    `${Z}/instanceGroups/{instanceGroup}/addInstances`,
    'instanceGroups.addInstances',
    lb.addInstanceGroupInstances,
  ],
  [
    'POST',
    `${Z}/instanceGroups/{instanceGroup}/removeInstances`,
    'instanceGroups.removeInstances',
    lb.removeInstanceGroupInstances,
  ],
  [
    'POST',
    `${Z}/instanceGroups/{instanceGroup}/listInstances`,
    'instanceGroups.listInstances',
    lb.listInstanceGroupInstances,
  ],
  ['GET', `${R}/backendServices`, 'regionBackendServices.list', lb.listBackendServices],
  ['GET', `${R}/backendServices/{backendService}`, 'regionBackendServices.get', lb.getBackendService],
  ['PUT', `${R}/backendServices/{backendService}`, 'regionBackendServices.update', lb.updateBackendService],

  ['GET', 'v3/tagValues/namespaced', 'tagValues.getNamespaced', crm.getNamespacedTagValue],
];

export const ROUTES: Route[] = TABLE.map(([method, pattern, action, handler]) => ({
  method,
  segments: pattern.split('/'),
  action,
  handler,
}));

export type RouteMatch = { route: Route; params: Record<string, string> } | { methodNotAllowed: true } | undefined;

/** Matches decoded path segments (after the leading "/") against the table. */
export function matchRoute(method: string, segments: string[]): RouteMatch {
  let pathMatched = false;
  for (const route of ROUTES) {
    if (route.segments.length !== segments.length) continue;
    const params: Record<string, string> = {};
    let ok = true;
    for (let i = 0; i < segments.length && ok; i++) {
      const pat = route.segments[i] as string;
      const seg = segments[i] as string;
      if (pat.startsWith('{')) {
        if (seg === '') ok = false;
        else params[pat.slice(1, -1)] = seg;
      } else if (pat !== seg) ok = false;
    }
    if (!ok) continue;
    pathMatched = true;
    if (route.method === method) return { route, params };
  }
  return pathMatched ? { methodNotAllowed: true } : undefined;
}
