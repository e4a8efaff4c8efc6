#!/usr/bin/env node
// machine-api-provider-aws: the machine controller with the AWS actuator and the scale-from-zero
// controller, in one manager (leader-election id cluster-api-provider-aws-leader). NodeLink runs in its own
// nodelink-controller container, as the operator lays the pod out (--with-nodelink runs it here instead).
// Wiring only: flags and environment in, one call into lib and providers/aws out.
import { awsProvider } from '../providers/aws/descriptor.js';
import type { Command } from 'commander';
import { InvalidArgumentError } from 'commander';
import {
  ConfigMaps,
  RealClock,
  secretReaderFor,
  withSecretReader,
  type Clock,
  type CloudRateLimits,
  type Logger,
  type ControllerManager,
  type KubeClient,
  type OutboundHttp,
  type TrustedCaBundle,
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
import {
  addProviderControllers,
  buildProviderProgram,
  httpUrlArgument,
  providerControllerFlags,
  isMainModule,
  readPlatformStatus,
  readStandardFlags,
  managerFromFlags,
  podIdentity,
  outboundHttpFromEnv,
  runMain,
  runUntilSignal,
  type ProviderControllerOptions,
  type RunOptions,
  type PreparedProvider,
  type ProviderPrepareOptions,
} from './internal/index.js';

export const COMPONENT = awsProvider.component;
export const LEADER_ELECTION_ID = 'cluster-api-provider-aws-leader';

export interface AwsProviderOptions extends ProviderControllerOptions {
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
  /** Proxy and trusted CAs for every AWS call. */
  outbound?: OutboundHttp;
  maxAttempts?: number;
  retryDelayMs?: (attempt: number) => number;
  batchWindowMs?: number;
  /** Overrides for the actuator (tests shorten the eventual-consistency requeue). */
  actuator?: Partial<
    Pick<AwsActuatorOptions, 'requeueAfterMs' | 'eventualConsistencyWindowMs' | 'infrastructureTags' | 'ipFamily'>
  >;
}

export interface AwsProvider {
  actuator: AwsActuator;
  clients: AwsClientFactory;
  /** Closes the AWS clients. */
  close(): void;
}

/** Registers the AWS provider's controllers on a manager; what the binary runs, and what tests run in-process. */
export function wireAwsProvider(
  mgr: ControllerManager,
  client: KubeClient,
  opts: AwsProviderOptions = {},
  clock: Clock = mgr.clock,
): AwsProvider {
  const clients = new AwsClientFactory({
    clock,
    fence: mgr.writeFence,
    endpoint: opts.endpoint,
    endpoints: opts.endpoints,
    defaultCredentials: opts.defaultCredentials,
    rateLimits: opts.rateLimits,
    maxAttempts: opts.maxAttempts,
    retryDelayMs: opts.retryDelayMs,
    batchWindowMs: opts.batchWindowMs,
    outbound: opts.outbound,
  });
  // Credentials and user-data Secrets come from the manager's shared cache, not a GET per reconcile. The
  // actuator's own short-lived Secret cache would add nothing to it but keep a deleted Secret in use.
  const secretClient = withSecretReader(client, secretReaderFor(mgr, client));
  const actuator = createAwsActuator({
    client: secretClient,
    clock,
    clientFactory: clients,
    regionOverride: opts.region,
    defaultRegion: opts.defaultRegion,
    secretCacheTtlMs: 0,
    ...opts.actuator,
  });
  const catalog = createAwsInstanceTypeCatalog({
    client: secretClient,
    clock,
    clients,
    regionOverride: opts.region,
    defaultRegion: opts.defaultRegion,
  });
  addProviderControllers(mgr, actuator, catalog, opts);
  return {
    actuator,
    clients,
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

/**
 * What the cluster's Infrastructure says about AWS: default region, resource tags, custom endpoints and IP
 * family. Read once at start; a cluster without it (or an API error) just gets the defaults.
 */
export async function awsSettingsFromInfrastructure(
  client: KubeClient,
  logger: Logger,
): Promise<Partial<AwsProviderOptions>> {
  const aws = await readPlatformStatus<AwsPlatformStatus>(client, logger, 'aws');
  if (!aws) return {};
  const endpoint = (name: string) => aws.serviceEndpoints?.find((e) => e.name === name)?.url || undefined;
  const ipFamily = aws.ipFamily as IpFamily | undefined;
  const tags: TagSpecification[] = (aws.resourceTags ?? []).flatMap((t) =>
    t.key ? [{ name: t.key, value: t.value ?? '' }] : [],
  );
  return {
    defaultRegion: aws.region || undefined,
    endpoints: {
      ec2: endpoint('ec2'),
      elb: endpoint('elasticloadbalancing'),
      elbv2: endpoint('elasticloadbalancing'),
      sts: endpoint('sts'),
    },
    actuator: { infrastructureTags: tags, ipFamily },
  };
}

/** Where the cluster keeps the cloud-provider config; its `ca-bundle.pem` key is the CA of a custom AWS endpoint. */
export const KUBE_CLOUD_CONFIG = {
  namespace: 'openshift-config-managed',
  name: 'kube-cloud-config',
  key: 'ca-bundle.pem',
} as const;

/**
 * The CA bundle of the cloud-provider config (ConfigMap openshift-config-managed/kube-cloud-config, key
 * ca-bundle.pem), which the reference adds to its AWS session: read once at start. Absent (or unreadable) =
 * none; the system and trusted-CA bundles still apply.
 */
export async function awsCaBundleFromCloudConfig(
  client: KubeClient,
  logger: Logger,
): Promise<TrustedCaBundle | undefined> {
  try {
    const cm = await client.get(
      ConfigMaps,
      { namespace: KUBE_CLOUD_CONFIG.namespace, name: KUBE_CLOUD_CONFIG.name },
      { signal: AbortSignal.timeout(10_000) },
    );
    const pem = cm.data?.[KUBE_CLOUD_CONFIG.key];
    if (!pem) return undefined;
    logger.info('using the custom CA bundle of the cloud-provider config', {
      configMap: `${KUBE_CLOUD_CONFIG.namespace}/${KUBE_CLOUD_CONFIG.name}`,
    });
    return {
      source: `${KUBE_CLOUD_CONFIG.key} of ConfigMap ${KUBE_CLOUD_CONFIG.namespace}/${KUBE_CLOUD_CONFIG.name}`,
      pem,
    };
  } catch (err) {
    logger.info('no readable cloud-provider config CA bundle', {
      error: err instanceof Error ? err.message : String(err),
    });
    return undefined;
  }
}

function region(value: string): string {
  if (!/^[a-z]{2}(-[a-z]+)+-\d+$/.test(value))
    throw new InvalidArgumentError(`--aws-region must look like us-east-1, got ${JSON.stringify(value)}`);
  return value;
}

export function buildProgram(env: NodeJS.ProcessEnv): Command {
  return buildProviderProgram(env, { component: COMPONENT, leaderElectionId: LEADER_ELECTION_ID, cloud: 'AWS' })
    .option(
      '--aws-endpoint <url>',
      'Endpoint for EC2, ELB and ELBv2 (an emulator, VPC or FIPS endpoint); default: the public AWS endpoints',
      httpUrlArgument('--aws-endpoint'),
    )
    .option(
      '--aws-region <region>',
      'Use this region for every AWS call, whatever placement.region says; also the default region for specs that name none',
      region,
    );
}

/** Everything the binary does before running: manager from flags, Infrastructure settings, wiring. */
export async function prepareAwsProvider(
  program: Command,
  opts: ProviderPrepareOptions = {},
): Promise<PreparedProvider> {
  const flags = readStandardFlags(program);
  const aws = program.opts<{ awsEndpoint?: string; awsRegion?: string; trustedCaBundle?: string }>();
  const { manager, client, logger } = await managerFromFlags(flags, COMPONENT, { logStream: opts.logStream });
  const infra = await awsSettingsFromInfrastructure(client, logger);
  const cloudConfigCa = await awsCaBundleFromCloudConfig(client, logger);
  const outbound = outboundHttpFromEnv(opts.env ?? {}, aws.trustedCaBundle, cloudConfigCa ? [cloudConfigCa] : []);
  const provider = wireAwsProvider(
    manager,
    client,
    {
      ...infra,
      endpoint: aws.awsEndpoint,
      region: aws.awsRegion,
      outbound,
      ...providerControllerFlags(program, flags, opts.machineController),
    },
    new RealClock(),
  );
  logger.info('starting', {
    ...podIdentity(opts.env ?? {}),
    namespace: flags.namespace || '(all)',
    awsEndpoint: aws.awsEndpoint ?? '(default)',
    awsRegion: aws.awsRegion ?? '(per machine)',
    outbound: outbound.describe(),
  });
  return { manager, logger, close: () => provider.close() };
}

/** Parses argv, prepares the provider and runs until SIGTERM/SIGINT. Resolves with the exit code. */
export async function runAwsProvider(
  argv: string[],
  env: NodeJS.ProcessEnv,
  run: Omit<RunOptions, 'logger'> = {},
): Promise<number> {
  const { manager, logger, close } = await prepareAwsProvider(buildProgram(env).parse(argv), { env });
  try {
    return await runUntilSignal(manager, { ...run, logger });
  } finally {
    await close();
  }
}

if (isMainModule(import.meta.url)) {
  // The SDK's Node-version notice would otherwise print on every start.
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  runMain(COMPONENT, () => runAwsProvider(process.argv, process.env));
}
