// `npm start` (cmd/machine-api-local.ts) as a child process for e2e tests: started on a state directory with
// short boot and shutdown delays, ready once it prints its kubectl hint, stopped with SIGTERM; plus the
// polling helper those tests wait with.
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const repo = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');

/** Polls `probe` until it returns a value (not undefined); its errors count as "not yet". */
export async function eventually<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 90_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await probe();
      if (v !== undefined) return v;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline)
      throw new Error(`timed out waiting for ${what}${last ? `: ${(last as Error).message}` : ''}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** False once the process is gone or a zombie (exited, not yet reaped). */
export function processRunning(pid: number): boolean {
  try {
    return readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.[0] !== 'Z';
  } catch {
    return false;
  }
}

export class LocalProcess {
  readonly child: ChildProcess;
  stdout = '';
  stderr = '';
  readonly exited: Promise<number | null>;

  constructor(stateDir: string, extraArgs: string[] = []) {
    this.child = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        'cmd/machine-api-local.ts',
        '--no-tty',
        '--state-dir',
        stateDir,
        '--boot-delay',
        '300ms',
        '--terminate-delay',
        '0s',
        ...extraArgs,
      ],
      { cwd: repo, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    this.child.stdout!.on('data', (d: Buffer) => (this.stdout += d.toString()));
    this.child.stderr!.on('data', (d: Buffer) => (this.stderr += d.toString()));
    this.exited = new Promise((resolve) => this.child.once('exit', (code) => resolve(code)));
  }

  async ready(): Promise<void> {
    await eventually(
      'machine-api-local to print the kubectl hint',
      async () => {
        if (this.child.exitCode !== null) throw new Error(`exited ${this.child.exitCode}: ${this.stderr}`);
        return this.stdout.includes('Try: KUBECONFIG=') ? true : undefined;
      },
      90_000,
    );
  }

  /** The controller binaries' pids from the start-up line ("machineset-controller (pid 123), …, each its own process"). */
  binaryPids(): Map<string, number> {
    const line = this.stdout.split('\n').find((l) => l.includes('each its own process')) ?? '';
    const pids = new Map<string, number>();
    for (const part of line.replace(/^machine-api-local: controllers /, '').split(', ')) {
      const m = /^([a-z-]+) \(pid (\d+)\)/.exec(part);
      if (m) pids.set(m[1]!, Number(m[2]));
    }
    return pids;
  }

  /** Sends SIGTERM; resolves with the exit code and how long it took. */
  async terminate(): Promise<{ code: number | null; ms: number }> {
    const start = Date.now();
    this.child.kill('SIGTERM');
    const code = await Promise.race([
      this.exited,
      new Promise<'timeout'>((r) => setTimeout(() => r('timeout'), 15_000)),
    ]);
    if (code === 'timeout') {
      this.child.kill('SIGKILL');
      throw new Error('machine-api-local did not exit within 15 s of SIGTERM');
    }
    return { code, ms: Date.now() - start };
  }
}
