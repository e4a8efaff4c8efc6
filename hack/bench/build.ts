// The benchmark runs the controllers as a deployment does: compiled JavaScript, not through tsx (whose
// on-the-fly transpiling roughly doubles a process's memory). Compiled once into .tmp/bench-dist and
// reused until a source file changes.
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readdirSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from './controller-process.js';

const SOURCES = ['lib', 'providers', 'cmd'];

function newestSource(dir: string): number {
  let newest = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) newest = Math.max(newest, newestSource(p));
    else if (e.name.endsWith('.ts')) newest = Math.max(newest, statSync(p).mtimeMs);
  }
  return newest;
}

/**
 * Returns the directory holding cmd/*.js, building it when missing or older than the sources. `out` defaults
 * to .tmp/bench-dist, shared by benchmark runs; a chaos run, which restarts binaries for its whole length,
 * builds into a directory of its own so that another run's rebuild never swaps files under it.
 */
export function ensureCompiled(log: (line: string) => void, out = join(REPO_ROOT, '.tmp', 'bench-dist')): string {
  const stamp = join(out, '.built');
  const newest = Math.max(...SOURCES.map((d) => newestSource(join(REPO_ROOT, d))), statSync(join(REPO_ROOT, 'tsconfig.json')).mtimeMs);
  if (existsSync(stamp) && statSync(stamp).mtimeMs >= newest) return out;
  log(`compiling the controllers into ${out}`);
  mkdirSync(out, { recursive: true });
  const tsc = join(REPO_ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
  // Type errors elsewhere in the tree do not stop emit; a missing binary afterwards does.
  spawnSync(process.execPath, [tsc, '-p', join(REPO_ROOT, 'tsconfig.build.json'), '--outDir', out], { cwd: REPO_ROOT, stdio: 'ignore' });
  for (const bin of ['cmd/machine-api-provider-aws.js', 'cmd/machineset-controller.js', 'cmd/nodelink-controller.js', 'cmd/machine-healthcheck.js', 'cmd/machine-api-envtest.js']) {
    if (!existsSync(join(out, bin))) throw new Error(`compiling the controllers did not produce ${bin}; run npx tsc -p tsconfig.build.json to see why`);
  }
  // ESM resolution of the compiled files needs the package's type and its node_modules beside them.
  copyFileSync(join(REPO_ROOT, 'package.json'), join(out, 'package.json'));
  if (!existsSync(join(out, 'node_modules'))) symlinkSync(join(REPO_ROOT, 'node_modules'), join(out, 'node_modules'), 'dir');
  writeFileSync(stamp, new Date().toISOString());
  return out;
}
