#!/usr/bin/env node
// machine-api-provider-gcp: the machine controller with the GCP actuator, the scale-from-zero controller and
// NodeLink, in one manager (leader-election id cluster-api-provider-gcp-leader).
// Wiring only: flags and environment in, one call into lib and providers/gcp out.
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
  type ControllerManager,
  type KubeClient,
  type KubeObject,
  type Logger,
  type MachineControllerOptions,
} from '../lib/index.js';
import {
  GcpClientFactory,
  createGcpActuator,
  createGcpInstanceTypeCatalog,
  type GcpActuator,
  type GcpActuatorOptions,
  type ResourceManagerTag,
} from '../providers/gcp/index.js';
import { addStandardFlags, managerFromFlags, readStandardFlags, runUntilSignal } from './internal/index.js';

export const COMPONENT = 'machine-api-provider-gcp';
export const LEADER_ELECTION_ID = 'cluster-api-provider-gcp-leader';
const DEFAULT_NAMESPACE = 'openshift-machine-api';

export interface GcpProviderOptions {
  /** Compute endpoint (an emulator, a private endpoint); default Google's. */
  endpoint?: string;
  /** The project for specs and credentials that name none. */
  defaultProject?: string;
  rateLimits?: CloudRateLimits;
  batchWindowMs?: number;
  maxConcurrentReconciles?: number;
  featureGates?: Record<string, boolean>;
  /** Overrides for the machine controller (tests shorten its requeue). */
  machineController?: Omit<MachineControllerOptions, 'maxConcurrentReconciles' | 'featureGates'>;
  /** Overrides for the actuator. */
  actuator?: Partial<
    Pick<GcpActuatorOptions, 'requeueAfterMs' | 'operationWaitMs' | 'infrastructureLabels' | 'infrastructureTags' | 'defaultImage' | 'tagValueLookup'>
  >;
}

export interface GcpProvider {
  actuator: GcpActuator;
  /** Closes the Compute clients. */
  close(): Promise<void>;
}

/** Registers the GCP provider's controllers on a manager; what the binary runs, and what tests run in-process. */
export function wireGcpProvider(mgr: ControllerManager, client: KubeClient, opts: GcpProviderOptions = {}, clock: Clock = mgr.clock): GcpProvider {
  const clients = new GcpClientFactory({ clock, endpoint: opts.endpoint, rateLimits: opts.rateLimits, batchWindowMs: opts.batchWindowMs });
  const actuator = createGcpActuator({ client, clock, clientFactory: clients, defaultProject: opts.defaultProject, ...opts.actuator });
  const catalog = createGcpInstanceTypeCatalog({ client, clock, clients, defaultProject: opts.defaultProject });
  addMachineController(mgr, actuator, { ...opts.machineController, maxConcurrentReconciles: opts.maxConcurrentReconciles, featureGates: opts.featureGates });
  addScaleFromZeroController(mgr, catalog, { maxConcurrentReconciles: opts.maxConcurrentReconciles });
  addNodeLinkController(mgr, { maxConcurrentReconciles: opts.maxConcurrentReconciles });
  return {
    actuator,
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

const Infrastructures = defineResource<KubeObject & { status?: { platformStatus?: { gcp?: GcpPlatformStatus } } }>({
  group: 'config.openshift.io',
  version: 'v1',
  plural: 'infrastructures',
  kind: 'Infrastructure',
  namespaced: false,
});

/**
 * What the cluster's Infrastructure says about GCP: default project, resource labels and tags, a custom
 * compute endpoint. Read once at start; a cluster without it (or an API error) just gets the defaults.
 */
export async function gcpSettingsFromInfrastructure(client: KubeClient, logger: Logger): Promise<Partial<GcpProviderOptions>> {
  let gcp: GcpPlatformStatus | undefined;
  try {
    gcp = (await client.get(Infrastructures, { name: 'cluster' }, { signal: AbortSignal.timeout(10_000) })).status?.platformStatus?.gcp;
  } catch (err) {
    logger.info('no readable Infrastructure "cluster"; using flag and providerSpec settings only', { error: err instanceof Error ? err.message : String(err) });
    return {};
  }
  if (!gcp) return {};
  const labels: Record<string, string> = {};
  for (const l of gcp.resourceLabels ?? []) if (l.key) labels[l.key] = l.value ?? '';
  const tags: ResourceManagerTag[] = (gcp.resourceTags ?? []).flatMap((t) => (t.parentID && t.key && t.value ? [{ parentID: t.parentID, key: t.key, value: t.value }] : []));
  const compute = gcp.serviceEndpoints?.find((e) => e.name === 'compute')?.url || undefined;
  return {
    defaultProject: gcp.projectID || undefined,
    endpoint: compute,
    actuator: { infrastructureLabels: labels, infrastructureTags: tags },
  };
}

function url(value: string): string {
  try {
    const u = new URL(value);
    if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new Error('not http(s)');
    return value.replace(/\/+$/, '');
  } catch {
    throw new InvalidArgumentError(`--gcp-endpoint must be an http(s) URL such as http://127.0.0.1:8080, got ${JSON.stringify(value)}`);
  }
}

export function buildProgram(env: NodeJS.ProcessEnv): Command {
  const program = new Command()
    .name(COMPONENT)
    .description('Runs the Machine API machine controller with the GCP actuator, the scale-from-zero MachineSet controller and NodeLink.')
    .showHelpAfterError();
  addStandardFlags(program, { leaderElectionId: LEADER_ELECTION_ID, metricsBindAddress: ':8081', healthAddr: ':9440' }, env.KUBECONFIG);
  // This binary watches the Machine API namespace unless told otherwise.
  const ns = program.options.find((o: Option) => o.long === '--namespace');
  ns?.default(DEFAULT_NAMESPACE);
  if (ns) ns.description = 'Namespace the controllers watch ("" for all namespaces)';
  program.option(
    '--gcp-endpoint <url>',
    'Compute Engine API endpoint (an emulator or a private endpoint; a plain http:// endpoint gets no credentials); default: compute.googleapis.com',
    url,
  );
  return program;
}

/** Parses argv, builds the manager, wires the provider and runs until SIGTERM/SIGINT. Resolves with the exit code. */
export async function runGcpProvider(argv: string[], env: NodeJS.ProcessEnv): Promise<number> {
  const program = buildProgram(env).parse(argv);
  const flags = readStandardFlags(program);
  const gcp = program.opts<{ gcpEndpoint?: string }>();
  const { manager, client, logger } = await managerFromFlags(flags, COMPONENT);
  const infra = await gcpSettingsFromInfrastructure(client, logger);
  const endpoint = gcp.gcpEndpoint ?? infra.endpoint;
  const provider = wireGcpProvider(
    manager,
    client,
    { ...infra, endpoint, maxConcurrentReconciles: flags.maxConcurrentReconciles, featureGates: flags.featureGates },
    new RealClock(),
  );
  logger.info('starting', { namespace: flags.namespace || '(all)', gcpEndpoint: endpoint ?? '(default)' });
  try {
    return await runUntilSignal(manager, { logger });
  } finally {
    await provider.close();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  runGcpProvider(process.argv, process.env).catch((err: unknown) => {
    process.stderr.write(`${COMPONENT}: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  });
}
