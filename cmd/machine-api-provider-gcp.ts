#!/usr/bin/env node
// machine-api-provider-gcp: the machine controller with the GCP actuator and the scale-from-zero controller,
// in one manager (leader-election id cluster-api-provider-gcp-leader). NodeLink runs in its own
// nodelink-controller container, as the operator lays the pod out (--with-nodelink runs it here instead).
// Wiring only: flags and environment in, one call into lib and providers/gcp out.
import { gcpProvider } from '../providers/gcp/descriptor.js';
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
  GcpClientFactory,
  createGcpActuator,
  createGcpInstanceTypeCatalog,
  type GcpActuator,
  type GcpActuatorOptions,
  type ResourceManagerTag,
} from '../providers/gcp/index.js';
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
  type PreparedProvider,
  type ProviderPrepareOptions,
} from './internal/index.js';

export const COMPONENT = gcpProvider.component;
export const LEADER_ELECTION_ID = 'cluster-api-provider-gcp-leader';

export interface GcpProviderOptions extends ProviderControllerOptions {
  /** Compute endpoint (an emulator, a private endpoint); default Google's. */
  endpoint?: string;
  /** The project for specs and credentials that name none. */
  defaultProject?: string;
  rateLimits?: CloudRateLimits;
  batchWindowMs?: number;
  /** Proxy and trusted CAs for every Google call. */
  outbound?: OutboundHttp;
  /** Overrides for the actuator. */
  actuator?: Partial<
    Pick<
      GcpActuatorOptions,
      'requeueAfterMs' | 'infrastructureLabels' | 'infrastructureTags' | 'defaultImage' | 'tagValueLookup'
    >
  >;
}

export interface GcpProvider {
  actuator: GcpActuator;
  clients: GcpClientFactory;
  /** Closes the Compute clients. */
  close(): Promise<void>;
}

/** Registers the GCP provider's controllers on a manager; what the binary runs, and what tests run in-process. */
export function wireGcpProvider(
  mgr: ControllerManager,
  client: KubeClient,
  opts: GcpProviderOptions = {},
  clock: Clock = mgr.clock,
): GcpProvider {
  const clients = new GcpClientFactory({
    clock,
    fence: mgr.writeFence,
    endpoint: opts.endpoint,
    rateLimits: opts.rateLimits,
    batchWindowMs: opts.batchWindowMs,
    outbound: opts.outbound,
  });
  // Credentials and user-data Secrets come from the manager's shared cache, not a GET per reconcile.
  const secretClient = withSecretReader(client, secretReaderFor(mgr, client));
  const actuator = createGcpActuator({
    client: secretClient,
    clock,
    clientFactory: clients,
    defaultProject: opts.defaultProject,
    ...opts.actuator,
  });
  const catalog = createGcpInstanceTypeCatalog({
    client: secretClient,
    clock,
    clients,
    defaultProject: opts.defaultProject,
  });
  addProviderControllers(mgr, actuator, catalog, opts);
  return {
    actuator,
    clients,
    close: async () => {
      await actuator.close();
      await clients.close();
    },
  };
}

interface GcpPlatformStatus {
  projectID?: string;
  region?: string;
  resourceLabels?: Array<{ key?: string; value?: string }>;
  resourceTags?: Array<{ parentID?: string; key?: string; value?: string }>;
  serviceEndpoints?: Array<{ name?: string; url?: string }>;
}

/**
 * What the cluster's Infrastructure says about GCP: default project, resource labels and tags, a custom
 * compute endpoint. Read once at start; a cluster without it (or an API error) just gets the defaults.
 */
export async function gcpSettingsFromInfrastructure(
  client: KubeClient,
  logger: Logger,
): Promise<Partial<GcpProviderOptions>> {
  const gcp = await readPlatformStatus<GcpPlatformStatus>(client, logger, 'gcp');
  if (!gcp) return {};
  const labels: Record<string, string> = {};
  for (const l of gcp.resourceLabels ?? []) if (l.key) labels[l.key] = l.value ?? '';
  const tags: ResourceManagerTag[] = (gcp.resourceTags ?? []).flatMap((t) =>
    t.parentID && t.key && t.value ? [{ parentID: t.parentID, key: t.key, value: t.value }] : [],
  );
  const compute = gcp.serviceEndpoints?.find((e) => e.name === 'compute')?.url || undefined;
  return {
    defaultProject: gcp.projectID || undefined,
    endpoint: compute,
    actuator: { infrastructureLabels: labels, infrastructureTags: tags },
  };
}

export function buildProgram(env: NodeJS.ProcessEnv): Command {
  const program = buildProviderProgram(env, {
    component: COMPONENT,
    leaderElectionId: LEADER_ELECTION_ID,
    cloud: 'GCP',
  });
  program.option(
    '--gcp-endpoint <url>',
    'Compute Engine API endpoint (an emulator or a private endpoint; a plain http:// endpoint gets credentials only on loopback); default: compute.googleapis.com',
    httpUrlArgument('--gcp-endpoint', { example: 'http://127.0.0.1:8080', trimTrailingSlash: true }),
  );
  return program;
}

/** Parses argv, builds the manager, wires the provider and runs until SIGTERM/SIGINT. Resolves with the exit code. */
/** Everything the binary does before running: manager from flags, Infrastructure settings, proxy and CAs, wiring. */
export async function prepareGcpProvider(
  program: Command,
  opts: ProviderPrepareOptions = {},
): Promise<PreparedProvider> {
  const env = opts.env ?? {};
  const flags = readStandardFlags(program);
  const gcp = program.opts<{ gcpEndpoint?: string; trustedCaBundle?: string }>();
  const { manager, client, logger } = await managerFromFlags(flags, COMPONENT, { logStream: opts.logStream });
  const infra = await gcpSettingsFromInfrastructure(client, logger);
  const endpoint = gcp.gcpEndpoint ?? infra.endpoint;
  const outbound = outboundHttpFromEnv(env, gcp.trustedCaBundle);
  const provider = wireGcpProvider(
    manager,
    client,
    { ...infra, endpoint, outbound, ...providerControllerFlags(program, flags, opts.machineController) },
    new RealClock(),
  );
  logger.info('starting', {
    ...podIdentity(env),
    namespace: flags.namespace || '(all)',
    gcpEndpoint: endpoint ?? '(default)',
    outbound: outbound.describe(),
  });
  return { manager, logger, close: () => provider.close() };
}

/** Parses argv, prepares the provider and runs until SIGTERM/SIGINT. Resolves with the exit code. */
export async function runGcpProvider(argv: string[], env: NodeJS.ProcessEnv): Promise<number> {
  const { manager, logger, close } = await prepareGcpProvider(buildProgram(env).parse(argv), { env });
  try {
    return await runUntilSignal(manager, { logger });
  } finally {
    await close();
  }
}

if (isMainModule(import.meta.url)) runMain(COMPONENT, () => runGcpProvider(process.argv, process.env));
