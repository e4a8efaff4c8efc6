#!/usr/bin/env node
// machine-api-provider-aws: the machine controller with the AWS actuator, the scale-from-zero
// controller and NodeLink, in one manager (leader-election id cluster-api-provider-aws-leader).
// Wiring only: flags and environment in, one call into lib and providers/aws out.
import { pathToFileURL } from 'node:url';
import { Command, InvalidArgumentError, type Option } from 'commander';
import {
  addMachineController,
  addNodeLinkController,
  addScaleFromZeroController,
  RealClock,
  defineResource,
  type Clock,
  type CloudRateLimits,
  type KubeObject,
  type Logger,
  type ControllerManager,
  type KubeClient,
  type MachineControllerOptions,
  type Manager,
} from '../lib/index.js';
import {
  AwsClientFactory,
  createAwsActuator,
  createAwsInstanceTypeCatalog,
  type AwsActuator,
  type AwsActuatorOptions,
  type AwsCredentials,
  type AwsEndpoints,
  type IpFamily,
  type TagSpecification,
} from '../providers/aws/index.js';
import { addStandardFlags, managerFromFlags, readStandardFlags, runUntilSignal, type RunOptions } from './internal/index.js';

export const COMPONENT = 'machine-api-provider-aws';
export const LEADER_ELECTION_ID = 'cluster-api-provider-aws-leader';
const DEFAULT_NAMESPACE = 'openshift-machine-api';

export interface AwsProviderOptions {
  /** EC2/ELB endpoint for every service (an emulator, a private or FIPS endpoint). */
  endpoint?: string;
  /** Forces every AWS client to this region (and defaults specs that name none). */
  region?: string;
  /** The cluster's region (Infrastructure status): the default for specs that name none. */
  defaultRegion?: string;
  /** Per-service endpoints (Infrastructure status.platformStatus.aws.serviceEndpoints); `endpoint` wins. */
  endpoints?: AwsEndpoints;
  /** Credentials for specs without a credentials Secret; unset = the SDK chain (env, IMDS role). */
  defaultCredentials?: AwsCredentials;
  rateLimits?: CloudRateLimits;
  maxAttempts?: number;
  retryDelayMs?: (attempt: number) => number;
  batchWindowMs?: number;
  maxConcurrentReconciles?: number;
  featureGates?: Record<string, boolean>;
  /** Overrides for the machine controller (tests shorten its requeue). */
  machineController?: Omit<MachineControllerOptions, 'maxConcurrentReconciles' | 'featureGates'>;
  /** Overrides for the actuator (tests shorten the eventual-consistency requeue). */
  actuator?: Partial<Pick<AwsActuatorOptions, 'requeueAfterMs' | 'eventualConsistencyWindowMs' | 'infrastructureTags' | 'ipFamily'>>;
}

export interface AwsProvider {
  actuator: AwsActuator;
  /** Closes the AWS clients. */
  close(): void;
}

/** Registers the AWS provider's controllers on a manager; what the binary runs, and what tests run in-process. */
export function wireAwsProvider(mgr: ControllerManager, client: KubeClient, opts: AwsProviderOptions = {}, clock: Clock = mgr.clock): AwsProvider {
  const clients = new AwsClientFactory({
    clock,
    endpoint: opts.endpoint,
    endpoints: opts.endpoints,
    defaultCredentials: opts.defaultCredentials,
    rateLimits: opts.rateLimits,
    maxAttempts: opts.maxAttempts,
    retryDelayMs: opts.retryDelayMs,
    batchWindowMs: opts.batchWindowMs,
  });
  const actuator = createAwsActuator({ client, clock, clientFactory: clients, regionOverride: opts.region, defaultRegion: opts.defaultRegion, ...opts.actuator });
  const catalog = createAwsInstanceTypeCatalog({ client, clock, clients, regionOverride: opts.region, defaultRegion: opts.defaultRegion });
  addMachineController(mgr, actuator, { ...opts.machineController, maxConcurrentReconciles: opts.maxConcurrentReconciles, featureGates: opts.featureGates });
  addScaleFromZeroController(mgr, catalog, { maxConcurrentReconciles: opts.maxConcurrentReconciles });
  addNodeLinkController(mgr, { maxConcurrentReconciles: opts.maxConcurrentReconciles });
  return {
    actuator,
    close: () => {
      actuator.close();
      clients.destroy();
    },
  };
}

interface AwsPlatformStatus {
  region?: string;
  resourceTags?: Array<{ key?: string; value?: string }>;
  serviceEndpoints?: Array<{ name?: string; url?: string }>;
  ipFamily?: string;
}

const Infrastructures = defineResource<KubeObject & { status?: { platformStatus?: { aws?: AwsPlatformStatus } } }>({
  group: 'config.openshift.io',
  version: 'v1',
  plural: 'infrastructures',
  kind: 'Infrastructure',
  namespaced: false,
});

/**
 * What the cluster's Infrastructure says about AWS: default region, resource tags, custom endpoints and IP
 * family. Read once at start; a cluster without it (or an API error) just gets the defaults.
 */
export async function awsSettingsFromInfrastructure(client: KubeClient, logger: Logger): Promise<Partial<AwsProviderOptions>> {
  let aws: AwsPlatformStatus | undefined;
  try {
    aws = (await client.get(Infrastructures, { name: 'cluster' }, { signal: AbortSignal.timeout(10_000) })).status?.platformStatus?.aws;
  } catch (err) {
    logger.info('no readable Infrastructure "cluster"; using flag and providerSpec settings only', { error: err instanceof Error ? err.message : String(err) });
    return {};
  }
  if (!aws) return {};
  const endpoint = (name: string) => aws.serviceEndpoints?.find((e) => e.name === name)?.url || undefined;
  const ipFamily = aws.ipFamily as IpFamily | undefined;
  const tags: TagSpecification[] = (aws.resourceTags ?? []).flatMap((t) => (t.key ? [{ name: t.key, value: t.value ?? '' }] : []));
  return {
    defaultRegion: aws.region || undefined,
    endpoints: { ec2: endpoint('ec2'), elb: endpoint('elasticloadbalancing'), elbv2: endpoint('elasticloadbalancing') },
    actuator: { infrastructureTags: tags, ipFamily },
  };
}

function url(value: string): string {
  try {
    const u = new URL(value);
    if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new Error('not http(s)');
    return value;
  } catch {
    throw new InvalidArgumentError(`--aws-endpoint must be an http(s) URL, got ${JSON.stringify(value)}`);
  }
}

function region(value: string): string {
  if (!/^[a-z]{2}(-[a-z]+)+-\d+$/.test(value)) throw new InvalidArgumentError(`--aws-region must look like us-east-1, got ${JSON.stringify(value)}`);
  return value;
}

export function buildProgram(env: NodeJS.ProcessEnv): Command {
  const program = new Command()
    .name(COMPONENT)
    .description('Runs the Machine API machine controller with the AWS actuator, the scale-from-zero MachineSet controller and NodeLink.')
    .showHelpAfterError();
  addStandardFlags(program, { leaderElectionId: LEADER_ELECTION_ID, metricsBindAddress: ':8081', healthAddr: ':9440' }, env.KUBECONFIG);
  // This binary watches the Machine API namespace unless told otherwise.
  const ns = program.options.find((o: Option) => o.long === '--namespace');
  ns?.default(DEFAULT_NAMESPACE);
  if (ns) ns.description = 'Namespace the controllers watch ("" for all namespaces)';
  program
    .option('--aws-endpoint <url>', 'Endpoint for EC2, ELB and ELBv2 (an emulator, VPC or FIPS endpoint); default: the public AWS endpoints', url)
    .option('--aws-region <region>', 'Use this region for every AWS call, whatever placement.region says; also the default region for specs that name none', region);
  return program;
}

export interface PreparedAwsProvider {
  manager: Manager;
  logger: Logger;
  /** Closes the AWS clients (after the manager stopped). */
  close(): void;
}

/** Everything the binary does before running: manager from flags, Infrastructure settings, wiring. */
export async function prepareAwsProvider(program: Command, opts: { logStream?: NodeJS.WritableStream } = {}): Promise<PreparedAwsProvider> {
  const flags = readStandardFlags(program);
  const aws = program.opts<{ awsEndpoint?: string; awsRegion?: string }>();
  const { manager, client, logger } = await managerFromFlags(flags, COMPONENT, { logStream: opts.logStream });
  const infra = await awsSettingsFromInfrastructure(client, logger);
  const provider = wireAwsProvider(
    manager,
    client,
    {
      ...infra,
      endpoint: aws.awsEndpoint,
      region: aws.awsRegion,
      maxConcurrentReconciles: flags.maxConcurrentReconciles,
      featureGates: flags.featureGates,
    },
    new RealClock(),
  );
  logger.info('starting', { namespace: flags.namespace || '(all)', awsEndpoint: aws.awsEndpoint ?? '(default)', awsRegion: aws.awsRegion ?? '(per machine)' });
  return { manager, logger, close: () => provider.close() };
}

/** Parses argv, prepares the provider and runs until SIGTERM/SIGINT. Resolves with the exit code. */
export async function runAwsProvider(argv: string[], env: NodeJS.ProcessEnv, run: Omit<RunOptions, 'logger'> = {}): Promise<number> {
  const { manager, logger, close } = await prepareAwsProvider(buildProgram(env).parse(argv));
  try {
    return await runUntilSignal(manager, { ...run, logger });
  } finally {
    close();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  // The SDK's Node-version notice would otherwise print on every start.
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  runAwsProvider(process.argv, process.env).catch((err: unknown) => {
    process.stderr.write(`${COMPONENT}: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  });
}
