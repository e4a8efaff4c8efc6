// An in-process cluster for a provider's integration tests: the local control plane, a namespace with the
// provider's secrets, the kubelet simulator following the cloud emulator's instance view, and one manager
// running what the provider binary wires plus the MachineSet controller (its own binary in production).
//
// How a provider uses it (start its emulator first, the wiring needs the endpoint):
//   emu = await startMyCloudEmulator({ ... });
//   bed = await startProviderTestBed({
//     namespace: NAMESPACE,
//     secrets: defaultSecrets(),
//     instanceView: emu.instanceView(),
//     wire: (mgr, client) => wireMyProvider(mgr, client, { endpoint: emu.endpoint, machineController: FAST_MACHINE_CONTROLLER }),
//   });
//   ... await bed.env.client.create(MachineSets, machineSetFor({ name: 'workers', replicas: 3, namespace, clusterId, spec }));
//   ... const machines = await bed.waitForMachines('workers', 3, 'Running');   (eventually() for anything else)
//   ... await bed.scaleMachineSet('workers', 1); await bed.waitForPhase('oob-1', 'Failed'); await bed.waitForScaleFromZero('workers');
//   ... await bed.restartManager();   // a controller restart mid-operation
//   after: await bed?.stop(); await emu?.stop();
import { MachineSets, Machines, Namespaces, Nodes, Secrets } from '../../lib/client/resources.js';
import { isNotFound } from '../../lib/client/errors.js';
import type { KubeClient } from '../../lib/client/kube-client.js';
import type { Machine, MachineSet } from '../../lib/apis/machine-types.js';
import type { Secret } from '../../lib/apis/core.js';
import type { Manager } from '../../lib/runtime/manager.js';
import type { MachineControllerOptions } from '../../lib/machine/controller.js';
import { addMachineSetController } from '../../lib/machineset/index.js';
import type { InstanceView } from './instance-view.js';
import { KubeletSimulator } from './kubelet-simulator.js';
import { startTestEnv, type TestEnv } from './test-env.js';
import type { ControlPlaneOptions } from '../apiserver/control-plane.js';

/** Machine-controller timings short enough for a test, long enough not to spin on two shared cores. */
export const FAST_MACHINE_CONTROLLER: MachineControllerOptions = {
  requeueAfterMs: 200,
  rateLimiter: { baseDelayMs: 10, maxDelayMs: 500 },
  drainRateLimiter: { baseDelayMs: 50, maxDelayMs: 500 },
  drain: { timeoutMs: 1_000, evictionRetryBaseMs: 50, evictionRetryMaxMs: 200, podPollIntervalMs: 50 },
};

/** What a provider's wiring returns: something to close once its manager stopped. */
export interface WiredProvider {
  close(): void | Promise<void>;
}

export interface ProviderTestBedOptions<P extends WiredProvider> {
  /** The namespace the Machines live in; created with `secrets`. */
  namespace: string;
  secrets?: Secret[];
  /** The emulator's instances, for the kubelet simulator to turn into Nodes. */
  instanceView: InstanceView;
  /** Registers the provider's controllers on a fresh manager (called again by restartManager). */
  wire: (mgr: Manager, client: KubeClient) => P;
  /** Default { syncPeriodMs: 60_000 }. */
  manager?: Parameters<TestEnv['newManager']>[0];
  /** Workers of the MachineSet controller; 0 leaves it out. Default 2. */
  machineSetWorkers?: number;
  /** Options of the local control plane (e.g. onRequest, to count what the controllers write). */
  controlPlane?: ControlPlaneOptions;
}

export interface ProviderTestBed<P extends WiredProvider> {
  env: TestEnv;
  kubelet: KubeletSimulator;
  /** The running manager and the provider wired on it (both replaced by restartManager). */
  readonly mgr: Manager;
  readonly provider: P;
  /** Stops the manager and closes the provider, then starts a fresh one, as a controller restart does. */
  restartManager(): Promise<void>;
  /** The Machines of a MachineSet (by the machineset label) in the bed's namespace. */
  machinesOf(set: string): Promise<Machine[]>;
  /** A Machine of the bed's namespace, or undefined once it is gone. */
  getMachine(name: string): Promise<Machine | undefined>;
  /** Whether the Node is gone (never true for an empty name). */
  nodeGone(name: string | undefined): Promise<boolean>;
  /** Waits until the MachineSet has exactly `count` Machines, all in `phase` when given. */
  waitForMachines(set: string, count: number, phase?: string): Promise<Machine[]>;
  /** Waits until the Machine reports `phase`. */
  waitForPhase(name: string, phase: string, what?: string): Promise<Machine>;
  /** Sets spec.replicas of a MachineSet. */
  scaleMachineSet(name: string, replicas: number): Promise<void>;
  /** Waits until the scale-from-zero controller annotated the MachineSet (machine.openshift.io/vCPU set). */
  waitForScaleFromZero(name: string, what?: string): Promise<MachineSet>;
  /** Stops the kubelet simulator, the manager (closing the provider) and the control plane. */
  stop(): Promise<void>;
}

/** How long and how often eventually() polls; `describe` adds the state seen last to a timeout's message. */
export interface EventuallyOptions {
  timeoutMs?: number;
  intervalMs?: number;
  describe?: () => string;
}

/**
 * Polls `probe` (every 25 ms, for up to 20 s by default) until it yields something other than
 * undefined/false; the last error explains a timeout. A number is the timeout.
 */
export async function eventually<T>(
  what: string,
  probe: () => Promise<T | undefined | false>,
  opts: number | EventuallyOptions = {},
): Promise<T> {
  const { timeoutMs = 20_000, intervalMs = 25, describe } = typeof opts === 'number' ? { timeoutMs: opts } : opts;
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await probe();
      if (v !== undefined && v !== false) return v;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline) {
      throw new Error(
        `timed out after ${timeoutMs} ms waiting for ${what}${describe ? ` (${describe()})` : ''}${last ? `: ${(last as Error).message}` : ''}`,
      );
    }
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}

/**
 * Waits until `count` Machines of the namespace (of MachineSet `set`, when given) exist, all in `phase` when
 * given; a timeout names the phases seen last.
 */
export async function waitForMachines(
  client: KubeClient,
  o: { namespace: string; count: number; set?: string; phase?: string; timeoutMs?: number; intervalMs?: number },
): Promise<Machine[]> {
  const what = `${o.count}${o.phase ? ` ${o.phase}` : ''} machine${o.count === 1 ? '' : 's'}${o.set ? ` of ${o.set}` : ` in ${o.namespace}`}`;
  let last: Machine[] = [];
  return eventually(
    what,
    async () => {
      last = (
        await client.list(Machines, {
          namespace: o.namespace,
          labelSelector: o.set ? `${MACHINESET_LABEL}=${o.set}` : undefined,
        })
      ).items;
      return last.length === o.count && (!o.phase || last.every((m) => m.status?.phase === o.phase)) ? last : undefined;
    },
    {
      timeoutMs: o.timeoutMs,
      intervalMs: o.intervalMs,
      describe: () => last.map((m) => m.status?.phase ?? '-').join(','),
    },
  );
}

const CLUSTER_LABEL = 'machine.openshift.io/cluster-api-cluster';
const MACHINESET_LABEL = 'machine.openshift.io/cluster-api-machineset';

/** A Machine of the cluster with this providerSpec value. */
export function machineFor(o: {
  name: string;
  namespace: string;
  clusterId: string;
  spec: Record<string, unknown>;
}): Machine {
  return {
    apiVersion: 'machine.openshift.io/v1beta1',
    kind: 'Machine',
    metadata: { name: o.name, namespace: o.namespace, labels: { [CLUSTER_LABEL]: o.clusterId } },
    spec: { providerSpec: { value: o.spec } },
  };
}

/** A MachineSet of the cluster whose template carries this providerSpec value. */
export function machineSetFor(o: {
  name: string;
  namespace: string;
  clusterId: string;
  replicas: number;
  spec: Record<string, unknown>;
}): MachineSet {
  return {
    apiVersion: 'machine.openshift.io/v1beta1',
    kind: 'MachineSet',
    metadata: { name: o.name, namespace: o.namespace, labels: { [CLUSTER_LABEL]: o.clusterId } },
    spec: {
      replicas: o.replicas,
      selector: { matchLabels: { [MACHINESET_LABEL]: o.name } },
      template: {
        metadata: { labels: { [MACHINESET_LABEL]: o.name, [CLUSTER_LABEL]: o.clusterId } },
        spec: { providerSpec: { value: o.spec } },
      },
    },
  };
}

export async function startProviderTestBed<P extends WiredProvider>(
  opts: ProviderTestBedOptions<P>,
): Promise<ProviderTestBed<P>> {
  const env = await startTestEnv({ controlPlane: opts.controlPlane });
  const { client } = env;
  const namespace = opts.namespace;
  let kubelet: KubeletSimulator | undefined;
  let mgr: Manager | undefined;
  let provider: P | undefined;
  let stopSignal: AbortController | undefined;
  let running: Promise<void> = Promise.resolve();

  const startManager = (): void => {
    mgr = env.newManager(opts.manager ?? { syncPeriodMs: 60_000 });
    provider = opts.wire(mgr, client);
    const workers = opts.machineSetWorkers ?? 2;
    if (workers > 0) addMachineSetController(mgr, { maxConcurrentReconciles: workers, coalesceMs: 100 });
    stopSignal = new AbortController();
    running = mgr.start(stopSignal.signal);
  };
  const stopManager = async (): Promise<void> => {
    stopSignal?.abort();
    await running.catch(() => undefined);
    await provider?.close();
  };

  try {
    await client.create(Namespaces, { metadata: { name: namespace } });
    for (const s of opts.secrets ?? [])
      await client.create(Secrets, { ...s, metadata: { ...s.metadata, namespace: s.metadata.namespace ?? namespace } });
    kubelet = new KubeletSimulator({ client, view: opts.instanceView });
    await kubelet.start();
    startManager();
  } catch (err) {
    await kubelet?.stop();
    await stopManager().catch(() => undefined);
    await env.stop();
    throw err;
  }
  const sim = kubelet;
  const machinesOf = async (set: string): Promise<Machine[]> =>
    (await client.list(Machines, { namespace, labelSelector: `${MACHINESET_LABEL}=${set}` })).items;
  const getMachine = async (name: string): Promise<Machine | undefined> => {
    try {
      return await client.get(Machines, { namespace, name });
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw err;
    }
  };

  return {
    env,
    kubelet: sim,
    get mgr() {
      return mgr as Manager;
    },
    get provider() {
      return provider as P;
    },
    async restartManager() {
      await stopManager();
      startManager();
    },
    machinesOf,
    getMachine,
    async nodeGone(name) {
      if (!name) return false;
      try {
        await client.get(Nodes, { name });
        return false;
      } catch (err) {
        return isNotFound(err);
      }
    },
    waitForMachines: (set, count, phase) => waitForMachines(client, { namespace, set, count, phase }),
    async waitForPhase(name, phase, what = `${name} ${phase}`) {
      return eventually(what, async () => {
        const m = await getMachine(name);
        return m?.status?.phase === phase ? m : undefined;
      });
    },
    async scaleMachineSet(name, replicas) {
      await client.patch(MachineSets, { namespace, name }, { type: 'merge', body: { spec: { replicas } } });
    },
    async waitForScaleFromZero(name, what = `${name} annotated`) {
      return eventually(what, async () => {
        const s = await client.get(MachineSets, { namespace, name });
        return s.metadata.annotations?.['machine.openshift.io/vCPU'] ? s : undefined;
      });
    },
    async stop() {
      await sim.stop();
      await stopManager().catch(() => undefined);
      await env.stop();
    },
  };
}
