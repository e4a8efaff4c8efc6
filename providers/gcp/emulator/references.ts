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
export function resolveMachineTypeRef(state: GceState, project: string, zone: string, ref: unknown, field: string): MachineTypeSpec {
  if (typeof ref !== 'string' || ref === '') throw invalidField(field, ref, 'The machine type must be specified.');
  const parts = splitResourcePath(resourcePath(ref, project))?.rest ?? [];
  if (parts[0] !== 'zones' || parts[2] !== 'machineTypes' || parts.length !== 4) {
    throw invalidField(field, ref, 'Expected zones/{zone}/machineTypes/{machineType}.');
  }
  if (parts[1] !== zone) throw invalidField(field, ref, `Machine type must be in zone '${zone}'.`);
  const name = parts[3] as string;
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
  const path = resourcePath(ref, project);
  const split = splitResourcePath(path);
  const rest = split?.rest ?? [];
  if (!split || rest[0] !== 'global' || rest[1] !== 'images' || (rest.length !== 3 && !(rest.length === 4 && rest[2] === 'family'))) {
    throw invalidField(field, ref, 'Expected projects/{project}/global/images/{image} or .../images/family/{family}.');
  }
  const img = rest.length === 4 ? latestOfFamily(state, split.project, rest[3] as string) : findImage(state, split.project, rest[2] as string);
  if (!img) throw notFound(path);
  return img;
}

export function resolveDiskTypeRef(state: GceState, project: string, zone: string, ref: unknown, field: string): string {
  if (ref === undefined || ref === null) return 'pd-standard';
  const parts = typeof ref === 'string' ? (splitResourcePath(resourcePath(ref, project))?.rest ?? []) : [];
  const name = parts[3] ?? '';
  if (parts[0] !== 'zones' || parts[2] !== 'diskTypes' || parts.length !== 4 || name === '') {
    throw invalidField(field, ref, 'Expected zones/{zone}/diskTypes/{diskType}.');
  }
  if (parts[1] !== zone) throw invalidField(field, ref, `Disk type must be in zone '${zone}'.`);
  if (!state.world.diskTypes.includes(name)) throw notFound(`projects/${project}/zones/${zone}/diskTypes/${name}`);
  return name;
}

export function resolveAcceleratorRef(state: GceState, project: string, zone: string, ref: unknown, field: string): AcceleratorTypeSpec {
  const parts = typeof ref === 'string' ? (splitResourcePath(resourcePath(ref, project))?.rest ?? []) : [];
  if (parts[0] !== 'zones' || parts[2] !== 'acceleratorTypes' || parts.length !== 4) {
    throw invalidField(field, ref, 'Expected zones/{zone}/acceleratorTypes/{acceleratorType}.');
  }
  if (parts[1] !== zone) throw invalidField(field, ref, `Accelerator type must be in zone '${zone}'.`);
  const name = parts[3] as string;
  const at = state.world.acceleratorTypes.find((a) => a.name === name && zoneOffers(a.zones, zone));
  if (!at) throw notFound(`projects/${project}/zones/${zone}/acceleratorTypes/${name}`);
  return at;
}

export function resolveNetworkRef(state: GceState, project: string, ref: string, field: string): GceNetwork {
  const path = resourcePath(ref, project);
  const split = splitResourcePath(path);
  const rest = split?.rest ?? [];
  if (!split || rest[0] !== 'global' || rest[1] !== 'networks' || rest.length !== 3) {
    throw invalidField(field, ref, 'Expected projects/{project}/global/networks/{network}.');
  }
  const net = state.world.networks.find((n) => n.project === split.project && n.name === rest[2]);
  if (!net) throw notFound(path);
  return net;
}

export function resolveSubnetworkRef(state: GceState, project: string, ref: string, field: string): GceSubnetwork {
  const path = resourcePath(ref, project);
  const split = splitResourcePath(path);
  const rest = split?.rest ?? [];
  if (!split || rest[0] !== 'regions' || rest[2] !== 'subnetworks' || rest.length !== 4) {
    throw invalidField(field, ref, 'Expected projects/{project}/regions/{region}/subnetworks/{subnetwork}.');
  }
  const sub = state.world.subnetworks.find((s) => s.project === split.project && s.region === rest[1] && s.name === rest[3]);
  if (!sub) throw notFound(path);
  return sub;
}
