#!/usr/bin/env node
// machine-api-provider-ibmcloud: the machine controller with the IBM Cloud VPC actuator and the
// scale-from-zero controller, in one manager (leader-election id machine-api-provider-ibmcloud-leader).
// NodeLink runs in its own nodelink-controller container, as the operator lays the pod out
// (--with-nodelink runs it here instead).
// Wiring only: flags and the Infrastructure's endpoint overrides in, one call into lib and providers/ibmcloud out.
import { ibmCloudProvider } from '../providers/ibmcloud/descriptor.js';
import type { Command } from 'commander';
import {
  RealClock,
  secretReaderFor,
  withSecretReader,
  type Clock,
  type CloudRateLimits,
  type ControllerManager,
  type KubeClient,
  type Logger,
  type OutboundHttp,
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
import {
  addProviderControllers,
  buildProviderProgram,
  httpUrlArgument,
  providerControllerFlags,
  isMainModule,
  managerFromFlags,
  podIdentity,
  outboundHttpFromEnv,
  readPlatformStatus,
  readStandardFlags,
  runMain,
  runUntilSignal,
  type ProviderControllerOptions,
  type RunOptions,
  type PreparedProvider,
  type ProviderPrepareOptions,
} from './internal/index.js';

export const COMPONENT = ibmCloudProvider.component;
export const LEADER_ELECTION_ID = 'machine-api-provider-ibmcloud-leader';

export interface IbmCloudProviderOptions extends ProviderControllerOptions {
  /** Endpoint overrides; a flag wins over the Infrastructure's serviceEndpoints. */
  endpoints?: IbmEndpoints;
  rateLimits?: CloudRateLimits;
  retry?: Partial<RetryPolicy>;
  batchWindowMs?: number;
  /** Proxy and trusted CAs for every IBM Cloud call. */
  outbound?: OutboundHttp;
  /** Overrides for the actuator (tests shorten the requeue). */
  actuator?: Partial<
    Pick<IbmCloudActuatorOptions, 'requeueAfterMs' | 'eventualConsistencyWindowMs' | 'resolutionTtlMs'>
  >;
}

export interface IbmCloudProvider {
  actuator: IbmCloudActuator;
  clients: IbmClientFactory;
}

/** Registers the IBM Cloud provider's controllers on a manager; what the binary runs, and what tests run in-process. */
export function wireIbmCloudProvider(
  mgr: ControllerManager,
  client: KubeClient,
  opts: IbmCloudProviderOptions = {},
  clock: Clock = mgr.clock,
): IbmCloudProvider {
  // One factory: the actuator and the catalog share the rate limiter, the tokens and the profile cache.
  const clients = new IbmClientFactory({
    clock,
    fence: mgr.writeFence,
    endpoints: opts.endpoints,
    rateLimits: opts.rateLimits,
    retry: opts.retry,
    batchWindowMs: opts.batchWindowMs,
    outbound: opts.outbound,
  });
  // Credentials and user-data Secrets come from the manager's shared cache, not a GET per reconcile.
  const secretClient = withSecretReader(client, secretReaderFor(mgr, client));
  const actuator = createIbmCloudActuator({ client: secretClient, clock, clientFactory: clients, ...opts.actuator });
  const catalog = createIbmCloudInstanceTypeCatalog({ client: secretClient, clock, clients });
  addProviderControllers(mgr, actuator, catalog, opts);
  return { actuator, clients };
}

interface IbmPlatformStatus {
  serviceEndpoints?: Array<{ name?: string; url?: string }>;
}

/**
 * The endpoint overrides of the cluster's Infrastructure (status.platformStatus.ibmcloud.serviceEndpoints:
 * IAM, VPC, ResourceManager, GlobalTagging). Read once at start, not per reconcile as the reference does; a
 * cluster without it (or an API error) just gets the public endpoints.
 */
export async function ibmEndpointsFromInfrastructure(client: KubeClient, logger: Logger): Promise<IbmEndpoints> {
  const ibm = await readPlatformStatus<IbmPlatformStatus>(client, logger, 'ibmcloud');
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

export function buildProgram(env: NodeJS.ProcessEnv): Command {
  return buildProviderProgram(env, {
    component: COMPONENT,
    leaderElectionId: LEADER_ELECTION_ID,
    cloud: 'IBM Cloud VPC',
  })
    .option(
      '--ibmcloud-vpc-endpoint <url>',
      'VPC API base URL for every region (a private endpoint or an emulator; "/v1" is appended when missing); default: each region\'s public endpoint',
      httpUrlArgument('--ibmcloud-vpc-endpoint'),
    )
    .option(
      '--ibmcloud-iam-endpoint <url>',
      'IAM base URL (the token service is <url>/identity/token); default https://iam.cloud.ibm.com',
      httpUrlArgument('--ibmcloud-iam-endpoint'),
    )
    .option(
      '--ibmcloud-resource-manager-endpoint <url>',
      'Resource Manager base URL; default https://resource-controller.cloud.ibm.com',
      httpUrlArgument('--ibmcloud-resource-manager-endpoint'),
    )
    .option(
      '--ibmcloud-global-tagging-endpoint <url>',
      'Global Tagging base URL; default https://tags.global-search-tagging.cloud.ibm.com',
      httpUrlArgument('--ibmcloud-global-tagging-endpoint'),
    );
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

/** Everything the binary does before running: manager from flags, Infrastructure endpoints, wiring. */
export async function prepareIbmCloudProvider(
  program: Command,
  opts: ProviderPrepareOptions = {},
): Promise<PreparedProvider> {
  const flags = readStandardFlags(program);
  const ibm = program.opts<IbmFlags & { trustedCaBundle?: string }>();
  const outbound = outboundHttpFromEnv(opts.env ?? {}, ibm.trustedCaBundle);
  const { manager, client, logger } = await managerFromFlags(flags, COMPONENT, { logStream: opts.logStream });
  const endpoints = endpointsOf(ibm, await ibmEndpointsFromInfrastructure(client, logger));
  wireIbmCloudProvider(
    manager,
    client,
    { endpoints, outbound, ...providerControllerFlags(program, flags, opts.machineController) },
    new RealClock(),
  );
  logger.info('starting', {
    ...podIdentity(opts.env ?? {}),
    namespace: flags.namespace || '(all)',
    vpcEndpoint: endpoints.vpc ?? '(per region)',
    iamEndpoint: endpoints.iam ?? '(default)',
    outbound: outbound.describe(),
  });
  return { manager, logger, close: () => {} };
}

/** Parses argv, prepares the provider and runs until SIGTERM/SIGINT. Resolves with the exit code. */
export async function runIbmCloudProvider(
  argv: string[],
  env: NodeJS.ProcessEnv,
  run: Omit<RunOptions, 'logger'> = {},
): Promise<number> {
  const { manager, logger } = await prepareIbmCloudProvider(buildProgram(env).parse(argv), { env });
  return runUntilSignal(manager, { ...run, logger });
}

if (isMainModule(import.meta.url)) runMain(COMPONENT, () => runIbmCloudProvider(process.argv, process.env));
