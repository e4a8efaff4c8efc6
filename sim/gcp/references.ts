// Resolving the references callers send (full URLs, "projects/..." paths, "zones/z/..." scope-relative paths)
// to catalog entries, with GCE's answer when they do not resolve.
import { customMachineType } from './catalog-json.js';
import { invalidField, notFound } from './api-error.js';
import type { GceState } from './gce-state.js';
import { machineTypePath, resourcePath, splitResourcePath } from './links.js';
import type { AcceleratorTypeSpec, GceImage, GceNetwork, GceSubnetwork, MachineTypeSpec } from './model.js';

function zoneOffers(zones: string[] | undefined, zone: string): boolean {
  return zones === undefined || zones.includes(zone);
}

/** Whether path segments fit a shape such as `regions/{region}/subnetworks/{subnetwork}` (`{…}`: any one segment). */
function fitsShape(rest: readonly string[], shape: string): boolean {
  const want = shape.split('/');
  return rest.length === want.length && want.every((w, i) => w.startsWith('{') || rest[i] === w);
}

/**
 * A reference to a project's resource, `projects/{p}/` and then one of `shapes`: its path, project and the
 * segments after the project, or GCE's 400 naming the expected form.
 */
function projectRef(
  project: string,
  ref: string,
  field: string,
  shapes: readonly string[],
  expected = `projects/{project}/${shapes[0] ?? ''}`,
): { path: string; project: string; rest: string[] } {
  const path = resourcePath(ref, project);
  const split = splitResourcePath(path);
  if (!split || !shapes.some((shape) => fitsShape(split.rest, shape)))
    throw invalidField(field, ref, `Expected ${expected}.`);
  return { path, ...split };
}

/**
 * The name in a reference to a zonal catalog entry (`zones/{zone}/machineTypes/{machineType}` and the like),
 * which must be in the caller's zone. Disk types also refuse an empty name as malformed.
 */
function zonalEntryName(
  project: string,
  zone: string,
  ref: unknown,
  field: string,
  entry: { collection: string; noun: string; refuseEmptyName?: boolean },
): string {
  const shape = `zones/{zone}/${entry.collection}/{${entry.collection.slice(0, -1)}}`;
  const rest = typeof ref === 'string' ? (splitResourcePath(resourcePath(ref, project))?.rest ?? []) : [];
  if (!fitsShape(rest, shape) || (entry.refuseEmptyName === true && rest[3] === ''))
    throw invalidField(field, ref, `Expected ${shape}.`);
  if (rest[1] !== zone) throw invalidField(field, ref, `${entry.noun} must be in zone '${zone}'.`);
  return rest[3] as string;
}

export function findMachineType(state: GceState, zone: string, name: string): MachineTypeSpec | undefined {
  const mt = state.world.machineTypes.find((m) => m.name === name && zoneOffers(m.zones, zone));
  return mt ?? customMachineType(name);
}

/** machineTypes.get: 404 for an unknown type. */
export function requireMachineType(state: GceState, project: string, zone: string, name: string): MachineTypeSpec {
  const mt = findMachineType(state, zone, name);
  if (!mt) throw notFound(machineTypePath(project, zone, name));
  return mt;
}

/** A machine type referenced from an instance body: it must be in the instance's zone. */
export function resolveMachineTypeRef(
  state: GceState,
  project: string,
  zone: string,
  ref: unknown,
  field: string,
): MachineTypeSpec {
  if (typeof ref !== 'string' || ref === '') throw invalidField(field, ref, 'The machine type must be specified.');
  const name = zonalEntryName(project, zone, ref, field, { collection: 'machineTypes', noun: 'Machine type' });
  const mt = findMachineType(state, zone, name);
  if (!mt) throw invalidField(field, ref, `Machine type with name '${name}' does not exist in zone '${zone}'.`);
  return mt;
}

export function findImage(state: GceState, project: string, name: string): GceImage | undefined {
  return state.world.images.find((i) => i.project === project && i.name === name);
}

/** The newest READY, non-deprecated image of a family (what images.getFromFamily returns). */
export function latestOfFamily(state: GceState, project: string, family: string): GceImage | undefined {
  return state.world.images
    .filter((i) => i.project === project && i.family === family && i.status === 'READY' && !i.deprecatedState)
    .sort((a, b) => (a.creationTimestamp < b.creationTimestamp ? 1 : -1))[0];
}

/** An image reference: ".../projects/p/global/images/i" or ".../global/images/family/f"; 404 when missing. */
export function resolveImageRef(state: GceState, project: string, ref: string, field: string): GceImage {
  const shapes = ['global/images/{image}', 'global/images/family/{family}'];
  const {
    path,
    project: p,
    rest,
  } = projectRef(project, ref, field, shapes, 'projects/{project}/global/images/{image} or .../images/family/{family}');
  const img = rest.length === 4 ? latestOfFamily(state, p, rest[3] as string) : findImage(state, p, rest[2] as string);
  if (!img) throw notFound(path);
  return img;
}

export function resolveDiskTypeRef(
  state: GceState,
  project: string,
  zone: string,
  ref: unknown,
  field: string,
): string {
  if (ref === undefined || ref === null) return 'pd-standard';
  const name = zonalEntryName(project, zone, ref, field, {
    collection: 'diskTypes',
    noun: 'Disk type',
    refuseEmptyName: true,
  });
  if (!state.world.diskTypes.includes(name)) throw notFound(`projects/${project}/zones/${zone}/diskTypes/${name}`);
  return name;
}

export function resolveAcceleratorRef(
  state: GceState,
  project: string,
  zone: string,
  ref: unknown,
  field: string,
): AcceleratorTypeSpec {
  const name = zonalEntryName(project, zone, ref, field, { collection: 'acceleratorTypes', noun: 'Accelerator type' });
  const at = state.world.acceleratorTypes.find((a) => a.name === name && zoneOffers(a.zones, zone));
  if (!at) throw notFound(`projects/${project}/zones/${zone}/acceleratorTypes/${name}`);
  return at;
}

export function resolveNetworkRef(state: GceState, project: string, ref: string, field: string): GceNetwork {
  const { path, project: p, rest } = projectRef(project, ref, field, ['global/networks/{network}']);
  const net = state.world.networks.find((n) => n.project === p && n.name === rest[2]);
  if (!net) throw notFound(path);
  return net;
}

export function resolveSubnetworkRef(state: GceState, project: string, ref: string, field: string): GceSubnetwork {
  const { path, project: p, rest } = projectRef(project, ref, field, ['regions/{region}/subnetworks/{subnetwork}']);
  const sub = state.world.subnetworks.find((s) => s.project === p && s.region === rest[1] && s.name === rest[3]);
  if (!sub) throw notFound(path);
  return sub;
}
