// The machine, drain and NodeLink controllers on the local control plane, with the FakeActuator as the cloud
// and the KubeletSimulator as its kubelets, tuned to react in tens of milliseconds: what the integration tests of
// deletions, drains and remediation start from. `extra` adds controllers to the same manager.
import { Namespaces } from '../../../lib/client/resources.js';
import { addMachineController } from '../../../lib/machine/controller.js';
import { addNodeLinkController } from '../../../lib/nodelink/controller.js';
import type { Manager } from '../../../lib/runtime/manager.js';
import type { ControlPlaneOptions } from '../../../sim/apiserver/index.js';
import { FakeActuator, type FakeActuatorOptions } from '../../../sim/kit/fake-actuator.js';
import { KubeletSimulator, type KubeletSimulatorOptions } from '../../../sim/kit/kubelet-simulator.js';
import { startTestEnv, type TestEnv } from '../../../sim/kit/test-env.js';

export interface MachineStack {
  env: TestEnv;
  mgr: Manager;
  actuator: FakeActuator;
  kubelet: KubeletSimulator;
  stop(): Promise<void>;
}

export async function startMachineStack(
  o: {
    namespaces?: string[];
    controlPlane?: ControlPlaneOptions;
    actuator?: FakeActuatorOptions;
    kubelet?: Partial<Omit<KubeletSimulatorOptions, 'client' | 'view'>>;
    extra?: (mgr: Manager) => void;
  } = {},
): Promise<MachineStack> {
  const env = await startTestEnv(o.controlPlane ? { controlPlane: o.controlPlane } : {});
  for (const name of o.namespaces ?? ['openshift-machine-api'])
    await env.client.create(Namespaces, { metadata: { name } });
  const actuator = new FakeActuator(o.actuator);
  const kubelet = new KubeletSimulator({ client: env.client, view: actuator, ...o.kubelet });
  const mgr = env.newManager({ syncPeriodMs: 60_000 });
  addMachineController(mgr, actuator, {
    requeueAfterMs: 250,
    rateLimiter: { baseDelayMs: 5, maxDelayMs: 500 },
    drainRateLimiter: { baseDelayMs: 100, maxDelayMs: 1_000 },
    terminationFollow: { firstMs: 100, maxMs: 300 },
    drain: { timeoutMs: 1_000, evictionRetryBaseMs: 50, evictionRetryMaxMs: 200, podPollIntervalMs: 50 },
  });
  addNodeLinkController(mgr);
  o.extra?.(mgr);
  const stopping = new AbortController();
  const running = mgr.start(stopping.signal);
  await kubelet.start();
  return {
    env,
    mgr,
    actuator,
    kubelet,
    async stop() {
      await kubelet.stop();
      stopping.abort();
      await running.catch(() => undefined);
      await env.stop();
    },
  };
}
