// Flags (and the few facts only cmd/ may read: files, hostname) → a client and a Manager.
import { hostname } from 'node:os';
import { Registry } from 'prom-client';
import {
  createKubeClient,
  createLogger,
  restClientMetrics,
  LeaseWriteFence,
  loadKubeConfig,
  Manager,
  RealClock,
  type KubeClient,
  type Logger,
} from '../../lib/index.js';
import { unknownFeatureGates } from './feature-gates.js';
import { getInfrastructureStatus } from './infrastructure.js';
import { leaseTimings } from './leader-election-durations.js';
import { leaderElectionNamespace, SERVICE_ACCOUNT_NAMESPACE_FILE } from './leader-election-namespace.js';
import { registerProcessMetrics } from './process-metrics.js';
import type { StandardFlags } from './standard-flags.js';

export interface Wiring {
  manager: Manager;
  client: KubeClient;
  logger: Logger;
}

/** A renewal every few seconds, plus the first acquire's reads. */
const LEASE_CLIENT_QPS = 5;
const LEASE_CLIENT_BURST = 10;
/** The aggregating recorder already folds repeats; this only bounds a burst of distinct events. */
const EVENT_CLIENT_QPS = 50;
const EVENT_CLIENT_BURST = 100;

export interface ManagerFromFlagsOptions {
  onLeadershipLost?: () => void;
  logStream?: NodeJS.WritableStream;
  /** Where the pod's service-account namespace is read (the Lease's namespace without the flag); tests point it elsewhere. */
  serviceAccountNamespaceFile?: string;
}

/** Throws LeaderElectionNamespaceError before connecting anywhere when leader election has no namespace. */
export async function managerFromFlags(
  flags: StandardFlags,
  component: string,
  opts: ManagerFromFlagsOptions = {},
): Promise<Wiring> {
  const leaseNamespace = flags.leaderElect
    ? leaderElectionNamespace(
        flags.leaderElectResourceNamespace,
        opts.serviceAccountNamespaceFile ?? SERVICE_ACCOUNT_NAMESPACE_FILE,
      )
    : undefined;
  const logger = createLogger({ ...flags.logging, fields: { component }, stream: opts.logStream });
  const ignoredGates = unknownFeatureGates(flags.featureGates);
  if (ignoredGates.length > 0) logger.info('feature gates this binary does not act on', { gates: ignoredGates });
  const kubeConfig = loadKubeConfig({ kubeconfigPath: flags.kubeconfig });
  const clock = new RealClock();
  // With leader election, the controllers' and events' writes pass only while this replica provably holds
  // the lease; the Lease client itself is not fenced (its writes are what keep the lease).
  const writeFence = flags.leaderElect ? new LeaseWriteFence(clock) : undefined;
  const metrics = new Registry();
  registerProcessMetrics(metrics);
  // Every client's requests count in one set of client-go metrics, as in a Go binary.
  const requestMetrics = restClientMetrics(metrics);
  const client = createKubeClient({
    kubeConfig,
    qps: flags.kubeApiQps,
    burst: flags.kubeApiBurst,
    userAgent: component,
    clock,
    writeFence,
    metrics: requestMetrics,
  });
  // Each with its own budget, as controller-runtime does: a scale-up's queue of writes never delays a Lease
  // renewal, and events never wait behind (nor hold up) reconciles.
  const eventClient = createKubeClient({
    kubeConfig,
    qps: EVENT_CLIENT_QPS,
    burst: EVENT_CLIENT_BURST,
    userAgent: component,
    clock,
    writeFence,
    metrics: requestMetrics,
  });
  let leaderElection;
  let leaderElectionClient;
  if (leaseNamespace) {
    leaderElectionClient = createKubeClient({
      kubeConfig,
      qps: LEASE_CLIENT_QPS,
      burst: LEASE_CLIENT_BURST,
      userAgent: component,
      metrics: requestMetrics,
    });
    const topology = flags.leaderElectLeaseDurationMs > 0 ? undefined : await controlPlaneTopology(client, logger);
    leaderElection = {
      id: flags.leaderElectId,
      namespace: leaseNamespace,
      identity: `${hostname()}_${Math.random().toString(36).slice(2, 10)}`,
      ...leaseTimings(flags.leaderElectLeaseDurationMs, topology),
    };
    logger.info('leader election enabled', {
      lease: `${leaderElection.namespace}/${leaderElection.id}`,
      leaseDurationMs: leaderElection.leaseDurationMs,
    });
  }
  const manager = new Manager({
    client,
    logger,
    metrics,
    clock,
    leaderElectionClient,
    writeFence,
    eventClient,
    namespace: flags.namespace || undefined,
    leaderElection,
    healthAddr: flags.healthAddr || undefined,
    metricsAddr: flags.metricsBindAddress,
    pprofAddr: flags.pprofBindAddress,
    gracefulShutdownMs: flags.gracefulShutdownTimeoutMs,
    syncPeriodMs: flags.syncPeriodMs || 600_000,
    onLeadershipLost: opts.onLeadershipLost,
  });
  // The checks the reference binaries register (healthz.Ping on both endpoints).
  manager.addHealthzCheck('ping', () => undefined);
  manager.addReadyzCheck('ping', () => undefined);
  return { manager, client, logger };
}

/** infrastructures.config.openshift.io/cluster status.controlPlaneTopology; undefined when unavailable (HA defaults apply). */
async function controlPlaneTopology(client: KubeClient, logger: Logger): Promise<string | undefined> {
  try {
    return (await getInfrastructureStatus(client)).controlPlaneTopology;
  } catch (err) {
    logger.debug('could not read the cluster Infrastructure; using HA leader-election timings', { error: err }, 2);
    return undefined;
  }
}
