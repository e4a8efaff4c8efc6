// Proves a provider team can build on the published package: packs @machine-api-ts/lib, installs the tarball into
// a fresh project outside this repository, copies examples/example-provider there (it names only the package),
// type-checks it with tsc against the package's .d.ts, and runs its conformance suite from the installed kit.
//   npm run verify:package [-- --keep] [-- --built (the package is built already, as after npm run api:check)]
import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildLibPackage, LIB_PACKAGE_DIR } from './build.js';

const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));
const EXAMPLE_DIR = join(REPO_ROOT, 'examples', 'example-provider');

function run(cmd: string, args: string[], cwd: string): string {
  console.log(`$ (${cwd}) ${cmd} ${args.join(' ')}`);
  return execFileSync(cmd, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
}

/** Every import in the example must name a package: a relative path out of its folder would test this repository. */
function assertNoPathIntoRepository(project: string): void {
  for (const dir of ['src', 'test']) {
    for (const file of readdirSync(join(project, dir), { recursive: true, encoding: 'utf8' })) {
      if (!file.endsWith('.ts')) continue;
      const text = readFileSync(join(project, dir, file), 'utf8');
      for (const m of text.matchAll(/from '([^']+)'/g)) {
        const spec = m[1] ?? '';
        if (spec.startsWith('/') || spec.startsWith('../../') || spec.includes(REPO_ROOT))
          throw new Error(`${dir}/${file} imports ${spec}: the example may name only packages and its own files`);
      }
    }
  }
}

export function verifyLibPackage(opts: { keep: boolean; build: boolean }): void {
  if (opts.build) buildLibPackage();
  const work = mkdtempSync(join(tmpdir(), 'machine-api-ts-package-'));
  if (!relative(REPO_ROOT, work).startsWith('..')) throw new Error(`${work} is inside the repository`);
  try {
    const packed = JSON.parse(run('npm', ['pack', '--json', '--pack-destination', work], LIB_PACKAGE_DIR)) as {
      filename: string;
      files: { path: string }[];
    }[];
    const tarball = join(work, packed[0]?.filename ?? '');
    const files = packed[0]?.files.map((f) => f.path) ?? [];
    for (const want of ['LICENSE', 'CHANGELOG.md', 'dist/lib/index.d.ts', 'dist/sim/kit/index.js'])
      if (!files.includes(want)) throw new Error(`the package lacks ${want}`);
    if (files.some((f) => f.startsWith('dist/providers/') || f.startsWith('dist/cmd/')))
      throw new Error('the package carries a provider or a binary');

    const project = join(work, 'example-provider');
    for (const part of ['src', 'test', 'tsconfig.json', 'package.json'])
      cpSync(join(EXAMPLE_DIR, part), join(project, part), { recursive: true });
    assertNoPathIntoRepository(project);
    const pkg = JSON.parse(readFileSync(join(project, 'package.json'), 'utf8')) as {
      dependencies: Record<string, string>;
    };
    pkg.dependencies['@machine-api-ts/lib'] = `file:${tarball}`;
    writeFileSync(join(project, 'package.json'), JSON.stringify(pkg, null, 2));

    // The packages npm ci fetched for this repository are in npm's cache; anything else comes from the registry.
    run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', '--loglevel=error'], project);
    run('npm', ['run', 'typecheck'], project);
    console.log(run('npm', ['test'], project));
    console.log(`verify:package: ${tarball} installs, type-checks and passes the conformance suite out of tree`);
  } finally {
    if (opts.keep) console.log(`kept ${work}`);
    else rmSync(work, { recursive: true, force: true });
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1])
  verifyLibPackage({ keep: process.argv.includes('--keep'), build: !process.argv.includes('--built') });
