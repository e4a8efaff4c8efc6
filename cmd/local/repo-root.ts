// The repository (or installed package) root: where manifests/ lives, found by walking up from this module,
// so it works from cmd/local/ under tsx, from dist/cmd/local/ after a build and from the compiled tree .tmp/compiled/<hash>/.
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export function repoRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 8; i++) {
    if (existsSync(join(dir, 'package.json')) && existsSync(join(dir, 'manifests'))) return dir;
    dir = dirname(dir);
  }
  throw new Error('cannot find the machine-api-ts root (a directory with package.json and manifests/) above cmd/local');
}
