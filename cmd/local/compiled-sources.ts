// The repository's TypeScript (lib/, providers/, cmd/) compiled to plain JavaScript, so that a controller
// binary started as its own process runs with `node <file>.js` as it does in its container, instead of
// transpiling its sources at every start through tsx (seconds per process, and roughly twice the memory).
//
// esbuild transpiles file by file (no bundling, so every module keeps its own import.meta.url and the tree
// keeps its shape); type checking stays with `npm run typecheck`. The output directory is named by a hash
// of the sources and never changes once written: a running binary restarted later, or another run on the
// same checkout, can never see files swapped under it. Directories unused for a day are removed.
import { createHash } from 'node:crypto';
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { join, relative } from 'node:path';
import { buildSync } from 'esbuild';

/** The folders whose sources make up the binaries. */
const SOURCE_DIRS = ['lib', 'providers', 'sim', 'cmd'];
/** A compiled tree nobody has used for this long is removed by the next compile. */
const UNUSED_FOR_MS = 24 * 60 * 60 * 1000;
const LAST_USED = '.last-used';

export class CompileSourcesError extends Error {
  constructor(readonly errors: string[]) {
    super(`compiling the controller binaries failed: ${errors.slice(0, 5).join('; ')}`);
    this.name = 'CompileSourcesError';
  }
}

function sourceFiles(root: string): string[] {
  const files: string[] = [];
  const walk = (dir: string): void => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const p = join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name.endsWith('.ts') && !e.name.endsWith('.d.ts')) files.push(p);
    }
  };
  for (const d of SOURCE_DIRS) walk(join(root, d));
  return files.sort();
}

function hashOf(root: string, files: string[]): string {
  const h = createHash('sha256');
  for (const f of [...files, join(root, 'tsconfig.json'), join(root, 'package.json')]) {
    h.update(relative(root, f)).update('\0').update(readFileSync(f)).update('\0');
  }
  return h.digest('hex').slice(0, 16);
}

function removeUnused(parent: string, keep: string, now: number): void {
  for (const e of readdirSync(parent, { withFileTypes: true })) {
    if (!e.isDirectory() || e.name === keep) continue;
    const dir = join(parent, e.name);
    try {
      const used = existsSync(join(dir, LAST_USED)) ? statSync(join(dir, LAST_USED)).mtimeMs : statSync(dir).mtimeMs;
      if (now - used > UNUSED_FOR_MS) rmSync(dir, { recursive: true, force: true });
    } catch {
      // Another run may be removing it at the same moment; what is left goes next time.
    }
  }
}

/** The compiled file of a source script given relative to the root (`cmd/x.ts` → `<dir>/cmd/x.js`). */
export function compiledEntry(dir: string, script: string): string {
  return join(dir, script.replace(/\.ts$/, '.js'));
}

export interface CompiledSources {
  /** The directory holding cmd/, lib/ and providers/ as .js files. */
  dir: string;
  /** False when an earlier compile of the same sources was reused. */
  built: boolean;
}

/**
 * Compiles the sources under `root` into `<root>/.tmp/compiled/<hash>/` unless that directory exists already,
 * and returns it. It lives under the repository root so that package imports resolve from its node_modules.
 */
export function compileSources(root: string, now = Date.now()): CompiledSources {
  const files = sourceFiles(root);
  const parent = join(root, '.tmp', 'compiled');
  const hash = hashOf(root, files);
  const dir = join(parent, hash);
  mkdirSync(parent, { recursive: true });
  let built = false;
  if (!existsSync(dir)) {
    // Written aside and renamed into place, so the directory under its final name is always complete.
    const staging = join(parent, `.staging-${hash}-${process.pid}`);
    rmSync(staging, { recursive: true, force: true });
    try {
      const result = buildSync({
        entryPoints: files,
        outdir: staging,
        outbase: root,
        format: 'esm',
        platform: 'node',
        target: 'node22',
        bundle: false,
        logLevel: 'silent',
        tsconfig: join(root, 'tsconfig.json'),
      });
      if (result.errors.length > 0) throw new CompileSourcesError(result.errors.map((e) => e.text));
    } catch (err) {
      rmSync(staging, { recursive: true, force: true });
      if (err instanceof CompileSourcesError) throw err;
      const errors = (err as { errors?: Array<{ text: string; location?: { file: string; line: number } | null }> })
        .errors;
      throw new CompileSourcesError(
        errors?.map((e) => (e.location ? `${e.location.file}:${e.location.line}: ${e.text}` : e.text)) ?? [String(err)],
      );
    }
    // The compiled files are ES modules wherever the tree sits.
    writeFileSync(join(staging, 'package.json'), '{ "type": "module" }\n');
    try {
      renameSync(staging, dir);
      built = true;
    } catch (err) {
      // Another run compiled the same sources first: theirs is identical, keep it.
      rmSync(staging, { recursive: true, force: true });
      if (!existsSync(dir)) throw err;
    }
  }
  const stamp = join(dir, LAST_USED);
  const at = new Date(now);
  if (existsSync(stamp)) utimesSync(stamp, at, at);
  else writeFileSync(stamp, '');
  removeUnused(parent, hash, now);
  return { dir, built };
}
