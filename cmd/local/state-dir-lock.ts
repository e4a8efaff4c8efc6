// One machine-api-local per state directory. Two runs on one directory rewrite each other's kubeconfig and
// restore each other's half-saved worlds (one instance ends up behind two Machines, and deleting one Machine
// terminates the other's instance). The lock is a file holding the owner's pid: taken with an exclusive
// create, released on stop or exit, and taken over only when that pid no longer runs (a run killed with -9).
import { closeSync, openSync, readFileSync, unlinkSync, writeSync } from 'node:fs';
import { join } from 'node:path';

export const STATE_DIR_LOCK_FILE = 'machine-api-local.lock';

export interface StateDirLockOwner {
  pid: number;
  provider: string;
  startedAt: string;
}

export class StateDirLockedError extends Error {
  override readonly name = 'StateDirLockedError';
  constructor(
    readonly stateDir: string,
    readonly owner: StateDirLockOwner,
  ) {
    super(
      `state directory ${stateDir} is in use by machine-api-local pid ${owner.pid} (provider ${owner.provider}, started ${owner.startedAt}); ` +
        'stop that run first (Ctrl-C in its terminal), or choose another directory with --state-dir',
    );
  }
}

export interface StateDirLock {
  readonly path: string;
  /** Removes the lock file if it is still ours. Idempotent and synchronous, so it can run in an exit handler. */
  release(): void;
}

export interface LockStateDirOptions {
  provider: string;
  /** Default process.pid. */
  pid?: number;
  /** Whether a process with this pid runs; default asks the OS with signal 0. */
  isAlive?: (pid: number) => boolean;
  /** Default the current time. */
  now?: () => Date;
}

/** True unless the OS says no such process; a process we may not signal (EPERM) is alive. */
export function processIsAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function readOwner(path: string): { text: string; owner: StateDirLockOwner | undefined } | undefined {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
  try {
    const o = JSON.parse(text) as Partial<StateDirLockOwner>;
    if (typeof o.pid === 'number' && Number.isInteger(o.pid) && o.pid > 0) {
      return {
        text,
        owner: { pid: o.pid, provider: String(o.provider ?? 'unknown'), startedAt: String(o.startedAt ?? 'unknown') },
      };
    }
  } catch {
    // An unreadable lock (a run killed while writing it) names no live owner.
  }
  return { text, owner: undefined };
}

/** Takes the lock of `stateDir` (which must exist), or throws StateDirLockedError naming the running owner. */
export function lockStateDir(stateDir: string, opts: LockStateDirOptions): StateDirLock {
  const path = join(stateDir, STATE_DIR_LOCK_FILE);
  const pid = opts.pid ?? process.pid;
  const isAlive = opts.isAlive ?? processIsAlive;
  const mine: StateDirLockOwner = {
    pid,
    provider: opts.provider,
    startedAt: (opts.now?.() ?? new Date()).toISOString(),
  };
  const text = `${JSON.stringify(mine)}\n`;
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      const fd = openSync(path, 'wx', 0o600);
      try {
        writeSync(fd, text);
      } finally {
        closeSync(fd);
      }
      let released = false;
      return {
        path,
        release() {
          if (released) return;
          released = true;
          if (readOwner(path)?.text === text) unlinkSync(path);
        },
      };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    const held = readOwner(path);
    if (held === undefined) continue; // released meanwhile: try again
    if (held.owner && isAlive(held.owner.pid)) throw new StateDirLockedError(stateDir, held.owner);
    // The owner is gone. Remove exactly the stale file we read, so a run that took it over meanwhile keeps it.
    if (readOwner(path)?.text === held.text) {
      try {
        unlinkSync(path);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
      }
    }
  }
  const held = readOwner(path)?.owner;
  throw new StateDirLockedError(stateDir, held ?? { pid: 0, provider: 'unknown', startedAt: 'unknown' });
}
