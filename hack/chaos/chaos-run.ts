// One seeded chaos run: a random workload (scale up and down, Machine deletes, MachineHealthCheck
// remediations) under random faults, then faults stop, the system settles, and the invariants are checked.
import { join } from 'node:path';
import { MachineHealthChecks, MachineSets, isNotFound, type MachineSet } from '../../lib/index.js';
import { BENCH_NAMESPACE, startBenchEnvironment, type BenchEnvironment } from '../bench/environment.js';
import { awsBench, type BenchProvider } from '../bench/providers.js';
import { withCapacityFallback } from '../bench/stock-out.js';
import { machineSet } from '../bench/workload.js';
import { inProcessHost, processHost } from './controller-host.js';
import { faultName, faults } from './fault-injectors.js';
import {
  checkCreateCalls,
  checkDeposedLeaders,
  checkInvariants,
  observe,
  scanForSecrets,
  type Violation,
} from './invariants.js';
import { sampleRemediationsInFlight, type InFlightSampler } from './in-flight-sampler.js';
import { Prng } from './prng.js';
import type { StepContext } from './step-context.js';
import { RolloutMonitor } from './rollout-monitor.js';
import { DISTURBING_STEPS, ROLLING_ANNOTATIONS, ROLLING_SET, SCALED_DOWN, SETS, workload } from './workload-steps.js';

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
  /** How many times the rolling set's surge and availability bounds were checked as the controller acted. */
  rolloutChecks: { surge: number; availability: number };
  faultsInjected: Record<string, number>;
  actions: Record<string, number>;
  violations: Violation[];
  settledMs: number;
}

/** The set whose Machines register with the cloud's load balancer: the one with the most churn (remediation too). */
const LB_SET = 'chaos-a';

function addProviderSpecFields(set: MachineSet, fields: Record<string, unknown>): void {
  const ps = set.spec?.template?.spec?.providerSpec;
  if (ps) ps.value = { ...(ps.value as Record<string, unknown> | undefined), ...fields };
}

/** The chaos MachineHealthCheck remediates at most this many Machines at a time (an invariant checks it). */
const MHC_MAX_IN_FLIGHT = 2;

function mhc(clusterId: string) {
  return {
    apiVersion: 'machine.openshift.io/v1beta1',
    kind: 'MachineHealthCheck',
    metadata: {
      name: 'chaos-a',
      namespace: BENCH_NAMESPACE,
      annotations: { 'machine.openshift.io/max-in-flight': String(MHC_MAX_IN_FLIGHT) },
    },
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

export async function runChaos(o: ChaosOptions): Promise<ChaosRunResult> {
  const rng = new Prng(o.seed);
  const log = o.log ?? (() => {});
  const provider = o.provider ?? awsBench;
  const env = await startBenchEnvironment({
    stateDir: o.stateDir,
    bootDelayMs: 500,
    latencyMs: 5,
    seed: o.seed,
    provider,
  });
  const host = o.controllers === 'process' ? processHost(env, o.stateDir, o.compiledDir) : inProcessHost(env);
  const ctx: StepContext = {
    env,
    host,
    rng,
    maxReplicas: o.maxReplicas,
    failedAllowed: new Set(),
    notReadyNodes: new Set(),
    healing: [],
    capacityRefusals: 0,
    keyRevocations: 0,
    pausedControllers: new Set(),
    episodes: [],
    controlPlaneKill: o.controllers === 'process' ? { compiledDir: o.compiledDir } : undefined,
    log: (l) => log(`seed ${o.seed}: ${l}`),
  };
  const faultsInjected: Record<string, number> = {};
  const actions: Record<string, number> = {};
  // Created before any Machine, as the installer creates the cluster's load balancers.
  const balancer = env.emulator.addLoadBalancer();
  const lb = balancer && { machineSet: LB_SET, balancer };
  let sampler: InFlightSampler | undefined;
  const rollout = new RolloutMonitor(env, ROLLING_SET, o.seed);
  try {
    await host.start();
    rollout.start();
    for (const s of SETS) {
      const set = machineSet(s, rng.int(1, o.maxReplicas), provider);
      if (s === LB_SET && balancer) addProviderSpecFields(set, balancer.providerSpecFields);
      if (s === ROLLING_SET) set.metadata.annotations = { ...set.metadata.annotations, ...ROLLING_ANNOTATIONS };
      // The other set falls back to another instance type when its own is refused (capacity-refused).
      if (s !== LB_SET) withCapacityFallback(set, provider);
      await env.client.create(MachineSets, set);
    }
    await env.client.create(MachineHealthChecks, mhc(provider.clusterId) as never);
    sampler = sampleRemediationsInFlight(env, { seed: o.seed, mhcName: 'chaos-a', maxInFlight: MHC_MAX_IN_FLIGHT });

    const end = Date.now() + o.durationMs;
    while (Date.now() < end) {
      await new Promise((r) => setTimeout(r, o.tickMs));
      await host.reviveExited();
      const useFault = rng.chance(0.5);
      const [entry, , step] = rng.weighted((useFault ? faults : workload).map((e) => [e, e[1]] as const));
      const name =
        entry === 'capacity-refused'
          ? provider.capacityFault
          : entry.startsWith('cloud-')
            ? faultName(provider, entry.slice('cloud-'.length))
            : entry;
      // A fault may touch the rolling set whatever it names; a user's step only when it names that set.
      const disturbs = (detail?: string) =>
        DISTURBING_STEPS.has(entry) &&
        (useFault ||
          detail === undefined ||
          (detail.includes(ROLLING_SET) && (entry !== 'scale' || detail.endsWith(SCALED_DOWN))));
      if (useFault && disturbs()) rollout.disturbed();
      try {
        const detail = await step(ctx);
        if (disturbs(detail)) rollout.disturbed();
        if (entry === 'delete-machine' && detail) rollout.deletedByUser(detail);
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
    env.emulator.revokeKey(false);
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
    if (lb)
      log(
        `seed ${o.seed}: load balancer ${lb.balancer
          .memberships()
          .map((g) => `${g.group}=[${g.members.join(' ')}]`)
          .join(' ')}`,
      );
    if (violations.length > 0)
      violations.push({
        seed: o.seed,
        invariant: `every run converges within ${o.settleTimeoutMs / 1000} s of the faults stopping`,
        detail: `not converged after ${(settledMs / 1000).toFixed(1)} s`,
      });
    violations.push(...((await sampler?.stop()) ?? []));
    log(`seed ${o.seed}: at most ${sampler?.worst ?? 0} remediations in flight (max-in-flight ${MHC_MAX_IN_FLIGHT})`);
    rollout.stop();
    violations.push(...rollout.violations);
    log(
      `seed ${o.seed}: rollout bounds checked ${rollout.checks.surge} (surge) and ${rollout.checks.availability} (availability) times`,
    );
    violations.push(...checkDeposedLeaders(o.seed, ctx.episodes));
    violations.push(...checkCreateCalls(o.seed, createCalls(env), await machinesCreated(env)));
    violations.push(...(await scanForSecrets(o.seed, env, host.logs())));
    return { seed: o.seed, faultsInjected, actions, violations, settledMs, rolloutChecks: { ...rollout.checks } };
  } finally {
    await sampler?.stop();
    rollout.stop();
    await host.stop();
    await env.stop();
  }
}

/** Launch calls that reached the emulator, whatever their outcome. */
function createCalls(env: BenchEnvironment): number {
  return env.provider.createActions.reduce((n, a) => n + env.emulator.knobs.counters.get(a).total, 0);
}

/** Machine creations the API server saw (by any client). */
async function machinesCreated(env: BenchEnvironment): Promise<number> {
  let n = 0;
  for (const [key, count] of await env.requestCounts()) if (key.endsWith('|create machines')) n += count;
  return n;
}

export function chaosStateDir(root: string, seed: number): string {
  return join(root, `seed-${seed}`);
}
