// What --version prints: the package version, and the commit when the binary runs from a git checkout.
// The commit is read from the repository's files (HEAD, the ref it names, packed-refs), never by running
// git, which a container image does not have; a worktree's `.git` file points to its own HEAD.
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Command } from 'commander';

const PACKAGE_NAME = 'machine-api-ts';

export interface BuildVersion {
  version: string;
  /** The full commit hash; undefined outside a git checkout. */
  commit?: string;
}

/** Reads the version from the package.json above `from` (default this module) and the commit of its checkout. */
export function buildVersion(from: string = dirname(fileURLToPath(import.meta.url))): BuildVersion {
  const root = packageRoot(from);
  if (!root) return { version: 'unknown' };
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version?: string };
  const commit = gitCommit(root);
  return { version: pkg.version ?? 'unknown', ...(commit ? { commit } : {}) };
}

/** "machine-api-provider-aws v0.1.0 (commit 44ceeb2f…)" — the Go binaries print "<component> <version>". */
export function versionLine(binary: string, v: BuildVersion = buildVersion()): string {
  return `${binary} v${v.version}${v.commit ? ` (commit ${v.commit})` : ''}`;
}

/** `--version`, as the Go binaries have it: prints versionLine on stdout and exits 0. Call after naming the program. */
export function addVersionFlag(cmd: Command): Command {
  return cmd.version(versionLine(cmd.name()), '--version', 'print version and exit');
}

function packageRoot(from: string): string | undefined {
  let dir = resolve(from);
  for (let i = 0; i < 10; i++) {
    const file = join(dir, 'package.json');
    if (existsSync(file)) {
      try {
        if ((JSON.parse(readFileSync(file, 'utf8')) as { name?: string }).name === PACKAGE_NAME) return dir;
      } catch {
        // not ours: keep walking up
      }
    }
    const up = dirname(dir);
    if (up === dir) return undefined;
    dir = up;
  }
  return undefined;
}

/** The commit HEAD points to in the checkout at or above `dir` (a compiled tree inside a checkout counts). */
export function gitCommit(dir: string): string | undefined {
  let d = resolve(dir);
  for (let i = 0; i < 6; i++) {
    const dotGit = join(d, '.git');
    if (existsSync(dotGit)) return commitOf(dotGit);
    const up = dirname(d);
    if (up === d) return undefined;
    d = up;
  }
  return undefined;
}

function commitOf(dotGit: string): string | undefined {
  try {
    let gitDir = dotGit;
    if (statSync(dotGit).isFile()) {
      const pointer = readFileSync(dotGit, 'utf8').trim();
      if (!pointer.startsWith('gitdir:')) return undefined;
      const target = pointer.slice('gitdir:'.length).trim();
      gitDir = isAbsolute(target) ? target : resolve(dirname(dotGit), target);
    }
    const commonFile = join(gitDir, 'commondir');
    const commonDir = existsSync(commonFile) ? resolve(gitDir, readFileSync(commonFile, 'utf8').trim()) : gitDir;
    const head = readFileSync(join(gitDir, 'HEAD'), 'utf8').trim();
    if (!head.startsWith('ref:')) return isHash(head) ? head : undefined;
    const ref = head.slice('ref:'.length).trim();
    for (const base of [gitDir, commonDir]) {
      const file = join(base, ref);
      if (existsSync(file)) {
        const hash = readFileSync(file, 'utf8').trim();
        return isHash(hash) ? hash : undefined;
      }
    }
    return packedRef(commonDir, ref);
  } catch {
    return undefined;
  }
}

function packedRef(commonDir: string, ref: string): string | undefined {
  const file = join(commonDir, 'packed-refs');
  if (!existsSync(file)) return undefined;
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    const space = line.indexOf(' ');
    if (space > 0 && line.slice(space + 1) === ref && isHash(line.slice(0, space))) return line.slice(0, space);
  }
  return undefined;
}

function isHash(s: string): boolean {
  if (s.length !== 40 && s.length !== 64) return false;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (!((c >= 0x30 && c <= 0x39) || (c >= 0x61 && c <= 0x66))) return false;
  }
  return true;
}
