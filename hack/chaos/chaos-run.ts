// One seeded chaos run: a random workload (scale up and down, Machine deletes, MachineHealthCheck
// remediations) under random faults, then faults stop, the system settles, and the invariants are checked.
import { join } from 'node:path';
import { MachineHealthChecks, Machines, MachineSets, Secrets, isNotFound, type Machine, type MachineSet } from '../../lib/index.js';
import { BENCH_NAMESPACE, startBenchEnvironment, type BenchEnvironment } from '../bench/environment.js';
import { awsBench, type BenchProvider } from '../bench/providers.js';
import { liveInstances, machineSet, machineUidOf, MACHINESET_LABEL } from '../bench/workload.js';
import { inProcessHost, LEASE_DURATION_MS, processHost, type ControllerHost, type PauseEpisode } from './controller-host.js';
import { checkCreateCalls, checkDeposedLeaders, checkInvariants, observe, scanForSecrets, type Violation } from './invariants.js';
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
/** The set whose Machines register with the cloud's load balancer: the one with the most churn (remediation too). */
const LB_SET = 'chaos-a';

function addProviderSpecFields(set: MachineSet, fields: Record<string, unknown>): void {
  const ps = set.spec?.template?.spec?.providerSpec;
  if (ps) ps.value = { ...(ps.value as Record<string, unknown> | undefined), ...fields };
}

function mhc(clusterId: string) {
  return {
    apiVersion: 'machine.openshift.io/v1beta1',
    kind: 'MachineHealthCheck',
    metadata: { name: 'chaos-a', namespace: BENCH_NAMESPACE },
    spec: {
      // Every chaos Machine: NotReady remediation is only ever injected into chaos-a, but a Node that never
      // registers can be any set's.
      selector: { matchLabels: { 'machine.openshift.io/cluster-api-cluster': clusterId } },
      unhealthyConditions: [{ type: 'Ready', status: 'False', timeout: '1s' }],
      maxUnhealthy: '100%',
      // A Machine whose Node never registers is replaced once this passes.
      nodeStartupTimeout: '15s',
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
  /** Faults that end by themselves later (capacity back, Secret restored, paused leader resumed). */
  healing: Promise<unknown>[];
  /** Launch refusals in force; launches are allowed again when the last one ends. */
  capacityRefusals: number;
  /** Controllers with a paused leader now (one pause per controller at a time). */
  pausedControllers: Set<string>;
  episodes: PauseEpisode[];
  /**
   * Whether the control plane may be SIGKILLed (the real-binaries mode: it runs machine-api-envtest as a
   * child process for the fault, compiled from compiledDir when set).
   */
  controlPlaneKill?: { compiledDir?: string };
  log: (line: string) => void;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Repeats a healing step until the control plane takes it: a kill fault may have it down or restarting at
 * that moment, and a heal that gives up would leave the run broken (or, unawaited, end the whole process).
 */
async function healUntilAccepted(step: () => Promise<unknown>, timeoutMs = 120_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      await step();
      return;
    } catch (err) {
      if (Date.now() > deadline) throw err;
      await sleep(500);
    }
  }
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
    // EC2 instances carry the Machine's uid as a tag; GCE and VPC instances are named after their Machine.
    const inst = liveInstances(env.emulator).find((i) => machineUidOf(i) === m.metadata.uid || (i.machineName !== undefined && i.machineName === m.metadata.name));
    if (!inst) return undefined;
    failedAllowed.add(m.metadata.uid ?? '');
    env.emulator.terminateOutOfBand(inst.instanceId);
    return `${m.metadata.name ?? ''} ${inst.instanceId}`;
  }],
  ['control-plane-restart', 1, async ({ env }) => {
    await env.restartControlPlane();
    return '';
  }],
  ['control-plane-kill', 1, async ({ env, rng, controlPlaneKill }) => {
    if (!controlPlaneKill) return undefined;
    // Killed while the controllers write: serving long enough for them to reconnect and act first.
    const ms = rng.int(1_000, 4_000);
    await env.killControlPlane(ms, controlPlaneKill.compiledDir);
    return `SIGKILL after ${ms} ms of serving`;
  }],
  ['capacity-refused', 2, (ctx) => {
    const ms = ctx.rng.int(1_000, 4_000);
    ctx.capacityRefusals++;
    ctx.env.emulator.refuseLaunches(true);
    ctx.healing.push(sleep(ms).then(() => {
      if (--ctx.capacityRefusals === 0) ctx.env.emulator.refuseLaunches(false);
    }));
    return Promise.resolve(`${ms} ms`);
  }],
  ['credentials-secret-deleted', 1, async ({ env, rng, healing }) => {
    const name = env.provider.secrets(BENCH_NAMESPACE)[0]?.metadata.name ?? '';
    await env.client.delete(Secrets, { namespace: BENCH_NAMESPACE, name });
    const ms = rng.int(1_000, 4_000);
    healing.push(sleep(ms).then(() => healUntilAccepted(() => env.restoreSecrets())));
    return `${name} for ${ms} ms`;
  }],
  ['node-never-registers', 2, ({ env }) => {
    // The MachineHealthCheck watches both sets, so whichever Machine it is gets replaced (nodeStartupTimeout).
    env.nextNodeNeverRegisters();
    return Promise.resolve('next instance');
  }],
  ['leader-paused-past-lease', 2, ({ host, rng, healing, pausedControllers, episodes, log }) => {
    const name = rng.pick(host.names.filter((n) => !pausedControllers.has(n)));
    if (!host.pauseLeader || !name) return Promise.resolve(undefined);
    const ms = LEASE_DURATION_MS + rng.int(4_000, 8_000);
    pausedControllers.add(name);
    healing.push(host.pauseLeader(name, ms).then((e) => {
      pausedControllers.delete(name);
      if (!e) return;
      episodes.push(e);
      log(`${e.replica} resumed: lease holder ${e.leaseHolderAtPause} -> ${e.leaseHolderAtResume}`);
    }));
    return Promise.resolve(`${name} for ${ms} ms`);
  }],
];

export async function runChaos(o: ChaosOptions): Promise<ChaosRunResult> {
  const rng = new Prng(o.seed);
  const log = o.log ?? (() => {});
  const provider = o.provider ?? awsBench;
  const env = await startBenchEnvironment({ stateDir: o.stateDir, bootDelayMs: 500, latencyMs: 5, seed: o.seed, provider });
  const host = o.controllers === 'process' ? processHost(env, o.stateDir, o.compiledDir) : inProcessHost(env);
  const ctx: StepContext = {
    env, host, rng, maxReplicas: o.maxReplicas, failedAllowed: new Set(), notReadyNodes: new Set(),
    healing: [], capacityRefusals: 0, pausedControllers: new Set(), episodes: [],
    controlPlaneKill: o.controllers === 'process' ? { compiledDir: o.compiledDir } : undefined, log: (l) => log(`seed ${o.seed}: ${l}`),
  };
  const faultsInjected: Record<string, number> = {};
  const actions: Record<string, number> = {};
  // Created before any Machine, as the installer creates the cluster's load balancers.
  const balancer = env.emulator.addLoadBalancer();
  const lb = balancer && { machineSet: LB_SET, balancer };
  try {
    await host.start();
    for (const s of SETS) {
      const set = machineSet(s, rng.int(1, o.maxReplicas), provider);
      if (s === LB_SET && balancer) addProviderSpecFields(set, balancer.providerSpecFields);
      await env.client.create(MachineSets, set);
    }
    await env.client.create(MachineHealthChecks, mhc(provider.clusterId) as never);

    const end = Date.now() + o.durationMs;
    while (Date.now() < end) {
      await new Promise((r) => setTimeout(r, o.tickMs));
      await host.reviveExited();
      const useFault = rng.chance(0.5);
      const [entry, , step] = rng.weighted((useFault ? faults : workload).map((e) => [e, e[1]] as const));
      const name = entry === 'capacity-refused' ? provider.capacityFault : entry.startsWith('cloud-') ? faultName(provider, entry.slice('cloud-'.length)) : entry;
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

    // Faults stop: what heals by itself is let heal (paused leaders resume), then no more injected errors,
    // launches allowed, Secrets back, nodes healthy again, every controller running.
    await Promise.all(ctx.healing);
    env.emulator.knobs.reset();
    env.emulator.refuseLaunches(false);
    await env.restoreSecrets();
    for (const n of ctx.notReadyNodes) await env.kubelet.setNodeReady(n, undefined).catch(() => undefined);
    const settleStart = Date.now();
    let violations: Violation[] = [];
    for (;;) {
      await host.reviveExited();
      await env.kubelet.resync().catch(() => undefined);
      try {
        violations = checkInvariants(o.seed, await observe(env, lb), ctx.failedAllowed);
      } catch (err) {
        violations = [{ seed: o.seed, invariant: 'the API answers after faults stop', detail: (err as Error).message }];
      }
      if (violations.length === 0 || Date.now() - settleStart > o.settleTimeoutMs) break;
      await new Promise((r) => setTimeout(r, 500));
    }
    const settledMs = Date.now() - settleStart;
    if (lb) log(`seed ${o.seed}: load balancer ${lb.balancer.memberships().map((g) => `${g.group}=[${g.members.join(' ')}]`).join(' ')}`);
    if (violations.length > 0) violations.push({ seed: o.seed, invariant: `every run converges within ${o.settleTimeoutMs / 1000} s of the faults stopping`, detail: `not converged after ${(settledMs / 1000).toFixed(1)} s` });
    violations.push(...checkDeposedLeaders(o.seed, ctx.episodes));
    violations.push(...checkCreateCalls(o.seed, createCalls(env), machinesCreated(env)));
    violations.push(...(await scanForSecrets(o.seed, env, host.logs())));
    return { seed: o.seed, faultsInjected, actions, violations, settledMs };
  } finally {
    await host.stop();
    await env.stop();
  }
}

/** Launch calls that reached the emulator, whatever their outcome. */
function createCalls(env: BenchEnvironment): number {
  return env.provider.createActions.reduce((n, a) => n + env.emulator.knobs.counters.get(a).total, 0);
}

/** Machine creations the API server saw (by any client). */
function machinesCreated(env: BenchEnvironment): number {
  let n = 0;
  for (const [key, count] of env.requestCounts()) if (key.endsWith('|create machines')) n += count;
  return n;
}

export function chaosStateDir(root: string, seed: number): string {
  return join(root, `seed-${seed}`);
}
