// The benchmark and the chaos runs start the controllers as a deployment does: compiled JavaScript run by
// plain node, not through tsx (whose on-the-fly transpiling roughly doubles a process's memory). The
// compiled tree is the one `npm start` uses (cmd/local/compiled-sources.ts): named by a hash of the
// sources, so a run's binaries never change under it, and reused until a source file changes.
import { compileSources } from '../../cmd/local/compiled-sources.js';
import { REPO_ROOT } from './controller-process.js';

/** Returns the directory holding cmd/*.js, compiling it first when the sources changed. */
export function ensureCompiled(log: (line: string) => void): string {
  const compiled = compileSources(REPO_ROOT);
  if (compiled.built) log(`compiled the controllers into ${compiled.dir}`);
  return compiled.dir;
}
