// Builds the workspace package @machine-api-ts/lib: compiled JS and .d.ts of lib/, sim/kit/ and sim/apiserver/,
// plus what the package carries beside them (the CRDs the local API server loads, LICENSE, CHANGELOG.md).
//   npm run build:packages
import { execFileSync } from 'node:child_process';
import { cpSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const LIB_PACKAGE_DIR = join(REPO_ROOT, 'packages', 'lib');

export function buildLibPackage(): void {
  for (const dir of ['dist', 'manifests']) rmSync(join(LIB_PACKAGE_DIR, dir), { recursive: true, force: true });
  execFileSync(process.execPath, [join(REPO_ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', LIB_PACKAGE_DIR], {
    cwd: REPO_ROOT,
    stdio: 'inherit',
  });
  // The local API server finds its CRDs by walking up to a folder with package.json and manifests/crds.
  cpSync(join(REPO_ROOT, 'manifests', 'crds'), join(LIB_PACKAGE_DIR, 'manifests', 'crds'), { recursive: true });
  for (const file of ['LICENSE', 'CHANGELOG.md']) cpSync(join(REPO_ROOT, file), join(LIB_PACKAGE_DIR, file));
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) buildLibPackage();
