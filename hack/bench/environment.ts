// What the benchmark and the chaos runs measure against: the local control plane, the EC2 emulator and the
// kubelet simulator, hosted by the driver process, with the controllers run elsewhere (child processes or an
// in-process manager). It counts API requests per client (user agent) from outside the controllers, and can
// restart the control plane from its data dir on the same port and token, as an apiserver restart would.
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
import { startControlPlane, type ControlPlane, type RecordedRequest } from '../../lib/envtest/index.js';
import { KubeletSimulator } from '../../lib/testing/index.js';
import { startEc2Emulator, type Ec2Emulator } from '../../providers/aws/emulator/index.js';

export const BENCH_NAMESPACE = 'openshift-machine-api';
export const CLUSTER_ID = 'bench';
export const DRIVER_USER_AGENT = 'machine-api-bench-driver';
export const KUBELET_USER_AGENT = 'kubelet-simulator';

/** Values planted in the Secrets so that a scan of logs, events and errors can look for them. */
export const SECRET_VALUES = {
  accessKeyId: 'AKIABENCHSECRET7Q2Z',
  secretAccessKey: 'bench-secret-key-5c1e9a7f0d3b44e8a2',
  userData: 'bench-user-data-token-8f3a1c5e7b9d',
} as const;

export interface BenchEnvironmentOptions {
  stateDir: string;
  /** pending → running in the emulator (default 10 s). */
  bootDelayMs?: number;
  /** Added to every EC2 call (default 20 ms). */
  latencyMs?: number;
  /** Seeds the emulator's ids and probabilistic faults. */
  seed?: number;
}

export interface BenchEnvironment {
  controlPlane: ControlPlane;
  emulator: Ec2Emulator;
  kubelet: KubeletSimulator;
  /** The driver's own client (its requests are counted apart from the controllers'). */
  client: KubeClient;
  /** A plain-http kubeconfig that survives control-plane restarts (same port and token). */
  kubeconfigPath: string;
  /** Requests per "userAgent|verb resource[/sub]". */
  requestCounts(): Map<string, number>;
  resetRequestCounts(): void;
  /** Stops the control plane and starts it again from its data dir, on the same port with the same token. */
  restartControlPlane(): Promise<void>;
  stop(): Promise<void>;
}

/** The user agent without a version suffix, e.g. "machine-api-provider-aws". */
export function agentName(userAgent: string | undefined): string {
  return (userAgent ?? 'unknown').split(/[/ ]/)[0] || 'unknown';
}

export function benchSecrets(): Secret[] {
  return [
    {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'aws-cloud-credentials', namespace: BENCH_NAMESPACE },
      type: 'Opaque',
      stringData: { aws_access_key_id: SECRET_VALUES.accessKeyId, aws_secret_access_key: SECRET_VALUES.secretAccessKey },
    },
    {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'worker-user-data', namespace: BENCH_NAMESPACE },
      type: 'Opaque',
      stringData: { userData: `{"ignition":{"version":"3.2.0"},"token":"${SECRET_VALUES.userData}"}`, disableTemplating: 'true' },
    },
  ] as Secret[];
}

export async function startBenchEnvironment(opts: BenchEnvironmentOptions): Promise<BenchEnvironment> {
  mkdirSync(opts.stateDir, { recursive: true, mode: 0o700 });
  const dataDir = join(opts.stateDir, 'apiserver');
  const counts = new Map<string, number>();
  const onRequest = (r: RecordedRequest): void => {
    const key = `${agentName(r.userAgent)}|${r.verb} ${r.resource}${r.subresource ? `/${r.subresource}` : ''}`;
    counts.set(key, (counts.get(key) ?? 0) + 1);
  };
  let controlPlane = await startControlPlane({ port: 0, dataDir, onRequest });
  const port = Number(new URL(controlPlane.url).port);
  const token = controlPlane.token;
  const kubeconfigPath = join(opts.stateDir, 'kubeconfig-http');
  writeFileSync(kubeconfigPath, controlPlane.kubeconfig, { mode: 0o600 });

  const emulator = await startEc2Emulator({
    clusterId: CLUSTER_ID,
    seed: opts.seed ?? 1,
    timings: { bootMs: opts.bootDelayMs ?? 10_000 },
    knobs: { latency: [{ latency: opts.latencyMs ?? 20 }] },
  });
  const kubeConfig = loadKubeConfig({ yaml: controlPlane.kubeconfig });
  const client = createKubeClient({ kubeConfig, qps: 1000, burst: 2000, userAgent: DRIVER_USER_AGENT });
  const kubeletClient = createKubeClient({ kubeConfig, qps: 1000, burst: 2000, userAgent: KUBELET_USER_AGENT });
  try {
    await client.create(Namespaces, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: BENCH_NAMESPACE } });
  } catch (err) {
    if (!isAlreadyExists(err)) throw err;
  }
  for (const s of benchSecrets()) await client.create(Secrets, s);
  const kubelet = new KubeletSimulator({ client: kubeletClient, view: emulator.instanceView() });
  await kubelet.start();

  let stopped = false;
  return {
    get controlPlane() {
      return controlPlane;
    },
    emulator,
    kubelet,
    client,
    kubeconfigPath,
    requestCounts: () => new Map(counts),
    resetRequestCounts: () => counts.clear(),
    async restartControlPlane() {
      await controlPlane.stop();
      controlPlane = await startControlPlane({ port, token, dataDir, onRequest });
    },
    async stop() {
      if (stopped) return;
      stopped = true;
      await kubelet.stop();
      client.close();
      kubeletClient.close();
      await emulator.stop();
      await controlPlane.stop();
    },
  };
}
