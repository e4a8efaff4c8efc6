// Where the controllers under test run: as the real binaries in their own processes (what `npm run chaos`
// does; a crash is SIGKILL), or in one in-process manager (what the short chaos test in `npm test` does; a
// crash is an abort without waiting for in-flight work). Either way: crash and restart one "process" by name.
import { PassThrough } from 'node:stream';
import { Registry } from 'prom-client';
import {
  addMachineHealthCheckController,
  addMachineSetController,
  createKubeClient,
  createLogger,
  loadKubeConfig,
  Manager,
  RealClock,
} from '../../lib/index.js';
import { wireAwsProvider } from '../../cmd/machine-api-provider-aws.js';
import { ControllerProcess, deploymentNodeFlags } from '../bench/controller-process.js';
import { BENCH_NAMESPACE, type BenchEnvironment } from '../bench/environment.js';

export interface ControllerHost {
  /** Names of what can be crashed independently. */
  readonly names: readonly string[];
  start(): Promise<void>;
  /** Crash (no graceful shutdown) and start again. */
  crashAndRestart(name: string): Promise<void>;
  /** Everything the controllers logged so far (for the secret scan). */
  logs(): string;
  stop(): Promise<void>;
}

/** Short sync period and graceful timeout: runs are seconds long. */
const COMMON_ARGS = ['--sync-period=5s', '--graceful-shutdown-timeout=2s'];

/** compiledDir: run the compiled binaries (see hack/bench/build.ts); unset, the sources through tsx. */
export function processHost(env: BenchEnvironment, logDir: string, compiledDir?: string): ControllerHost {
  const common = [`--kubeconfig=${env.kubeconfigPath}`, `--namespace=${BENCH_NAMESPACE}`, ...COMMON_ARGS];
  const binary = env.provider.binary;
  const nodeFlags = (script: string) => deploymentNodeFlags(env.provider.name, script);
  const procs = [
    new ControllerProcess({ name: binary.name, script: binary.script, args: [...common, ...env.provider.cloudArgs(env.emulator)], logFile: `${logDir}/${binary.name}.log`, compiledDir, nodeFlags: nodeFlags(binary.script) }),
    new ControllerProcess({ name: 'machineset-controller', script: 'cmd/machineset-controller.ts', args: common, logFile: `${logDir}/machineset-controller.log`, compiledDir, nodeFlags: nodeFlags('cmd/machineset-controller.ts') }),
    new ControllerProcess({ name: 'machine-healthcheck', script: 'cmd/machine-healthcheck.ts', args: common, logFile: `${logDir}/machine-healthcheck.log`, compiledDir, nodeFlags: nodeFlags('cmd/machine-healthcheck.ts') }),
  ];
  const byName = (n: string) => procs.find((p) => p.name === n);
  return {
    names: procs.map((p) => p.name),
    async start() {
      for (const p of procs) await p.start();
      for (const p of procs) await p.waitReady();
    },
    async crashAndRestart(name) {
      const p = byName(name);
      if (!p) throw new Error(`no controller process ${name}`);
      await p.restart();
    },
    logs: () => procs.map((p) => p.logText()).join('\n'),
    async stop() {
      for (const p of procs) await p.stop();
    },
  };
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
  if (env.provider.name !== 'aws') throw new RangeError(`in-process controllers support provider aws only, got ${env.provider.name}`);
  const log = new PassThrough();
  const chunks: string[] = [];
  log.on('data', (c: Buffer) => chunks.push(c.toString('utf8')));
  const running = new Map<string, Running>();
  const names = ['machine-api-provider-aws', 'machineset-controller', 'machine-healthcheck'] as const;

  const launch = (name: string): void => {
    const client = createKubeClient({ kubeConfig: loadKubeConfig({ kubeconfigPath: env.kubeconfigPath }), qps: 500, burst: 1000, userAgent: name });
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
      const p = wireAwsProvider(mgr, client, {
        endpoint: env.emulator.endpoint,
        retryDelayMs: () => 20,
        batchWindowMs: 5,
        machineController: {
          requeueAfterMs: 300,
          rateLimiter: { baseDelayMs: 20, maxDelayMs: 1_000 },
          drainRateLimiter: { baseDelayMs: 50, maxDelayMs: 1_000 },
          drain: { timeoutMs: 2_000, evictionRetryBaseMs: 50, evictionRetryMaxMs: 200, podPollIntervalMs: 50 },
        },
        actuator: { requeueAfterMs: 300, eventualConsistencyWindowMs: 5_000 },
      }, new RealClock());
      closeProvider = () => p.close();
    } else if (name === 'machineset-controller') {
      addMachineSetController(mgr, {});
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
    logs: () => chunks.join(''),
    async stop() {
      for (const n of names) await kill(n);
    },
  };
}
