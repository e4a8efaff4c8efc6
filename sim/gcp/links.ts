// Resource URLs as GCE writes them (self-links on https://www.googleapis.com/compute/v1/) and the parsing of
// the references callers send: full URLs (either host), "projects/p/zones/z/..." or "zones/z/..." forms.

export const SELF_LINK_BASE = 'https://www.googleapis.com/compute/v1/';

export function projectPath(project: string): string {
  return `projects/${project}`;
}
export function zonePath(project: string, zone: string): string {
  return `projects/${project}/zones/${zone}`;
}
export function regionPath(project: string, region: string): string {
  return `projects/${project}/regions/${region}`;
}
export function instancePath(project: string, zone: string, name: string): string {
  return `${zonePath(project, zone)}/instances/${name}`;
}
export function machineTypePath(project: string, zone: string, name: string): string {
  return `${zonePath(project, zone)}/machineTypes/${name}`;
}
export function imagePath(project: string, name: string): string {
  return `projects/${project}/global/images/${name}`;
}
export function networkPath(project: string, name: string): string {
  return `projects/${project}/global/networks/${name}`;
}
export function subnetworkPath(project: string, region: string, name: string): string {
  return `${regionPath(project, region)}/subnetworks/${name}`;
}

export function selfLink(path: string): string {
  return SELF_LINK_BASE + path;
}

/** The region of a zone name ("us-central1-a" → "us-central1"). */
export function regionOfZone(zone: string): string {
  return zone.replace(/-[a-z]$/, '');
}

/**
 * Strips a reference down to its resource path: drops any scheme/host and the "compute/<version>/" prefix,
 * and expands a scope-relative reference ("zones/z/machineTypes/t", "global/images/i") with the default project.
 */
export function resourcePath(ref: string, defaultProject: string): string {
  let s = ref.trim();
  const m = /^https?:\/\/[^/]+\/(.*)$/.exec(s);
  if (m) s = m[1] ?? '';
  s = s.replace(/^compute\/(v1|beta|alpha)\//, '');
  if (s.startsWith('projects/')) return s;
  return `projects/${defaultProject}/${s}`;
}

/** Splits "projects/p/<rest>" into its project and the remaining segments. */
export function splitResourcePath(path: string): { project: string; rest: string[] } | undefined {
  const parts = path.split('/');
  if (parts[0] !== 'projects' || !parts[1]) return undefined;
  return { project: parts[1], rest: parts.slice(2) };
}

/** A JSON field that should be a string; anything else reads as ''. */
export function str(v: unknown): string {
  return typeof v === 'string' ? v : '';
}

/** The last path segment of a URL or path (the resource name). */
export function lastSegment(ref: string): string {
  const parts = ref.split('/');
  return parts[parts.length - 1] ?? '';
}
