// Where the controllers under test run: as the real binaries in their own processes (what `npm run chaos`
// does; a crash is SIGKILL), or in one in-process manager (what the short chaos test in `npm test` does; a
// crash is an abort without waiting for in-flight work). Either way: crash and restart one "process" by name.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { Registry } from 'prom-client';
import {
  addMachineHealthCheckController,
  addMachineSetController,
  addNodeLinkController,
  createKubeClient,
  createLogger,
  loadKubeConfig,
  Leases,
  Manager,
  RealClock,
} from '../../lib/index.js';
import { wireAwsProvider } from '../../cmd/machine-api-provider-aws.js';
import { ControllerProcess, deploymentNodeFlags, MACHINESET_WITHOUT_WEBHOOKS } from '../bench/controller-process.js';
import { BENCH_NAMESPACE, type BenchEnvironment } from '../bench/environment.js';
import { WriteRecordingProxy, type RecordedWrite } from './write-recording-proxy.js';

export interface ControllerHost {
  /** Names of what can be crashed independently. */
  readonly names: readonly string[];
  start(): Promise<void>;
  /** Crash (no graceful shutdown) and start again. */
  crashAndRestart(name: string): Promise<void>;
  /** Starts again every replica that exited on its own (a lost lease exits the binary), as a kubelet would. */
  reviveExited(): Promise<void>;
  /**
   * Stops the leading replica of `name` (SIGSTOP) for `ms`, then lets it go on (SIGCONT). Resolves when it
   * resumed, with what happened; undefined when there is no leader to pause (in-process controllers, or no
   * replica holds the lease yet).
   */
  pauseLeader?(name: string, ms: number): Promise<PauseEpisode | undefined>;
  /** Everything the controllers logged so far (for the secret scan). */
  logs(): string;
  stop(): Promise<void>;
}

/** One leader paused past its lease, and what its replica wrote after it resumed. */
export interface PauseEpisode {
  replica: string;
  leaseHolderAtPause: string;
  leaseHolderAtResume: string;
  resumedAt: number;
  /** Writes (Lease writes excluded) that reached the server from this replica in [resumedAt, resumedAt + lease duration]. */
  writesAfterResume(): RecordedWrite[];
}

/** Short sync period and graceful timeout: runs are seconds long. */
const COMMON_ARGS = ['--sync-period=5s', '--graceful-shutdown-timeout=2s'];
/** Replicas per controller when they run as binaries, all with --leader-elect, as an HA cluster runs them. */
export const REPLICAS = 2;
/** Short enough that a pause outlasts it within a run; the binaries derive renew deadline and retry period from it. */
export const LEASE_DURATION_MS = 6_000;

interface Replica {
  name: string;
  proc: ControllerProcess;
  proxy: WriteRecordingProxy;
}

const isLeaseWrite = (w: RecordedWrite) => w.path.includes('/leases/');

/**
 * compiledDir: run the compiled binaries (see hack/bench/build.ts); unset, the sources through tsx. Each
 * controller runs as REPLICAS processes with leader election, each talking to the control plane through
 * its own write-recording proxy.
 */
export function processHost(env: BenchEnvironment, logDir: string, compiledDir?: string): ControllerHost {
  const binary = env.provider.binary;
  const nodeFlags = (script: string) => deploymentNodeFlags(env.provider.name, script);
  const controllers = [
    { name: binary.name, script: binary.script, args: env.provider.cloudArgs(env.emulator) },
    { name: 'machineset-controller', script: 'cmd/machineset-controller.ts', args: MACHINESET_WITHOUT_WEBHOOKS },
    { name: 'nodelink-controller', script: 'cmd/nodelink-controller.ts', args: [] },
    { name: 'machine-healthcheck', script: 'cmd/machine-healthcheck.ts', args: [] },
  ];
  const replicas = new Map<string, Replica[]>();
  let stopping = false;
  const all = () => [...replicas.values()].flat();
  const leaderOf = (name: string): Replica | undefined => {
    let best: { r: Replica; at: number } | undefined;
    for (const r of replicas.get(name) ?? []) {
      const last = r.proxy.writes.filter((w) => isLeaseWrite(w) && w.status >= 200 && w.status < 300).at(-1);
      if (last && (!best || last.at > best.at)) best = { r, at: last.at };
    }
    return best?.r;
  };
  const leaseKeyOf = (r: Replica) => {
    const path = r.proxy.writes.filter(isLeaseWrite).at(-1)?.path ?? '';
    const parts = path.split('/');
    return { namespace: parts[parts.indexOf('namespaces') + 1] ?? BENCH_NAMESPACE, name: parts.at(-1) ?? '' };
  };
  const holder = async (key: { namespace: string; name: string }) =>
    (await env.client.get(Leases, key).catch(() => undefined))?.spec?.holderIdentity ?? '';
  return {
    names: controllers.map((c) => c.name),
    async start() {
      const kubeconfig = readFileSync(env.kubeconfigPath, 'utf8');
      for (const c of controllers) {
        const set: Replica[] = [];
        for (let i = 0; i < REPLICAS; i++) {
          const name = `${c.name}-${i}`;
          const proxy = await WriteRecordingProxy.start(env.controlPlane.url);
          const path = join(logDir, `kubeconfig-${name}`);
          writeFileSync(path, kubeconfig.split(env.controlPlane.url).join(proxy.url), { mode: 0o600 });
          const args = [
            `--kubeconfig=${path}`,
            `--namespace=${BENCH_NAMESPACE}`,
            ...COMMON_ARGS,
            '--leader-elect=true',
            `--leader-elect-lease-duration=${LEASE_DURATION_MS / 1000}s`,
            `--leader-elect-resource-namespace=${BENCH_NAMESPACE}`,
            ...c.args,
          ];
          set.push({
            name,
            proxy,
            proc: new ControllerProcess({
              name,
              script: c.script,
              args,
              logFile: join(logDir, `${name}.log`),
              compiledDir,
              nodeFlags: nodeFlags(c.script),
            }),
          });
        }
        replicas.set(c.name, set);
      }
      for (const r of all()) await r.proc.start();
      for (const r of all()) await readyRestartingOnExit(r.proc);
    },
    async crashAndRestart(name) {
      const set = replicas.get(name);
      if (!set) throw new Error(`no controller process ${name}`);
      // The leader when there is one: crashing a standby tests little.
      await (leaderOf(name) ?? set[0])?.proc.restart();
    },
    async reviveExited() {
      if (stopping) return;
      for (const r of all()) if (!r.proc.running) await r.proc.start();
    },
    async pauseLeader(name, ms) {
      const r = leaderOf(name);
      const pid = r?.proc.pid;
      if (!r || pid === undefined) return undefined;
      const key = leaseKeyOf(r);
      const leaseHolderAtPause = await holder(key);
      process.kill(pid, 'SIGSTOP');
      await new Promise((resolve) => setTimeout(resolve, ms));
      // A crash fault may have killed it meanwhile; then there is nothing to resume.
      if (r.proc.pid !== pid) return undefined;
      try {
        process.kill(pid, 'SIGCONT');
      } catch {
        return undefined;
      }
      const resumedAt = Date.now();
      const leaseHolderAtResume = await holder(key);
      return {
        replica: r.name,
        leaseHolderAtPause,
        leaseHolderAtResume,
        resumedAt,
        writesAfterResume: () =>
          r.proxy.writes.filter((w) => !isLeaseWrite(w) && w.at >= resumedAt && w.at <= resumedAt + LEASE_DURATION_MS),
      };
    },
    logs: () =>
      all()
        .map((r) => r.proc.logText())
        .join('\n'),
    async stop() {
      stopping = true;
      for (const r of all()) {
        // A stopped process cannot act on SIGTERM.
        if (r.proc.pid !== undefined && r.proc.running) {
          try {
            process.kill(r.proc.pid, 'SIGCONT');
          } catch {
            // already gone
          }
        }
        await r.proc.stop();
        await r.proxy.stop();
      }
    },
  };
}

/**
 * Waits for a replica to serve /metrics, starting it again when it exits meanwhile, as the kubelet restarts a
 * container: on a loaded machine a replica can lose its short test lease while still starting and exit 1 by
 * design, which is no reason to abandon the run.
 */
async function readyRestartingOnExit(proc: ControllerProcess, attempts = 3): Promise<void> {
  for (let i = 1; ; i++) {
    try {
      await proc.waitReady();
      return;
    } catch (err) {
      if (proc.running || i >= attempts) throw err;
      await proc.start();
    }
  }
}

interface Running {
  stop: AbortController;
  done: Promise<void>;
  close: () => void;
}

/**
 * One manager per "process" (provider, machineset, healthcheck), each with its own client, in this process.
 * Faster to start than the binaries, with timings shortened for tests.
 */
export function inProcessHost(env: BenchEnvironment): ControllerHost {
  // The shortened in-process timings are wired for the AWS provider only; other clouds run as binaries.
  if (env.provider.name !== 'aws')
    throw new RangeError(`in-process controllers support provider aws only, got ${env.provider.name}`);
  const log = new PassThrough();
  const chunks: string[] = [];
  log.on('data', (c: Buffer) => chunks.push(c.toString('utf8')));
  const running = new Map<string, Running>();
  const names = [
    'machine-api-provider-aws',
    'machineset-controller',
    'nodelink-controller',
    'machine-healthcheck',
  ] as const;

  const launch = (name: string): void => {
    const client = createKubeClient({
      kubeConfig: loadKubeConfig({ kubeconfigPath: env.kubeconfigPath }),
      qps: 500,
      burst: 1000,
      userAgent: name,
    });
    const mgr = new Manager({
      client,
      namespace: BENCH_NAMESPACE,
      metrics: new Registry(),
      logger: createLogger({ level: 2, stream: log, fields: { component: name } }),
      syncPeriodMs: 3_000,
      gracefulShutdownMs: 0,
    });
    let closeProvider = () => {};
    if (name === 'machine-api-provider-aws') {
      const p = wireAwsProvider(
        mgr,
        client,
        {
          endpoint: env.emulator.endpoint,
          retryDelayMs: () => 20,
          batchWindowMs: 5,
          machineController: {
            requeueAfterMs: 300,
            rateLimiter: { baseDelayMs: 20, maxDelayMs: 1_000 },
            // Capacity faults last seconds here: look again as often as after any other error.
            capacityRetry: { baseDelayMs: 20, maxDelayMs: 1_000 },
            drainRateLimiter: { baseDelayMs: 50, maxDelayMs: 1_000 },
            drain: { timeoutMs: 2_000, evictionRetryBaseMs: 50, evictionRetryMaxMs: 200, podPollIntervalMs: 50 },
          },
          actuator: { requeueAfterMs: 300, eventualConsistencyWindowMs: 5_000 },
        },
        new RealClock(),
      );
      closeProvider = () => p.close();
    } else if (name === 'machineset-controller') {
      addMachineSetController(mgr, {});
    } else if (name === 'nodelink-controller') {
      addNodeLinkController(mgr, {});
    } else {
      addMachineHealthCheckController(mgr, {});
    }
    const stop = new AbortController();
    const done = mgr.start(stop.signal).catch(() => undefined);
    running.set(name, {
      stop,
      done,
      close: () => {
        closeProvider();
        client.close();
      },
    });
  };
  const kill = async (name: string): Promise<void> => {
    const r = running.get(name);
    if (!r) return;
    running.delete(name);
    r.stop.abort();
    await r.done;
    r.close();
  };
  return {
    names,
    start() {
      for (const n of names) launch(n);
      return Promise.resolve();
    },
    async crashAndRestart(name) {
      await kill(name);
      launch(name);
    },
    reviveExited: () => Promise.resolve(),
    logs: () => chunks.join(''),
    async stop() {
      for (const n of names) await kill(n);
    },
  };
}
