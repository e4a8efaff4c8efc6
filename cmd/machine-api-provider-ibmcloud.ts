#!/usr/bin/env node
// machine-api-provider-ibmcloud: the machine controller with the IBM Cloud VPC actuator, the scale-from-zero
// controller and NodeLink, in one manager (leader-election id machine-api-provider-ibmcloud-leader).
// Wiring only: flags and the Infrastructure's endpoint overrides in, one call into lib and providers/ibmcloud out.
import { pathToFileURL } from 'node:url';
import { Command, InvalidArgumentError, type Option } from 'commander';
import {
  addMachineController,
  addNodeLinkController,
  addScaleFromZeroController,
  defineResource,
  RealClock,
  secretReaderFor,
  withSecretReader,
  type Clock,
  type CloudRateLimits,
  type ControllerManager,
  type KubeClient,
  type KubeObject,
  type Logger,
  type MachineControllerOptions,
  type Manager,
} from '../lib/index.js';
import {
  createIbmCloudActuator,
  createIbmCloudInstanceTypeCatalog,
  IbmClientFactory,
  type IbmCloudActuator,
  type IbmCloudActuatorOptions,
  type IbmEndpoints,
  type RetryPolicy,
} from '../providers/ibmcloud/index.js';
import { addStandardFlags, managerFromFlags, readStandardFlags, runUntilSignal, type RunOptions } from './internal/index.js';

export const COMPONENT = 'machine-api-provider-ibmcloud';
export const LEADER_ELECTION_ID = 'machine-api-provider-ibmcloud-leader';
const DEFAULT_NAMESPACE = 'openshift-machine-api';

export interface IbmCloudProviderOptions {
  /** Endpoint overrides; a flag wins over the Infrastructure's serviceEndpoints. */
  endpoints?: IbmEndpoints;
  rateLimits?: CloudRateLimits;
  retry?: Partial<RetryPolicy>;
  batchWindowMs?: number;
  maxConcurrentReconciles?: number;
  featureGates?: Record<string, boolean>;
  /** Overrides for the machine controller (tests shorten its requeue). */
  machineController?: Omit<MachineControllerOptions, 'maxConcurrentReconciles' | 'featureGates'>;
  /** Overrides for the actuator (tests shorten the requeue). */
  actuator?: Partial<Pick<IbmCloudActuatorOptions, 'requeueAfterMs' | 'eventualConsistencyWindowMs' | 'snapshotTtlMs' | 'resolutionTtlMs'>>;
}

export interface IbmCloudProvider {
  actuator: IbmCloudActuator;
  clients: IbmClientFactory;
}

/** Registers the IBM Cloud provider's controllers on a manager; what the binary runs, and what tests run in-process. */
export function wireIbmCloudProvider(mgr: ControllerManager, client: KubeClient, opts: IbmCloudProviderOptions = {}, clock: Clock = mgr.clock): IbmCloudProvider {
  // One factory: the actuator and the catalog share the rate limiter, the tokens and the profile cache.
  const clients = new IbmClientFactory({ clock, endpoints: opts.endpoints, rateLimits: opts.rateLimits, retry: opts.retry, batchWindowMs: opts.batchWindowMs });
  // Credentials and user-data Secrets come from the manager's shared cache, not a GET per reconcile.
  const secretClient = withSecretReader(client, secretReaderFor(mgr, client));
  const actuator = createIbmCloudActuator({ client: secretClient, clock, clientFactory: clients, ...opts.actuator });
  const catalog = createIbmCloudInstanceTypeCatalog({ client: secretClient, clock, clients });
  addMachineController(mgr, actuator, { ...opts.machineController, maxConcurrentReconciles: opts.maxConcurrentReconciles, featureGates: opts.featureGates });
  addScaleFromZeroController(mgr, catalog, { maxConcurrentReconciles: opts.maxConcurrentReconciles });
  addNodeLinkController(mgr, { maxConcurrentReconciles: opts.maxConcurrentReconciles });
  return { actuator, clients };
}

interface IbmPlatformStatus {
  serviceEndpoints?: Array<{ name?: string; url?: string }>;
}

const Infrastructures = defineResource<KubeObject & { status?: { platformStatus?: { ibmcloud?: IbmPlatformStatus } } }>({
  group: 'config.openshift.io',
  version: 'v1',
  plural: 'infrastructures',
  kind: 'Infrastructure',
  namespaced: false,
});

/**
 * The endpoint overrides of the cluster's Infrastructure (status.platformStatus.ibmcloud.serviceEndpoints:
 * IAM, VPC, ResourceManager, GlobalTagging). Read once at start, not per reconcile as the reference does; a
 * cluster without it (or an API error) just gets the public endpoints.
 */
export async function ibmEndpointsFromInfrastructure(client: KubeClient, logger: Logger): Promise<IbmEndpoints> {
  let ibm: IbmPlatformStatus | undefined;
  try {
    ibm = (await client.get(Infrastructures, { name: 'cluster' }, { signal: AbortSignal.timeout(10_000) })).status?.platformStatus?.ibmcloud;
  } catch (err) {
    logger.info('no readable Infrastructure "cluster"; using flag settings and public endpoints', { error: err instanceof Error ? err.message : String(err) });
    return {};
  }
  const out: IbmEndpoints = {};
  for (const e of ibm?.serviceEndpoints ?? []) {
    if (!e.url) continue;
    if (e.name === 'IAM') out.iam = e.url;
    else if (e.name === 'VPC') out.vpc = e.url;
    else if (e.name === 'ResourceManager') out.resourceManager = e.url;
    else if (e.name === 'GlobalTagging') out.globalTagging = e.url;
    else logger.info('ignoring an IBM Cloud service endpoint this provider does not use', { name: e.name });
  }
  return out;
}

function url(flag: string) {
  return (value: string): string => {
    try {
      const u = new URL(value);
      if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new Error('not http(s)');
      return value;
    } catch {
      throw new InvalidArgumentError(`${flag} must be an http(s) URL, got ${JSON.stringify(value)}`);
    }
  };
}

export function buildProgram(env: NodeJS.ProcessEnv): Command {
  const program = new Command()
    .name(COMPONENT)
    .description('Runs the Machine API machine controller with the IBM Cloud VPC actuator, the scale-from-zero MachineSet controller and NodeLink.')
    .showHelpAfterError();
  addStandardFlags(program, { leaderElectionId: LEADER_ELECTION_ID, metricsBindAddress: ':8081', healthAddr: ':9440' }, env.KUBECONFIG);
  // This binary watches the Machine API namespace unless told otherwise.
  const ns = program.options.find((o: Option) => o.long === '--namespace');
  ns?.default(DEFAULT_NAMESPACE);
  if (ns) ns.description = 'Namespace the controllers watch ("" for all namespaces)';
  program
    .option('--ibmcloud-vpc-endpoint <url>', 'VPC API base URL for every region (a private endpoint or an emulator; "/v1" is appended when missing); default: each region\'s public endpoint', url('--ibmcloud-vpc-endpoint'))
    .option('--ibmcloud-iam-endpoint <url>', 'IAM base URL (the token service is <url>/identity/token); default https://iam.cloud.ibm.com', url('--ibmcloud-iam-endpoint'))
    .option('--ibmcloud-resource-manager-endpoint <url>', 'Resource Manager base URL; default https://resource-controller.cloud.ibm.com', url('--ibmcloud-resource-manager-endpoint'))
    .option('--ibmcloud-global-tagging-endpoint <url>', 'Global Tagging base URL; default https://tags.global-search-tagging.cloud.ibm.com', url('--ibmcloud-global-tagging-endpoint'));
  return program;
}

interface IbmFlags {
  ibmcloudVpcEndpoint?: string;
  ibmcloudIamEndpoint?: string;
  ibmcloudResourceManagerEndpoint?: string;
  ibmcloudGlobalTaggingEndpoint?: string;
}

/** Flags win over the Infrastructure's endpoints, one service at a time. */
export function endpointsOf(flags: IbmFlags, infra: IbmEndpoints): IbmEndpoints {
  return {
    vpc: flags.ibmcloudVpcEndpoint ?? infra.vpc,
    iam: flags.ibmcloudIamEndpoint ?? infra.iam,
    resourceManager: flags.ibmcloudResourceManagerEndpoint ?? infra.resourceManager,
    globalTagging: flags.ibmcloudGlobalTaggingEndpoint ?? infra.globalTagging,
  };
}

export interface PreparedIbmCloudProvider {
  manager: Manager;
  logger: Logger;
}

/** Everything the binary does before running: manager from flags, Infrastructure endpoints, wiring. */
export async function prepareIbmCloudProvider(program: Command, opts: { logStream?: NodeJS.WritableStream } = {}): Promise<PreparedIbmCloudProvider> {
  const flags = readStandardFlags(program);
  const ibm = program.opts<IbmFlags>();
  const { manager, client, logger } = await managerFromFlags(flags, COMPONENT, { logStream: opts.logStream });
  const endpoints = endpointsOf(ibm, await ibmEndpointsFromInfrastructure(client, logger));
  wireIbmCloudProvider(manager, client, { endpoints, maxConcurrentReconciles: flags.maxConcurrentReconciles, featureGates: flags.featureGates }, new RealClock());
  logger.info('starting', {
    namespace: flags.namespace || '(all)',
    vpcEndpoint: endpoints.vpc ?? '(per region)',
    iamEndpoint: endpoints.iam ?? '(default)',
  });
  return { manager, logger };
}

/** Parses argv, prepares the provider and runs until SIGTERM/SIGINT. Resolves with the exit code. */
export async function runIbmCloudProvider(argv: string[], env: NodeJS.ProcessEnv, run: Omit<RunOptions, 'logger'> = {}): Promise<number> {
  const { manager, logger } = await prepareIbmCloudProvider(buildProgram(env).parse(argv));
  return runUntilSignal(manager, { ...run, logger });
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  runIbmCloudProvider(process.argv, process.env).catch((err: unknown) => {
    process.stderr.write(`${COMPONENT}: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  });
}
