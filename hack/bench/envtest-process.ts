// The local control plane as its own process (the machine-api-envtest binary): for the whole benchmark, so that
// it has a core of its own and its CPU and memory are measured apart (controlPlaneProcess), and for the one
// fault an in-process server cannot take: a SIGKILL that gives it no chance to flush, close files or answer
// in-flight requests (killedEnvtestProcess). It serves the same data dir, port and token as the in-process one it
// stands in for, so clients reconnect without noticing more than a dropped connection.
import { spawn } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { join } from 'node:path';
import { ControllerProcess, REPO_ROOT } from './controller-process.js';
import { CONTROL_PLANE } from './process-names.js';

export interface KilledEnvtestOptions {
  port: number;
  token: string;
  dataDir: string;
  /** stdout and stderr are appended here (the token goes through the environment, never the command line). */
  logFile: string;
  /** How long the process serves before it is killed. */
  serveMs: number;
  /** Run <compiledDir>/cmd/machine-api-envtest.js with plain node; unset: the source through tsx. */
  compiledDir?: string;
  /** Longest wait for the binary to print its URL. */
  startTimeoutMs?: number;
}

export { CONTROL_PLANE };

const envtestArgs = (o: { port: number; dataDir: string }) => [
  `--port=${o.port}`,
  `--data-dir=${o.dataDir}`,
  `--kubeconfig=${join(o.dataDir, '..', 'kubeconfig-envtest-process')}`,
  `--crds=${join(REPO_ROOT, 'manifests', 'crds')}`,
];

/**
 * machine-api-envtest as a process observed like the controllers: its /metrics (behind the API token) carries its
 * CPU, heap and the requests it answered per client (machine_api_envtest_requests_total).
 */
export function controlPlaneProcess(o: Omit<KilledEnvtestOptions, 'serveMs' | 'startTimeoutMs'>): ControllerProcess {
  return new ControllerProcess({
    name: CONTROL_PLANE,
    script: 'cmd/machine-api-envtest.ts',
    args: envtestArgs(o),
    logFile: o.logFile,
    compiledDir: o.compiledDir,
    metricsFlags: (port) => [`--metrics-bind-address=127.0.0.1:${port}`],
    metricsToken: o.token,
    env: { MACHINE_API_ENVTEST_TOKEN: o.token },
  });
}

export class EnvtestStartError extends Error {
  constructor(
    readonly reason: string,
    readonly logFile: string,
  ) {
    super(`machine-api-envtest did not start: ${reason} (see ${logFile})`);
    this.name = 'EnvtestStartError';
  }
}

/** Starts machine-api-envtest, waits until it serves, lets it serve for serveMs, then SIGKILLs it and waits for its exit. */
export async function killedEnvtestProcess(o: KilledEnvtestOptions): Promise<void> {
  const entry = o.compiledDir
    ? [join(o.compiledDir, 'cmd', 'machine-api-envtest.js')]
    : ['--import', 'tsx', join(REPO_ROOT, 'cmd', 'machine-api-envtest.ts')];
  const args = envtestArgs(o);
  const child = spawn(process.execPath, [...entry, ...args], {
    cwd: REPO_ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, MACHINE_API_ENVTEST_TOKEN: o.token },
  });
  const log = createWriteStream(o.logFile, { flags: 'a', mode: 0o600 });
  child.stderr.pipe(log, { end: false });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  try {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new EnvtestStartError(`no URL within ${o.startTimeoutMs ?? 60_000} ms`, o.logFile)),
        o.startTimeoutMs ?? 60_000,
      );
      let out = '';
      child.stdout.on('data', (c: Buffer) => {
        out += c.toString('utf8');
        if (out.includes('\n')) {
          clearTimeout(timer);
          resolve();
        }
      });
      child.once('exit', (code, signal) => {
        clearTimeout(timer);
        reject(new EnvtestStartError(`exited with ${signal ?? `code ${code}`}`, o.logFile));
      });
    });
    await new Promise((resolve) => setTimeout(resolve, o.serveMs));
  } finally {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await exited;
    log.end();
  }
}
