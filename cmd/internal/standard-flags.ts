// The flags every controller binary shares, with the Machine API's names and defaults.
import { Command, InvalidArgumentError, Option } from 'commander';
import { parseGoDuration } from './go-duration.js';
import { parseFeatureGates } from './feature-gates.js';
import { goBoolArgument } from './go-bool.js';
import { addKlogFlags, readLoggingFlags, type LoggingFlags } from './klog-flags.js';
import { intArg } from './int-argument.js';
import { addVersionFlag } from './version.js';

export interface BinaryDefaults {
  /** Lease name, e.g. "cluster-api-provider-aws-leader". */
  leaderElectionId: string;
  /** e.g. ":8081"; "0" disables metrics. */
  metricsBindAddress: string;
  /** e.g. ":9440"; "" disables the health server. */
  healthAddr: string;
}

export interface StandardFlags {
  kubeconfig?: string;
  namespace: string;
  leaderElect: boolean;
  leaderElectLeaseDurationMs: number;
  leaderElectResourceNamespace: string;
  leaderElectId: string;
  metricsBindAddress: string;
  healthAddr: string;
  maxConcurrentReconciles: number;
  kubeApiQps: number;
  kubeApiBurst: number;
  featureGates: Record<string, boolean>;
  gracefulShutdownTimeoutMs: number;
  /** How often every watched object is reconciled again even without a change (MAO's --sync-period). */
  syncPeriodMs: number;
  /** -v */
  v: number;
  logging: LoggingFlags;
  /** --pprof-bind-address when --enable-pprof is on; undefined when off. */
  pprofBindAddress?: string;
}

function positiveNumber(flag: string) {
  return (value: string): number => {
    const n = Number(value);
    if (!Number.isFinite(n) || n <= 0)
      throw new InvalidArgumentError(`${flag} must be a number > 0, got ${JSON.stringify(value)}`);
    return n;
  };
}

function duration(flag: string) {
  return (value: string): number => {
    try {
      const ms = parseGoDuration(value, flag);
      if (ms < 0) throw new InvalidArgumentError(`${flag} must not be negative`);
      return ms;
    } catch (err) {
      throw new InvalidArgumentError((err as Error).message);
    }
  };
}

function gates(value: string): Record<string, boolean> {
  try {
    return parseFeatureGates(value);
  } catch (err) {
    throw new InvalidArgumentError((err as Error).message);
  }
}

/** Adds the shared flags to a commander program; `defaultKubeconfig` is usually $KUBECONFIG. */
export function addStandardFlags(cmd: Command, defaults: BinaryDefaults, defaultKubeconfig?: string): Command {
  return addKlogFlags(addVersionFlag(cmd))
    .addOption(
      new Option('--kubeconfig <path>', 'Path to a kubeconfig; in-cluster configuration when unset').default(
        defaultKubeconfig || undefined,
      ),
    )
    .option('--namespace <ns>', 'Namespace the controllers watch; all namespaces when empty', '')
    .addOption(
      new Option(
        '--leader-elect [bool]',
        'Use leader election on a coordination.k8s.io Lease so only one replica runs the controllers',
      )
        .default(false)
        .argParser(goBoolArgument('--leader-elect')),
    )
    .addOption(
      new Option(
        '--leader-elect-lease-duration <duration>',
        'How long a non-leader waits before taking an unrenewed lease (Go duration, e.g. 120s); 0 = 137s (270s on single-replica clusters), renew deadline 107s, retry period 26s',
      )
        .default(0, '0')
        .argParser(duration('--leader-elect-lease-duration')),
    )
    .option(
      '--leader-elect-resource-namespace <ns>',
      'Namespace of the leader-election Lease; default: the service account namespace in-cluster (required out of a cluster when --leader-elect is on)',
      '',
    )
    .option('--leader-elect-id <name>', 'Name of the leader-election Lease', defaults.leaderElectionId)
    .option(
      '--metrics-bind-address <addr>',
      'Address of the Prometheus /metrics endpoint ("0" disables it)',
      defaults.metricsBindAddress,
    )
    .option(
      '--health-addr <addr>',
      'Address of the /healthz and /readyz endpoints ("" disables them)',
      defaults.healthAddr,
    )
    .addOption(
      new Option('--max-concurrent-reconciles <n>', 'Workers per controller; a key is never reconciled by two at once')
        .default(10)
        .argParser(intArg('--max-concurrent-reconciles', 1)),
    )
    .addOption(
      new Option(
        '--kube-api-qps <qps>',
        "Client-side limit on requests per second to the API server (above controller-runtime's 20, which made a 500-Machine scale-up wait on the client: see hack/bench)",
      )
        .default(200)
        .argParser(positiveNumber('--kube-api-qps')),
    )
    .addOption(
      new Option('--kube-api-burst <n>', 'Client-side burst of requests to the API server')
        .default(400)
        .argParser(intArg('--kube-api-burst', 1)),
    )
    .addOption(
      new Option('--feature-gates <gates>', 'Comma-separated Name=true|false pairs, e.g. MachineAPIMigration=true')
        .default({}, '')
        .argParser(gates),
    )
    .addOption(
      new Option(
        '--graceful-shutdown-timeout <duration>',
        'How long in-flight reconciles may run after SIGTERM before they are aborted',
      )
        .default(30_000, '30s')
        .argParser(duration('--graceful-shutdown-timeout')),
    )
    .addOption(
      new Option('--sync-period <duration>', 'How often every object is reconciled again even when nothing changed')
        .default(600_000, '10m')
        .argParser(duration('--sync-period')),
    )
    .addOption(
      new Option(
        '--enable-pprof [bool]',
        'Enable the profiling endpoints (/debug/pprof/profile: a V8 CPU profile, /debug/pprof/heap: a V8 heap snapshot)',
      )
        .default(false)
        .argParser(goBoolArgument('--enable-pprof')),
    )
    .option(
      '--pprof-bind-address <addr>',
      'The address for serving the profiling endpoints (requires --enable-pprof)',
      '127.0.0.1:6060',
    );
}

/** The parsed flag values of a command that had addStandardFlags applied. */
export function readStandardFlags(cmd: Command): StandardFlags {
  const o = cmd.opts();
  return {
    kubeconfig: o.kubeconfig as string | undefined,
    namespace: o.namespace as string,
    leaderElect: o.leaderElect === true,
    leaderElectLeaseDurationMs: o.leaderElectLeaseDuration as number,
    leaderElectResourceNamespace: o.leaderElectResourceNamespace as string,
    leaderElectId: o.leaderElectId as string,
    metricsBindAddress: o.metricsBindAddress as string,
    healthAddr: o.healthAddr as string,
    maxConcurrentReconciles: o.maxConcurrentReconciles as number,
    kubeApiQps: o.kubeApiQps as number,
    kubeApiBurst: o.kubeApiBurst as number,
    featureGates: o.featureGates as Record<string, boolean>,
    gracefulShutdownTimeoutMs: o.gracefulShutdownTimeout as number,
    syncPeriodMs: (o.syncPeriod as number | undefined) ?? 600_000,
    v: o.v as number,
    logging: readLoggingFlags(o),
    pprofBindAddress: o.enablePprof === true ? (o.pprofBindAddress as string) : undefined,
  };
}
