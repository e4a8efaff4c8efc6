// Runs a controller binary as a child process (node --import tsx cmd/<name>.ts), as a deployment would,
// against a local control plane, and talks to its health and metrics endpoints.
import { spawn, type ChildProcess } from 'node:child_process';
import { get } from 'node:http';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freeLoopbackPort } from '../../cmd/local/preferred-port.js';

const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

/** A port nobody listens on right now (the child binds it a moment later), never one handed out before. */
export const freePort = freeLoopbackPort;

export interface Child {
  process: ChildProcess;
  output(): string;
  /** Resolves with the exit code. */
  exited: Promise<number | null>;
}

/** `env` adds to (or overrides) the test's environment; KUBECONFIG is cleared unless given. */
export function startBinary(name: string, args: string[], env: NodeJS.ProcessEnv = {}): Child {
  const child = spawn(process.execPath, ['--import', 'tsx', join('cmd', `${name}.ts`), ...args], {
    cwd: repoRoot,
    env: { ...process.env, KUBECONFIG: '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr.on('data', (c: Buffer) => (out += c.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { process: child, output: () => out, exited };
}

export function httpGet(url: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    get(url, (res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    }).on('error', reject);
  });
}

/** Polls an endpoint until it answers 200 (the child may still be starting). */
export async function waitForOk(url: string, child: Child, timeoutMs = 40_000): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      const res = await httpGet(url);
      if (res.status === 200) return res.body;
    } catch {
      // not listening yet
    }
    if (child.process.exitCode !== null)
      throw new Error(`binary exited early (${child.process.exitCode}):\n${child.output()}`);
    if (Date.now() > deadline) throw new Error(`${url} never answered 200:\n${child.output()}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
