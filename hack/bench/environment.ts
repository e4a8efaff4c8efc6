// What the benchmark and the chaos runs measure against: the local control plane, a cloud emulator and the
// kubelet simulator, with the controllers run elsewhere (child processes or an in-process manager). The emulator
// and the kubelet simulator live in the driver process; the control plane too for the chaos runs (which restart it
// from its data dir on the same port and token, as an apiserver restart would, and inject watch faults), and in its
// own process (machine-api-envtest) for the benchmark, so the simulation does not share one core. It counts API
// requests per client (user agent) from outside the controllers either way.
import { randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  createKubeClient,
  isAlreadyExists,
  loadKubeConfig,
  Namespaces,
  Secrets,
  type KubeClient,
  type Secret,
} from '../../lib/index.js';
import {
  buildKubeconfig,
  startControlPlane,
  type ControlPlane,
  type RecordedRequest,
} from '../../sim/apiserver/index.js';
import { freeLoopbackPort } from '../../cmd/local/preferred-port.js';
import type { ControllerProcess } from './controller-process.js';
import { controlPlaneProcess, killedEnvtestProcess } from './envtest-process.js';
import { requestCountsOf } from './envtest-requests.js';
import { KubeletSimulator, type InstanceView } from '../../sim/kit/index.js';
import { awsBench, SECRET_VALUES, type BenchCloud, type BenchProvider } from './providers.js';

export const BENCH_NAMESPACE = 'openshift-machine-api';
/** The AWS cluster id; other clouds' are in their BenchProvider. */
export const CLUSTER_ID = awsBench.clusterId;
export const DRIVER_USER_AGENT = 'machine-api-bench-driver';
export const KUBELET_USER_AGENT = 'kubelet-simulator';

export { SECRET_VALUES };

export interface BenchEnvironmentOptions {
  stateDir: string;
  /** pending → running in the emulator (default 10 s). */
  bootDelayMs?: number;
  /** Added to every EC2 call (default 20 ms). */
  latencyMs?: number;
  /** Seeds the emulator's ids and probabilistic faults. */
  seed?: number;
  /** The cloud (default AWS). */
  provider?: BenchProvider;
  /**
   * Run the control plane as its own process (machine-api-envtest), from `compiledDir` when given (else through
   * tsx). Its in-process faults (controlPlane, restartControlPlane, killControlPlane) are then unavailable.
   */
  controlPlaneProcess?: { compiledDir?: string };
}

export interface BenchEnvironment {
  /** The in-process control plane; throws when it runs as its own process (see controlPlaneProcess). */
  controlPlane: ControlPlane;
  /** The control plane's process, when it runs as one: measured like the controllers. */
  controlPlaneProcess?: ControllerProcess;
  provider: BenchProvider;
  emulator: BenchCloud;
  kubelet: KubeletSimulator;
  /** The driver's own client (its requests are counted apart from the controllers'). */
  client: KubeClient;
  /** A plain-http kubeconfig that survives control-plane restarts (same port and token). */
  kubeconfigPath: string;
  /** Requests per "userAgent|verb resource[/sub]" since the start (from the control plane's process when it runs as one). */
  requestCounts(): Promise<Map<string, number>>;
  /** The next instance to appear boots but its kubelet never registers a Node (chaos). */
  nextNodeNeverRegisters(): void;
  /** Creates again every bench Secret that is missing (after a chaos fault deleted one). */
  restoreSecrets(): Promise<void>;
  /** Stops the control plane and starts it again from its data dir, on the same port with the same token. */
  restartControlPlane(): Promise<void>;
  /**
   * Hands the data dir to the machine-api-envtest binary in a child process (same port and token), lets the
   * clients use it for `serveMs`, SIGKILLs it, and starts the control plane again from what it left on disk.
   */
  killControlPlane(serveMs: number, compiledDir?: string): Promise<void>;
  stop(): Promise<void>;
}

/** The user agent without a version suffix, e.g. "machine-api-provider-aws". */
export function agentName(userAgent: string | undefined): string {
  return (userAgent ?? 'unknown').split(/[/ ]/)[0] || 'unknown';
}

export function benchSecrets(provider: BenchProvider = awsBench): Secret[] {
  return provider.secrets(BENCH_NAMESPACE);
}

export async function startBenchEnvironment(opts: BenchEnvironmentOptions): Promise<BenchEnvironment> {
  mkdirSync(opts.stateDir, { recursive: true, mode: 0o700 });
  const dataDir = join(opts.stateDir, 'apiserver');
  const counts = new Map<string, number>();
  const onRequest = (r: RecordedRequest): void => {
    const key = `${agentName(r.userAgent)}|${r.verb} ${r.resource}${r.subresource ? `/${r.subresource}` : ''}`;
    counts.set(key, (counts.get(key) ?? 0) + 1);
  };
  let controlPlane: ControlPlane | undefined;
  let cpProcess: ControllerProcess | undefined;
  let port: number;
  let token: string;
  let kubeconfig: string;
  if (opts.controlPlaneProcess) {
    port = await freeLoopbackPort();
    token = randomBytes(24).toString('hex');
    // Plain http to the process, as the in-process control plane's kubeconfig: TLS would cost both sides CPU.
    kubeconfig = buildKubeconfig(`http://127.0.0.1:${port}`, token);
    cpProcess = controlPlaneProcess({
      port,
      token,
      dataDir,
      logFile: join(opts.stateDir, 'machine-api-envtest.log'),
      compiledDir: opts.controlPlaneProcess.compiledDir,
    });
    await cpProcess.start();
    await cpProcess.waitReady();
  } else {
    controlPlane = await startControlPlane({ port: 0, dataDir, onRequest });
    port = Number(new URL(controlPlane.url).port);
    token = controlPlane.token;
    kubeconfig = controlPlane.kubeconfig;
  }
  const kubeconfigPath = join(opts.stateDir, 'kubeconfig-http');
  writeFileSync(kubeconfigPath, kubeconfig, { mode: 0o600 });

  const provider = opts.provider ?? awsBench;
  const emulator = await provider.startEmulator({
    clusterId: provider.clusterId,
    seed: opts.seed ?? 1,
    bootDelayMs: opts.bootDelayMs ?? 10_000,
    latencyMs: opts.latencyMs ?? 20,
  });
  const kubeConfig = loadKubeConfig({ yaml: kubeconfig });
  const client = createKubeClient({ kubeConfig, qps: 1000, burst: 2000, userAgent: DRIVER_USER_AGENT });
  const kubeletClient = createKubeClient({ kubeConfig, qps: 1000, burst: 2000, userAgent: KUBELET_USER_AGENT });
  try {
    await client.create(Namespaces, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: BENCH_NAMESPACE } });
  } catch (err) {
    if (!isAlreadyExists(err)) throw err;
  }
  for (const s of benchSecrets(provider)) await client.create(Secrets, s);
  const kubelets = new SilentKubelets(emulator.instanceView());
  const kubelet = new KubeletSimulator({ client: kubeletClient, view: kubelets });
  await kubelet.start();

  const inProcess = (what: string): ControlPlane => {
    if (!controlPlane) throw new Error(`${what}: the control plane runs as its own process here`);
    return controlPlane;
  };
  let stopped = false;
  return {
    get controlPlane() {
      return inProcess('controlPlane');
    },
    controlPlaneProcess: cpProcess,
    provider,
    emulator,
    kubelet,
    client,
    kubeconfigPath,
    nextNodeNeverRegisters: () => kubelets.silenceNext(),
    async restoreSecrets() {
      for (const secret of benchSecrets(provider)) {
        try {
          await client.create(Secrets, secret);
        } catch (err) {
          if (!isAlreadyExists(err)) throw err;
        }
      }
    },
    requestCounts: async () => (cpProcess ? requestCountsOf(await cpProcess.metrics()) : new Map(counts)),
    async restartControlPlane() {
      await inProcess('restartControlPlane').stop();
      controlPlane = await startControlPlane({ port, token, dataDir, onRequest });
    },
    async killControlPlane(serveMs, compiledDir) {
      await inProcess('killControlPlane').stop();
      try {
        await killedEnvtestProcess({
          port,
          token,
          dataDir,
          logFile: join(opts.stateDir, 'machine-api-envtest.log'),
          serveMs,
          compiledDir,
        });
      } finally {
        // A torn log tail is what a kill -9 may leave; start-up reports it and keeps every acknowledged write.
        controlPlane = await startControlPlane({ port, token, dataDir, onRequest });
      }
    },
    async stop() {
      if (stopped) return;
      stopped = true;
      await kubelet.stop();
      client.close();
      kubeletClient.close();
      await emulator.stop();
      await controlPlane?.stop();
      await cpProcess?.stop();
    },
  };
}

/** The view the kubelets see: instances whose kubelet never comes up are left out, so no Node registers for them. */
class SilentKubelets implements InstanceView {
  private readonly seen = new Set<string>();
  private readonly silent = new Set<string>();
  private pending = 0;

  constructor(private readonly view: InstanceView) {
    for (const i of view.listInstances()) this.seen.add(i.providerID);
  }

  silenceNext(): void {
    this.pending++;
  }

  listInstances(): ReturnType<InstanceView['listInstances']> {
    const all = this.view.listInstances();
    for (const i of all) {
      if (this.seen.has(i.providerID)) continue;
      this.seen.add(i.providerID);
      if (this.pending > 0) {
        this.pending--;
        this.silent.add(i.providerID);
      }
    }
    return all.filter((i) => !this.silent.has(i.providerID));
  }

  onChange(listener: () => void): () => void {
    return this.view.onChange(listener);
  }
}
