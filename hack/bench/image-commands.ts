// What a container of the Deployment runs, read as the image runs it: the operator's commands are links to
// image/launch, which picks the entry point by the command's name (the provider binary of the image's cloud
// for /machine-controller-manager) and starts it with node and the launcher's heap cap.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** The commands the image holds at its root, and the entry point (relative to the repo) each starts. */
export function imageCommandEntry(command: string, cloud: string): string | undefined {
  switch (command) {
    case '/machine-controller-manager':
      return `cmd/machine-api-provider-${cloud}.ts`;
    case '/machineset-controller':
    case '/nodelink-controller':
    case '/machine-healthcheck':
    case '/termination-handler':
      return `cmd${command}.ts`;
    default:
      return undefined;
  }
}

/** The node flags image/launch starts every binary with: its default heap cap. */
export function launchNodeFlags(): string[] {
  const launch = readFileSync(join(REPO_ROOT, 'image', 'launch'), 'utf8');
  const mb = /\$\{MACHINE_API_MAX_OLD_SPACE_MB:-(\d+)\}/.exec(launch)?.[1];
  if (!mb) throw new Error('image/launch: no default for MACHINE_API_MAX_OLD_SPACE_MB');
  return [`--max-old-space-size=${mb}`];
}
