// The controller binaries of a local environment: which ones a provider's Deployment runs, the flags each gets
// locally, and starting them in this process or as supervised child processes, with the commands that run them
// by hand.
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Logger, Manager } from '../../lib/index.js';
import { machineHealthCheckBinary } from '../machine-healthcheck.js';
import { machineSetControllerBinary } from '../machineset-controller.js';
import { nodeLinkControllerBinary } from '../nodelink-controller.js';
import { BinaryProcesses } from './binary-processes.js';
import { compiledEntry, compileSources } from './compiled-sources.js';
import { localBinaryFromSpec, type LocalBinary, type PrepareOptions } from './local-binary.js';
import type { LocalCloud, LocalProvider } from './providers.js';

/** The namespace the binaries run in and watch, as the operator deploys them. */
export const LOCAL_NAMESPACE = 'openshift-machine-api';

/**
 * in-process: every binary runs in this process (the library's default: tests start it many times).
 * processes: every binary runs as its own child process with the command of endpoints.json "binaries" (plain
 * node on the compiled sources), its output in <stateDir>/logs/<name>.log, started again whenever it exits
 * (as a Deployment's containers are). What `npm start` does.
 * none: only the control plane, the emulator and the kubelet simulator; run the binaries yourself as separate
 * processes with the commands in endpoints.json "binaries" (what benchmarks of the real binaries do).
 */
export type ControllersMode = 'in-process' | 'processes' | 'none';

export interface BinaryCommand {
  name: string;
  /** Run the command from here (the repository root). */
  cwd: string;
  /** argv, starting with the node executable. */
  command: string[];
  /**
   * The process running it now: its own child process (kept current across restarts; absent while it is down),
   * or with --controllers in-process the npm start process itself. Absent with --controllers none.
   */
  pid?: number;
}

export interface RunningBinary {
  name: string;
  manager: Manager;
  /** Settles when the manager has stopped; rejects if it failed. */
  done: Promise<void>;
}

/** The binaries of a provider's Deployment: the provider binary, the MachineSet, NodeLink and MachineHealthCheck controllers. */
export function binariesOf(provider: LocalProvider): LocalBinary[] {
  return [
    provider.binary,
    localBinaryFromSpec(machineSetControllerBinary, 'cmd/machineset-controller.ts'),
    localBinaryFromSpec(nodeLinkControllerBinary, 'cmd/nodelink-controller.ts'),
    localBinaryFromSpec(machineHealthCheckBinary, 'cmd/machine-healthcheck.ts'),
  ];
}

/** The flags each binary gets locally: the operator's, minus the listeners (ports would clash), plus the kubeconfig. */
export function localArgs(
  binary: LocalBinary,
  provider: LocalProvider,
  cloud: LocalCloud,
  o: LocalArgsOptions,
): string[] {
  const serve = o.servePorts?.[binary.name];
  const args = [
    `--kubeconfig=${o.kubeconfigPath}`,
    `--namespace=${LOCAL_NAMESPACE}`,
    `--metrics-bind-address=${serve ? `127.0.0.1:${serve.metrics}` : '0'}`,
    `--health-addr=${serve ? `127.0.0.1:${serve.health}` : ''}`,
    '--graceful-shutdown-timeout=5s',
    `--v=${o.verbosity}`,
  ];
  if (o.leaderElect)
    args.push(
      '--leader-elect=true',
      '--leader-elect-lease-duration=15s',
      `--leader-elect-resource-namespace=${LOCAL_NAMESPACE}`,
    );
  if (binary === provider.binary) args.push(...provider.cloudArgs(cloud));
  // The machineset-controller serves the admission webhooks with the environment's serving certificate on a
  // loopback port the control plane resolves the webhook Service to; without one it runs without them.
  if (binary.name === machineSetControllerBinary.name) {
    if (o.webhook)
      args.push(
        `--webhook-cert-dir=${o.webhook.certDir}`,
        `--webhook-port=${o.webhook.port}`,
        '--webhook-host=127.0.0.1',
      );
    else args.push('--webhook-enabled=false');
  }
  const pprof = o.pprofPorts?.[binary.name];
  if (pprof !== undefined) args.push('--enable-pprof', `--pprof-bind-address=127.0.0.1:${pprof}`);
  return args;
}

/** The flags every binary gets, whatever its role. */
export interface LocalArgsOptions {
  kubeconfigPath: string;
  leaderElect: boolean;
  verbosity: number;
  webhook?: { certDir: string; port: number };
  /** Per binary name: the loopback port of its profiling endpoints (--enable-pprof); none when absent. */
  pprofPorts?: Record<string, number>;
  /** Per binary name: the loopback ports of its /metrics and of its /healthz and /readyz; neither served when absent. */
  servePorts?: Record<string, { metrics: number; health: number }>;
}

export interface ControllerBinariesOptions {
  provider: LocalProvider;
  cloud: LocalCloud;
  /** The repository root: the commands run from here. */
  root: string;
  stateDir: string;
  mode: ControllersMode;
  args: LocalArgsOptions;
  logStream: NodeJS.WritableStream;
  logger: Logger;
  /** The environment the binaries see. */
  env: NodeJS.ProcessEnv;
  machineController?: PrepareOptions['machineController'];
  /** Runs before each child process starts (with RBAC: mints a fresh ServiceAccount token). */
  beforeStart: () => void;
  /** Told each time a binary's pid changes (started, restarted, exited). */
  onPid?: (name: string, pid: number | undefined) => void;
  /** Each started binary registers how to stop it here. */
  undo: Array<() => Promise<void> | void>;
}

export interface StartedBinaries {
  /** How to run each binary as its own process against this environment. */
  commands: BinaryCommand[];
  /** With mode in-process: the managers running here. */
  running: RunningBinary[];
  /** With mode processes: the supervised child processes. */
  processes?: BinaryProcesses;
}

export async function startControllerBinaries(o: ControllerBinariesOptions): Promise<StartedBinaries> {
  const { provider, cloud, root, stateDir, mode, logStream, logger, undo } = o;
  const binaries = binariesOf(provider);
  const argsOf = (b: LocalBinary) => localArgs(b, provider, cloud, o.args);
  // Separate processes run the compiled sources; in-process runs only list the commands, through tsx.
  const compiled = mode === 'in-process' ? undefined : compileSources(root);
  if (compiled?.built) logger.info('compiled the controller binaries', { dir: compiled.dir });
  const entryOf = (b: LocalBinary): string[] =>
    compiled ? [compiledEntry(compiled.dir, b.script)] : ['--import', 'tsx', b.script];
  // A child of this process also stops when this process is killed outright.
  const exitWithParent = compiled
    ? ['--import', pathToFileURL(compiledEntry(compiled.dir, 'cmd/local/exit-with-parent.ts')).href]
    : [];
  const commandOf = (b: LocalBinary, preload: string[]): BinaryCommand => ({
    name: b.name,
    cwd: root,
    command: [process.execPath, ...preload, ...entryOf(b), ...argsOf(b)],
  });
  const commands = binaries.map((b) => commandOf(b, []));
  const supervised = binaries.map((b) => commandOf(b, exitWithParent));
  const running: RunningBinary[] = [];
  let processes: BinaryProcesses | undefined;
  if (mode === 'processes') {
    // A restarted binary reads its kubeconfig again: mint a fresh token into it first.
    processes = new BinaryProcesses({
      commands: supervised,
      logDir: join(stateDir, 'logs'),
      env: o.env,
      logger: logger.child({ component: 'binary-processes' }),
      beforeStart: o.beforeStart,
      onPid: (name, pid) => {
        const c = commands.find((x) => x.name === name);
        if (c) c.pid = pid;
        o.onPid?.(name, pid);
      },
    });
    processes.start();
    const started = processes;
    undo.push(() => started.stop());
  }
  if (mode === 'in-process') {
    const stop = new AbortController();
    for (const b of binaries) {
      const prepared = await b.prepare(argsOf(b), { logStream, env: o.env, machineController: o.machineController });
      const done = prepared.manager.start(stop.signal);
      // A manager that fails is reported by stop(); until then, keep the rejection from going unhandled.
      done.catch((err: unknown) =>
        logger.error('controller binary stopped with an error', { binary: b.name, error: err }),
      );
      running.push({ name: b.name, manager: prepared.manager, done });
      const c = commands.find((x) => x.name === b.name);
      if (c) c.pid = process.pid;
      undo.push(async () => {
        stop.abort();
        await done.catch(() => undefined);
        prepared.close();
      });
    }
  }
  return { commands, running, processes };
}
