// One seeded chaos run: a random workload (scale up and down, Machine deletes, MachineHealthCheck
// remediations) under random faults, then faults stop, the system settles, and the invariants are checked.
import { join } from 'node:path';
import { MachineHealthChecks, Machines, MachineSets, isNotFound, type Machine } from '../../lib/index.js';
import { BENCH_NAMESPACE, startBenchEnvironment, type BenchEnvironment } from '../bench/environment.js';
import { awsBench, type BenchProvider } from '../bench/providers.js';
import { liveInstances, machineSet, machineUidOf, MACHINESET_LABEL } from '../bench/workload.js';
import { inProcessHost, processHost, type ControllerHost } from './controller-host.js';
import { checkInvariants, observe, scanForSecrets, type Violation } from './invariants.js';
import { Prng } from './prng.js';

export interface ChaosOptions {
  seed: number;
  stateDir: string;
  /** 'process': the real binaries, crashed with SIGKILL; 'in-process': faster, for npm test. */
  controllers: 'process' | 'in-process';
  /** With 'process': the compiled binaries' directory; unset, the sources run through tsx. */
  compiledDir?: string;
  /** How long faults and workload go on. */
  durationMs: number;
  /** Time between steps. */
  tickMs: number;
  maxReplicas: number;
  /** How long the system gets to settle after the faults stop. */
  settleTimeoutMs: number;
  /** The cloud (default AWS). */
  provider?: BenchProvider;
  log?: (line: string) => void;
}

export interface ChaosRunResult {
  seed: number;
  faultsInjected: Record<string, number>;
  actions: Record<string, number>;
  violations: Violation[];
  settledMs: number;
}

const SETS = ['chaos-a', 'chaos-b'];

function mhc(clusterId: string) {
  return {
    apiVersion: 'machine.openshift.io/v1beta1',
    kind: 'MachineHealthCheck',
    metadata: { name: 'chaos-a', namespace: BENCH_NAMESPACE },
    spec: {
      selector: { matchLabels: { [MACHINESET_LABEL]: 'chaos-a', 'machine.openshift.io/cluster-api-cluster': clusterId } },
      unhealthyConditions: [{ type: 'Ready', status: 'False', timeout: '1s' }],
      maxUnhealthy: '100%',
    },
  };
}

type Step = (ctx: StepContext) => Promise<string | undefined>;

interface StepContext {
  env: BenchEnvironment;
  host: ControllerHost;
  rng: Prng;
  maxReplicas: number;
  failedAllowed: Set<string>;
  notReadyNodes: Set<string>;
}

const live = (ms: Machine[]) => ms.filter((m) => !m.metadata.deletionTimestamp);

async function machines(env: BenchEnvironment): Promise<Machine[]> {
  return (await env.client.list(Machines, { namespace: BENCH_NAMESPACE })).items;
}

const workload: Array<readonly [string, number, Step]> = [
  ['scale', 4, async ({ env, rng, maxReplicas }) => {
    const set = rng.pick(SETS) ?? 'chaos-a';
    const replicas = rng.int(0, maxReplicas);
    await env.client.patch(MachineSets, { namespace: BENCH_NAMESPACE, name: set }, { type: 'merge', body: { spec: { replicas } } });
    return `${set}=${replicas}`;
  }],
  ['delete-machine', 2, async ({ env, rng }) => {
    const m = rng.pick(live(await machines(env)));
    if (!m) return undefined;
    await env.client.delete(Machines, { namespace: BENCH_NAMESPACE, name: m.metadata.name ?? '' });
    return m.metadata.name;
  }],
  ['mhc-remediation', 2, async ({ env, rng, notReadyNodes }) => {
    const m = rng.pick(live(await machines(env)).filter((x) => x.status?.nodeRef?.name && x.metadata.labels?.[MACHINESET_LABEL] === 'chaos-a'));
    const node = m?.status?.nodeRef?.name;
    if (!node) return undefined;
    notReadyNodes.add(node);
    await env.kubelet.setNodeReady(node, 'False');
    return node;
  }],
];

/** Fault names keep EC2's wording for AWS; other clouds' carry their own prefix (gce-5xx, vpc-5xx). */
const faultName = (p: BenchProvider, fault: string) => (p.name === 'aws' ? `ec2-${fault}` : `${p.metricPrefix}-${fault}`);

const faults: Array<readonly [string, number, Step]> = [
  ['controller-crash', 3, async ({ host, rng }) => {
    const name = rng.pick(host.names) ?? '';
    await host.crashAndRestart(name);
    return name;
  }],
  ['watches-dropped', 2, ({ env }) => {
    env.controlPlane.dropWatches();
    return Promise.resolve('');
  }],
  ['history-compacted-410', 2, ({ env }) => {
    env.controlPlane.compactHistory();
    env.controlPlane.expireWatches();
    return Promise.resolve('');
  }],
  ['cloud-throttling', 2, ({ env, rng }) => {
    const n = rng.int(1, 6);
    env.emulator.knobs.throttleNext('*', n);
    return Promise.resolve(`${n} calls`);
  }],
  ['cloud-5xx', 2, ({ env, rng }) => {
    const p = env.provider;
    const action = rng.pick([...p.createActions, p.deleteAction, ...p.describeActions.slice(0, 1), '*']) ?? '*';
    env.emulator.knobs.failNext(action, rng.int(1, 3));
    return Promise.resolve(action);
  }],
  ['cloud-lost-reply', 2, ({ env, rng }) => {
    const p = env.provider;
    const action = rng.pick([...p.createActions, p.deleteAction]) ?? p.deleteAction;
    env.emulator.knobs.loseNextReplies(action, 1, rng.chance(0.5) ? 'drop-connection' : 'server-error');
    return Promise.resolve(action);
  }],
  ['cloud-eventual-consistency', 1, ({ env, rng }) => {
    const ms = rng.int(500, 3_000);
    env.emulator.knobs.setVisibilityDelay(ms);
    return Promise.resolve(`${ms} ms`);
  }],
  ['out-of-band-termination', 1, async ({ env, rng, failedAllowed }) => {
    const running = live(await machines(env)).filter((m) => m.status?.phase === 'Running');
    const m = rng.pick(running);
    if (!m) return undefined;
    const inst = liveInstances(env.emulator).find((i) => machineUidOf(i) === m.metadata.uid);
    if (!inst) return undefined;
    failedAllowed.add(m.metadata.uid ?? '');
    env.emulator.terminateOutOfBand(inst.instanceId);
    return `${m.metadata.name ?? ''} ${inst.instanceId}`;
  }],
  ['control-plane-restart', 1, async ({ env }) => {
    await env.restartControlPlane();
    return '';
  }],
];

export async function runChaos(o: ChaosOptions): Promise<ChaosRunResult> {
  const rng = new Prng(o.seed);
  const log = o.log ?? (() => {});
  const provider = o.provider ?? awsBench;
  const env = await startBenchEnvironment({ stateDir: o.stateDir, bootDelayMs: 500, latencyMs: 5, seed: o.seed, provider });
  const host = o.controllers === 'process' ? processHost(env, o.stateDir, o.compiledDir) : inProcessHost(env);
  const ctx: StepContext = { env, host, rng, maxReplicas: o.maxReplicas, failedAllowed: new Set(), notReadyNodes: new Set() };
  const faultsInjected: Record<string, number> = {};
  const actions: Record<string, number> = {};
  try {
    await host.start();
    for (const s of SETS) await env.client.create(MachineSets, machineSet(s, rng.int(1, o.maxReplicas), provider));
    await env.client.create(MachineHealthChecks, mhc(provider.clusterId) as never);

    const end = Date.now() + o.durationMs;
    while (Date.now() < end) {
      await new Promise((r) => setTimeout(r, o.tickMs));
      const useFault = rng.chance(0.5);
      const [entry, , step] = rng.weighted((useFault ? faults : workload).map((e) => [e, e[1]] as const));
      const name = entry.startsWith('cloud-') ? faultName(provider, entry.slice('cloud-'.length)) : entry;
      try {
        const detail = await step(ctx);
        if (detail === undefined) continue;
        const tally = useFault ? faultsInjected : actions;
        tally[name] = (tally[name] ?? 0) + 1;
        log(`seed ${o.seed}: ${useFault ? 'fault' : 'action'} ${name} ${detail}`);
      } catch (err) {
        // A step can race a fault (e.g. the control plane is restarting); the schedule goes on.
        if (!isNotFound(err)) log(`seed ${o.seed}: ${name} failed: ${(err as Error).message}`);
      }
    }

    // Faults stop: no more injected errors, nodes healthy again, every controller running.
    env.emulator.knobs.reset();
    for (const n of ctx.notReadyNodes) await env.kubelet.setNodeReady(n, undefined).catch(() => undefined);
    const settleStart = Date.now();
    let violations: Violation[] = [];
    for (;;) {
      await env.kubelet.resync().catch(() => undefined);
      try {
        violations = checkInvariants(o.seed, await observe(env), ctx.failedAllowed);
      } catch (err) {
        violations = [{ seed: o.seed, invariant: 'the API answers after faults stop', detail: (err as Error).message }];
      }
      if (violations.length === 0 || Date.now() - settleStart > o.settleTimeoutMs) break;
      await new Promise((r) => setTimeout(r, 500));
    }
    const settledMs = Date.now() - settleStart;
    violations.push(...(await scanForSecrets(o.seed, env, host.logs())));
    return { seed: o.seed, faultsInjected, actions, violations, settledMs };
  } finally {
    await host.stop();
    await env.stop();
  }
}

export function chaosStateDir(root: string, seed: number): string {
  return join(root, `seed-${seed}`);
}
