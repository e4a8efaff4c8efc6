// What every machine-api-provider-<cloud> binary shares: the program and its flags, the Infrastructure
// read, the controllers a provider manager runs, and the run-until-signal tail.
//
// How a provider binary uses it:
//   export function buildProgram(env) {
//     return buildProviderProgram(env, { component: COMPONENT, leaderElectionId: LEADER_ELECTION_ID, cloud: 'IBM Cloud' })
//       .option('--ibm-endpoint <url>', '...', httpUrlArgument('--ibm-endpoint'));
//   }
//   export function wireIbmProvider(mgr, client, opts) {
//     ...build clients, actuator and instance-type catalog...
//     addProviderControllers(mgr, actuator, catalog, opts);   // machine + scale-from-zero (+ NodeLink if asked)
//   }
//   export async function ibmSettingsFromInfrastructure(client, logger) {
//     const ibm = await readPlatformStatus<IbmPlatformStatus>(client, logger, 'ibmcloud');
//     ...
//   }
//   if (isMainModule(import.meta.url)) runMain(COMPONENT, () => runIbmProvider(process.argv, process.env));
import { pathToFileURL } from 'node:url';
import { Command, InvalidArgumentError, Option } from 'commander';
import {
  addMachineController,
  addNodeLinkController,
  addScaleFromZeroController,
  type Actuator,
  type InstanceTypeCatalog,
  type KubeClient,
  type Logger,
  type MachineControllerOptions,
  type ControllerManager,
  type Manager,
} from '../../lib/index.js';
import { goBoolArgument } from './go-bool.js';
import { parseGoDuration } from './go-duration.js';
import { getInfrastructureStatus } from './infrastructure.js';
import { addTrustedCaBundleFlag } from './outbound-http-settings.js';
import { addStandardFlags, type StandardFlags } from './standard-flags.js';

/** The namespace a provider binary watches unless --namespace says otherwise. */
export const MACHINE_API_NAMESPACE = 'openshift-machine-api';

export interface ProviderProgramSpec {
  component: string;
  leaderElectionId: string;
  /** The cloud's name as the help text says it ("AWS", "GCP"). */
  cloud: string;
}

/** The program with the standard flags and the provider defaults (metrics :8081, health :9440, the Machine API namespace). */
export function buildProviderProgram(env: NodeJS.ProcessEnv, spec: ProviderProgramSpec): Command {
  const program = new Command()
    .name(spec.component)
    .description(
      `Runs the Machine API machine controller with the ${spec.cloud} actuator and the scale-from-zero MachineSet controller.`,
    )
    .showHelpAfterError();
  addStandardFlags(
    program,
    { leaderElectionId: spec.leaderElectionId, metricsBindAddress: ':8081', healthAddr: ':9440' },
    env.KUBECONFIG,
  );
  addTrustedCaBundleFlag(program);
  // The operator runs NodeLink as its own nodelink-controller container; running it here as well would link
  // every Node twice. The flag is for a setup without the operator that wants one process.
  program.addOption(
    new Option(
      '--with-nodelink [bool]',
      'Also run NodeLink in this process (off: the operator runs it as the nodelink-controller container)',
    )
      .default(false)
      .argParser(goBoolArgument('--with-nodelink')),
  );
  program.addOption(
    new Option(
      '--capacity-retry-window <duration>',
      'How long a create the cloud refuses for want of capacity or quota is retried, from the first refusal, before the Machine goes Failed (InsufficientResources); 0 fails it at once',
    )
      .default(120_000, '2m')
      .argParser(capacityRetryWindowArgument),
  );
  const ns = program.options.find((o: Option) => o.long === '--namespace');
  ns?.default(MACHINE_API_NAMESPACE);
  if (ns) ns.description = 'Namespace the controllers watch ("" for all namespaces)';
  return program;
}

/** A commander argument parser accepting an http(s) URL; `trimTrailingSlash` drops trailing slashes. */
export function httpUrlArgument(
  flag: string,
  opts: { example?: string; trimTrailingSlash?: boolean } = {},
): (value: string) => string {
  return (value: string) => {
    try {
      const u = new URL(value);
      if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new Error('not http(s)');
      return opts.trimTrailingSlash ? value.replace(/\/+$/, '') : value;
    } catch {
      const example = opts.example ? ` such as ${opts.example}` : '';
      throw new InvalidArgumentError(`${flag} must be an http(s) URL${example}, got ${JSON.stringify(value)}`);
    }
  };
}

export interface ProviderControllerOptions {
  maxConcurrentReconciles?: number;
  featureGates?: Record<string, boolean>;
  /** Also register NodeLink (a single-process setup); the operator's layout runs it in its own container. */
  nodeLink?: boolean;
  /** Overrides for the machine controller (tests shorten its requeue). */
  machineController?: Omit<MachineControllerOptions, 'maxConcurrentReconciles' | 'featureGates'>;
}

/** Registers what a provider manager runs: the machine controller on `actuator`, scale-from-zero on `catalog`, and NodeLink when asked. */
export function addProviderControllers(
  mgr: ControllerManager,
  actuator: Actuator,
  catalog: InstanceTypeCatalog,
  opts: ProviderControllerOptions,
): void {
  addMachineController(mgr, actuator, {
    ...opts.machineController,
    maxConcurrentReconciles: opts.maxConcurrentReconciles,
    featureGates: opts.featureGates,
  });
  addScaleFromZeroController(mgr, catalog, { maxConcurrentReconciles: opts.maxConcurrentReconciles });
  if (opts.nodeLink) addNodeLinkController(mgr, { maxConcurrentReconciles: opts.maxConcurrentReconciles });
}

/**
 * What runs a provider binary besides its flags: its main() passes the process's environment, and npm start, which
 * runs the same preparation in its own process, also passes where the log goes and how its machine controller
 * follows terminations. Every provider binary and its npm start entry go through the one prepare function.
 */
export interface ProviderPrepareOptions {
  logStream?: NodeJS.WritableStream;
  env?: NodeJS.ProcessEnv;
  machineController?: Pick<MachineControllerOptions, 'terminationFollow'>;
}

/** A provider binary ready to run: its manager, its logger, and what to release once the manager stopped. */
export interface PreparedProvider {
  manager: Manager;
  logger: Logger;
  close(): void | Promise<void>;
}

/** The controller options a provider program's flags give (workers, feature gates, --with-nodelink). */
export function providerControllerFlags(
  program: Command,
  flags: StandardFlags,
  overrides: Pick<MachineControllerOptions, 'terminationFollow'> = {},
): ProviderControllerOptions {
  return {
    maxConcurrentReconciles: flags.maxConcurrentReconciles,
    featureGates: flags.featureGates,
    nodeLink: program.opts<{ withNodelink?: boolean }>().withNodelink === true,
    machineController: {
      capacityRetryWindowMs: program.opts<{ capacityRetryWindow?: number }>().capacityRetryWindow,
      ...overrides,
    },
  };
}

function capacityRetryWindowArgument(value: string): number {
  let ms: number;
  try {
    ms = parseGoDuration(value, '--capacity-retry-window');
  } catch (err) {
    throw new InvalidArgumentError((err as Error).message);
  }
  if (ms < 0)
    throw new InvalidArgumentError(`--capacity-retry-window must not be negative, got ${JSON.stringify(value)}`);
  return ms;
}

/**
 * status.platformStatus.<platform> of the Infrastructure "cluster", read once at start. A cluster without it
 * (or an API error) yields undefined: the binary then runs on flags and providerSpec settings alone.
 */
export async function readPlatformStatus<T>(
  client: KubeClient,
  logger: Logger,
  platform: string,
): Promise<T | undefined> {
  try {
    const status = await getInfrastructureStatus(client);
    return status.platformStatus?.[platform] as T | undefined;
  } catch (err) {
    logger.info('no readable Infrastructure "cluster"; using flag and providerSpec settings only', {
      error: err instanceof Error ? err.message : String(err),
    });
    return undefined;
  }
}

/** Whether the module at `importMetaUrl` is the one node was started with. */
export function isMainModule(importMetaUrl: string): boolean {
  return importMetaUrl === pathToFileURL(process.argv[1] ?? '').href;
}

/** Runs a binary's main; a failure to start prints "<component>: <message>" and exits 1. */
export function runMain(component: string, main: () => Promise<unknown>): void {
  main().catch((err: unknown) => {
    process.stderr.write(`${component}: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  });
}
