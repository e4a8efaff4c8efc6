// The flags of machine-api-local (`npm start`).
import { Command, InvalidArgumentError, Option } from 'commander';
import { addVersionFlag } from '../internal/version.js';
import { parseGoDuration } from '../internal/index.js';
import type { ControllersMode } from './controller-binaries.js';
import { localProviders } from './providers.js';

export interface LocalCliOptions {
  provider: string;
  /** Undefined: the previous run's port when it is free, else any free port. */
  port: number | undefined;
  stateDir: string;
  bootDelayMs: number;
  terminateDelayMs: number;
  latencyMs: number;
  samples: boolean;
  tty: boolean;
  controllers: ControllersMode;
  rbac: boolean;
  v: number;
  pprof: boolean;
}

function port(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 65535)
    throw new InvalidArgumentError(`--port must be an integer from 0 to 65535, got ${JSON.stringify(value)}`);
  return n;
}

function duration(flag: string) {
  return (value: string): number => {
    let ms: number;
    try {
      ms = parseGoDuration(value, flag);
    } catch (err) {
      throw new InvalidArgumentError((err as Error).message);
    }
    if (ms < 0) throw new InvalidArgumentError(`${flag} must not be negative, got ${JSON.stringify(value)}`);
    return ms;
  };
}

function level(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0)
    throw new InvalidArgumentError(`-v must be an integer >= 0, got ${JSON.stringify(value)}`);
  return n;
}

export function buildLocalProgram(): Command {
  return addVersionFlag(new Command('machine-api-local'))
    .description(
      'Runs the whole Machine API with no cloud account and no cluster: a local API server, a cloud emulator, a kubelet simulator ' +
        'and every controller binary. Then: KUBECONFIG=<state-dir>/kubeconfig kubectl get machines -A',
    )
    .addOption(new Option('--provider <name>', 'Cloud to emulate').choices(Object.keys(localProviders)).default('aws'))
    .addOption(
      new Option(
        '--port <port>',
        "API server port on 127.0.0.1 (0 = any free port; default: the previous run's port when free)",
      ).argParser(port),
    )
    .option(
      '--state-dir <dir>',
      'Keeps kubeconfig, endpoints.json, API objects and cloud instances across restarts',
      '.local',
    )
    .addOption(
      new Option('--boot-delay <duration>', 'How long an emulated instance takes to boot (Go duration)')
        .default(3_000, '3s')
        .argParser(duration('--boot-delay')),
    )
    .addOption(
      new Option('--terminate-delay <duration>', 'How long an emulated instance takes to shut down (Go duration)')
        .default(1_000, '1s')
        .argParser(duration('--terminate-delay')),
    )
    .addOption(
      new Option('--latency <duration>', 'Latency the emulator adds to every cloud call (Go duration)')
        .default(0, '0s')
        .argParser(duration('--latency')),
    )
    .option(
      '--no-samples',
      'Do not create the sample MachineSet and MachineHealthCheck (the secrets are still created)',
    )
    .option('--no-tty', 'Print one line per change instead of the live view, even on a terminal')
    .addOption(
      new Option(
        '--controllers <mode>',
        'processes: run each binary as its own process from the compiled sources, restarted when it exits (logs in <state-dir>/logs/); in-process: run every binary inside this process (logs in <state-dir>/controllers.log); none: run only the API server, emulator and kubelet simulator (start the binaries yourself, see endpoints.json "binaries")',
      )
        .choices(['processes', 'in-process', 'none'])
        .default('processes'),
    )
    .option(
      '--rbac',
      "Authorize every API request with RBAC and run each controller as the ServiceAccount of its Deployment, with the roles in manifests/rbac (a missing right is a 403 in that controller's log)",
    )
    .option(
      '--pprof',
      'Serve each controller binary\'s profiling endpoints (--enable-pprof) on a loopback port of its own, listed in <state-dir>/endpoints.json "pprof"',
    )
    .addOption(
      new Option(
        '-v, --v <level>',
        'Controller log verbosity (logs in <state-dir>/logs/, or <state-dir>/controllers.log with --controllers in-process)',
      )
        .default(0)
        .argParser(level),
    );
}

export function readLocalOptions(program: Command): LocalCliOptions {
  const o = program.opts();
  return {
    provider: o.provider as string,
    port: o.port as number | undefined,
    stateDir: o.stateDir as string,
    bootDelayMs: o.bootDelay as number,
    terminateDelayMs: o.terminateDelay as number,
    latencyMs: o.latency as number,
    samples: o.samples !== false,
    tty: o.tty !== false,
    controllers: o.controllers as ControllersMode,
    rbac: o.rbac === true,
    v: o.v as number,
    pprof: o.pprof === true,
  };
}
