// A local control plane plus a client and managers wired to it: the starting point of integration tests.
import type { KubeConfig } from '@kubernetes/client-node';
import { Registry } from 'prom-client';
import { loadKubeConfig } from '../../lib/client/kube-config.js';
import { createKubeClient } from '../../lib/client/http-kube-client.js';
import type { KubeClient } from '../../lib/client/kube-client.js';
import { startControlPlane, type ControlPlane, type ControlPlaneOptions } from '../apiserver/index.js';
import { createLogger, nullLogger } from '../../lib/base/structured-logger.js';
import { Manager, type ManagerOptions } from '../../lib/runtime/manager.js';

export interface TestEnvOptions {
  controlPlane?: ControlPlaneOptions;
  /** Client QPS/burst; generous defaults so tests are not throttled. */
  qps?: number;
  burst?: number;
  /** -v of managers' loggers; unset = managers log nothing (set 0+ to debug a test). */
  logLevel?: number;
}

export interface TestEnv {
  controlPlane: ControlPlane;
  client: KubeClient;
  kubeConfig: KubeConfig;
  /** A Manager on this control plane with its own metrics Registry; options override the defaults. */
  newManager(opts?: Partial<ManagerOptions>): Manager;
  /** A new client (e.g. to count or fail calls per test). */
  newClient(opts?: { qps?: number; burst?: number }): KubeClient;
  stop(): Promise<void>;
}

export async function startTestEnv(opts: TestEnvOptions = {}): Promise<TestEnv> {
  const controlPlane = await startControlPlane(opts.controlPlane);
  const kubeConfig = loadKubeConfig({ yaml: controlPlane.kubeconfig });
  const clients: Array<{ close(): void }> = [];
  const newClient = (o: { qps?: number; burst?: number } = {}): KubeClient => {
    const c = createKubeClient({
      kubeConfig,
      qps: o.qps ?? opts.qps ?? 1000,
      burst: o.burst ?? opts.burst ?? 2000,
      userAgent: 'machine-api-ts-test',
    });
    clients.push(c);
    return c;
  };
  const client = newClient();
  return {
    controlPlane,
    client,
    kubeConfig,
    newClient,
    newManager: (o = {}) =>
      new Manager({
        client,
        metrics: new Registry(),
        logger: opts.logLevel === undefined ? nullLogger() : createLogger({ level: opts.logLevel }),
        gracefulShutdownMs: 5_000,
        ...o,
      }),
    async stop() {
      for (const c of clients) c.close();
      await controlPlane.stop();
    },
  };
}
