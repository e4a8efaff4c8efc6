// The chaos fault injectors, each weighted: controller crashes and paused leaders, dropped watches and
// compacted history, cloud throttling, errors, lost replies and lag, out-of-band terminations, control-plane
// restarts and kills, refused capacity, a deleted credentials Secret and a Node that never registers.
import { Secrets } from '../../lib/index.js';
import { BENCH_NAMESPACE } from '../bench/environment.js';
import type { BenchProvider } from '../bench/providers.js';
import { liveInstances, machineUidOf } from '../bench/workload.js';
import { LEASE_DURATION_MS } from './controller-host.js';
import { live, machines, sleep, type Step, type StepContext } from './step-context.js';

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

/** Fault names keep EC2's wording for AWS; other clouds' carry their own prefix (gce-5xx, vpc-5xx). */
export const faultName = (p: BenchProvider, fault: string) =>
  p.name === 'aws' ? `ec2-${fault}` : `${p.metricPrefix}-${fault}`;

export const faults: Array<readonly [string, number, Step]> = [
  [
    'controller-crash',
    3,
    async ({ host, rng }) => {
      const name = rng.pick(host.names) ?? '';
      await host.crashAndRestart(name);
      return name;
    },
  ],
  [
    'watches-dropped',
    2,
    ({ env }) => {
      env.controlPlane.dropWatches();
      return Promise.resolve('');
    },
  ],
  [
    'history-compacted-410',
    2,
    ({ env }) => {
      env.controlPlane.compactHistory();
      env.controlPlane.expireWatches();
      return Promise.resolve('');
    },
  ],
  [
    'cloud-throttling',
    2,
    ({ env, rng }) => {
      const n = rng.int(1, 6);
      env.emulator.knobs.throttleNext('*', n);
      return Promise.resolve(`${n} calls`);
    },
  ],
  [
    'cloud-5xx',
    2,
    ({ env, rng }) => {
      const p = env.provider;
      const action = rng.pick([...p.createActions, p.deleteAction, ...p.describeActions.slice(0, 1), '*']) ?? '*';
      env.emulator.knobs.failNext(action, rng.int(1, 3));
      return Promise.resolve(action);
    },
  ],
  [
    'cloud-lost-reply',
    2,
    ({ env, rng }) => {
      const p = env.provider;
      const action = rng.pick([...p.createActions, p.deleteAction]) ?? p.deleteAction;
      env.emulator.knobs.loseNextReplies(action, 1, rng.chance(0.5) ? 'drop-connection' : 'server-error');
      return Promise.resolve(action);
    },
  ],
  [
    'cloud-eventual-consistency',
    1,
    ({ env, rng }) => {
      const ms = rng.int(500, 3_000);
      env.emulator.knobs.setVisibilityDelay(ms);
      return Promise.resolve(`${ms} ms`);
    },
  ],
  [
    'out-of-band-termination',
    1,
    async ({ env, rng, failedAllowed }) => {
      const running = live(await machines(env)).filter((m) => m.status?.phase === 'Running');
      const m = rng.pick(running);
      if (!m) return undefined;
      // EC2 instances carry the Machine's uid as a tag; GCE and VPC instances are named after their Machine.
      const inst = liveInstances(env.emulator).find(
        (i) => machineUidOf(i) === m.metadata.uid || (i.machineName !== undefined && i.machineName === m.metadata.name),
      );
      if (!inst) return undefined;
      failedAllowed.add(m.metadata.uid ?? '');
      env.emulator.terminateOutOfBand(inst.instanceId);
      return `${m.metadata.name ?? ''} ${inst.instanceId}`;
    },
  ],
  [
    // A zone or a network blinks: several instances at once, as the max-in-flight MachineHealthCheck must pace.
    'out-of-band-termination-many',
    1,
    async ({ env, rng, failedAllowed }) => {
      const running = live(await machines(env)).filter((m) => m.status?.phase === 'Running');
      const chosen = rng.shuffle(running).slice(0, rng.int(2, 4));
      const done: string[] = [];
      for (const m of chosen) {
        const inst = liveInstances(env.emulator).find(
          (i) =>
            machineUidOf(i) === m.metadata.uid || (i.machineName !== undefined && i.machineName === m.metadata.name),
        );
        if (!inst) continue;
        failedAllowed.add(m.metadata.uid ?? '');
        env.emulator.terminateOutOfBand(inst.instanceId);
        done.push(`${m.metadata.name ?? ''} ${inst.instanceId}`);
      }
      return done.length > 0 ? done.join(', ') : undefined;
    },
  ],
  [
    'nodes-never-register',
    1,
    ({ env, rng }) => {
      const n = rng.int(2, 4);
      for (let i = 0; i < n; i++) env.nextNodeNeverRegisters();
      return Promise.resolve(`next ${n} instances`);
    },
  ],
  [
    'control-plane-restart',
    1,
    async ({ env }) => {
      await env.restartControlPlane();
      return '';
    },
  ],
  [
    'control-plane-kill',
    1,
    async ({ env, rng, controlPlaneKill }) => {
      if (!controlPlaneKill) return undefined;
      // Killed while the controllers write: serving long enough for them to reconnect and act first.
      const ms = rng.int(1_000, 4_000);
      await env.killControlPlane(ms, controlPlaneKill.compiledDir);
      return `SIGKILL after ${ms} ms of serving`;
    },
  ],
  ['capacity-refused', 2, (ctx) => cloudEpisode(ctx, 'capacityRefusals', (on) => ctx.env.emulator.refuseLaunches(on))],
  ['cloud-key-revoked', 1, (ctx) => cloudEpisode(ctx, 'keyRevocations', (on) => ctx.env.emulator.revokeKey(on))],
  [
    'credentials-secret-deleted',
    1,
    async ({ env, rng, healing }) => {
      const name = env.provider.secrets(BENCH_NAMESPACE)[0]?.metadata.name ?? '';
      await env.client.delete(Secrets, { namespace: BENCH_NAMESPACE, name });
      const ms = rng.int(1_000, 4_000);
      healing.push(sleep(ms).then(() => healUntilAccepted(() => env.restoreSecrets())));
      return `${name} for ${ms} ms`;
    },
  ],
  [
    'node-never-registers',
    2,
    ({ env }) => {
      // The MachineHealthCheck watches both sets, so whichever Machine it is gets replaced (nodeStartupTimeout).
      env.nextNodeNeverRegisters();
      return Promise.resolve('next instance');
    },
  ],
  [
    'leader-paused-past-lease',
    2,
    ({ host, rng, healing, pausedControllers, episodes, log }) => {
      const name = rng.pick(host.names.filter((n) => !pausedControllers.has(n)));
      if (!host.pauseLeader || !name) return Promise.resolve(undefined);
      const ms = LEASE_DURATION_MS + rng.int(4_000, 8_000);
      pausedControllers.add(name);
      healing.push(
        host.pauseLeader(name, ms).then((e) => {
          pausedControllers.delete(name);
          if (!e) return;
          episodes.push(e);
          log(`${e.replica} resumed: lease holder ${e.leaseHolderAtPause} -> ${e.leaseHolderAtResume}`);
        }),
      );
      return Promise.resolve(`${name} for ${ms} ms`);
    },
  ],
];

/**
 * Puts a cloud condition in force for 1–4 s; `counter` counts the episodes in force, so overlapping ones keep
 * it until the last ends.
 */
function cloudEpisode(
  ctx: StepContext,
  counter: 'capacityRefusals' | 'keyRevocations',
  set: (on: boolean) => void,
): Promise<string> {
  const ms = ctx.rng.int(1_000, 4_000);
  ctx[counter]++;
  set(true);
  ctx.healing.push(
    sleep(ms).then(() => {
      if (--ctx[counter] === 0) set(false);
    }),
  );
  return Promise.resolve(`${ms} ms`);
}
