// The controller binaries as their own processes, as the operator runs them (one container each): each
// command started from the repository root with its output appended to <logDir>/<name>.log, and started
// again after it exits (a crash, a kill) until the environment stops. `beforeStart` runs before every start,
// so a restarted binary picks up fresh credentials (a newly minted ServiceAccount token).
import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Logger } from '../../lib/index.js';

/** Every child is told the supervisor's pid, so it can tell when it has been orphaned (exit-with-parent.ts). */
export const PARENT_PID_ENV = 'MACHINE_API_LOCAL_PARENT_PID';

export interface ProcessCommand {
  name: string;
  cwd: string;
  /** argv, starting with the executable. */
  command: string[];
}

export interface BinaryProcessesOptions {
  commands: ProcessCommand[];
  logDir: string;
  env: NodeJS.ProcessEnv;
  logger: Logger;
  /** Called before each start of a binary (the first and every restart). */
  beforeStart?: (name: string) => void;
  /** Called when a binary's process starts (its pid) and when it exits (undefined). */
  onPid?: (name: string, pid: number | undefined) => void;
  /** Wait before starting an exited binary again (default 1 s), so a binary failing at once does not spin. */
  restartDelayMs?: number;
  /** How long a binary has to exit after SIGTERM before SIGKILL (default 10 s). */
  stopTimeoutMs?: number;
}

interface Supervised {
  command: ProcessCommand;
  child?: ChildProcess;
  exited?: Promise<void>;
  starts: number;
  timer?: NodeJS.Timeout;
}

export class BinaryProcesses {
  private readonly binaries: Supervised[];
  private stopping = false;

  constructor(private readonly opts: BinaryProcessesOptions) {
    this.binaries = opts.commands.map((command) => ({ command, starts: 0 }));
  }

  start(): void {
    mkdirSync(this.opts.logDir, { recursive: true, mode: 0o700 });
    for (const b of this.binaries) this.launch(b);
  }

  /** Each binary's current pid (undefined while it is down) and how many times it was started. */
  status(): Array<{ name: string; pid: number | undefined; starts: number }> {
    return this.binaries.map((b) => ({
      name: b.command.name,
      pid: b.child?.exitCode === null && b.child.signalCode === null ? b.child.pid : undefined,
      starts: b.starts,
    }));
  }

  async stop(): Promise<void> {
    this.stopping = true;
    await Promise.all(
      this.binaries.map(async (b) => {
        clearTimeout(b.timer);
        const child = b.child;
        if (!child || child.exitCode !== null || child.signalCode !== null) return;
        child.kill('SIGTERM');
        const killer = setTimeout(() => child.kill('SIGKILL'), this.opts.stopTimeoutMs ?? 10_000);
        await b.exited;
        clearTimeout(killer);
      }),
    );
  }

  private launch(b: Supervised): void {
    if (this.stopping) return;
    const { name, cwd, command } = b.command;
    try {
      this.opts.beforeStart?.(name);
    } catch (err) {
      this.opts.logger.error('preparing a controller binary failed; trying again', { binary: name, error: err });
      b.timer = setTimeout(() => this.launch(b), this.opts.restartDelayMs ?? 1_000);
      return;
    }
    const log = createWriteStream(join(this.opts.logDir, `${name}.log`), { flags: 'a', mode: 0o600 });
    const [exe, ...args] = command;
    const child = spawn(exe ?? process.execPath, args, {
      cwd,
      env: { ...this.opts.env, [PARENT_PID_ENV]: String(process.pid) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout.pipe(log, { end: false });
    child.stderr.pipe(log, { end: false });
    b.child = child;
    b.starts++;
    this.opts.logger.info('controller binary started', { binary: name, pid: child.pid, starts: b.starts });
    this.opts.onPid?.(name, child.pid);
    b.exited = new Promise<void>((resolve) => {
      child.once('close', (code, signal) => {
        log.end();
        this.opts.onPid?.(name, undefined);
        resolve();
        if (this.stopping) return;
        this.opts.logger.error('controller binary exited; starting it again', { binary: name, code, signal });
        b.timer = setTimeout(() => this.launch(b), this.opts.restartDelayMs ?? 1_000);
      });
    });
    child.once('error', (err) =>
      this.opts.logger.error('controller binary could not start', { binary: name, error: err }),
    );
  }
}
