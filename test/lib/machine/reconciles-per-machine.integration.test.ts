// The work each Machine costs the machine, drain and NodeLink controllers, counted (reconciles, cloud calls,
// Kubernetes writes), not timed: it must be the same per Machine in a cluster of 20 as in one of 200, and in steady
// state a resync costs each controller at most one reconcile per Machine and writes nothing.
import { expect } from 'chai';
import type { Registry } from 'prom-client';
import { MachineClusterIDLabel, NodeMachineAnnotation } from '../../../lib/apis/constants.js';
import type { Machine } from '../../../lib/apis/machine-types.js';
import type { KubeObject } from '../../../lib/apis/meta.js';
import type { KubeClient } from '../../../lib/client/kube-client.js';
import { Machines, Namespaces, Nodes } from '../../../lib/client/resources.js';
import {
  addMachineController,
  MachineControllerName,
  MachineDrainControllerName,
} from '../../../lib/machine/controller.js';
import { addNodeLinkController, NodeLinkControllerName } from '../../../lib/nodelink/controller.js';
import type { Manager } from '../../../lib/runtime/manager.js';
import { RealClock } from '../../../lib/base/real-clock.js';
import { FakeActuator, FakeThrottlingError } from '../../../sim/kit/fake-actuator.js';
import type { Actuator, ActuatorContext } from '../../../lib/machine/actuator.js';
import { RegionalRateLimiter, type ActionClass, type CloudRateLimits } from '../../../lib/cloud/rate-limiter.js';
import { TokenBucket } from '../../../lib/base/token-bucket.js';
import { KubeletSimulator } from '../../../sim/kit/kubelet-simulator.js';
import { eventually } from '../../../sim/kit/provider-test-bed.js';
import { startTestEnv, type TestEnv } from '../../../sim/kit/test-env.js';

const NS = 'openshift-machine-api';
const Controllers = [MachineControllerName, MachineDrainControllerName, NodeLinkControllerName] as const;
type Counts = Record<(typeof Controllers)[number], number>;

/**
 * A cloud that meters its API as EC2 does (a bucket per class of calls, a refusal once one is empty) behind the
 * provider's own request limiter, shared by every worker and adapting to the refusals, as a provider's SDK
 * middleware puts it: a scale-up faster than the cloud's rate meets the limiter's waits and deferred launches.
 */
class MeteredActuator implements Actuator {
  private readonly limiter: RegionalRateLimiter;
  private readonly cloud: Record<ActionClass, TokenBucket>;
  throttledReplies = 0;

  constructor(
    private readonly inner: FakeActuator,
    client: CloudRateLimits,
    cloud: CloudRateLimits,
  ) {
    const clock = new RealClock();
    this.limiter = new RegionalRateLimiter(client, clock);
    this.cloud = {
      describe: new TokenBucket(cloud.describe.qps, cloud.describe.burst, clock),
      mutate: new TokenBucket(cloud.mutate.qps, cloud.mutate.burst, clock),
    };
  }

  create = (m: Machine, ctx: ActuatorContext) => this.call('mutate', ctx, () => this.inner.create(m, ctx));
  /** As a provider's cloud actuator answers it: a Machine with no instance yet waits for its launch's turn. */
  launchTurnInMs = (m: Machine, deferBeyondMs: number) =>
    m.spec?.providerID || !m.metadata.uid
      ? undefined
      : this.limiter.turnIn('fake-region-1', 'mutate', m.metadata.uid, deferBeyondMs);
  exists = (m: Machine, ctx: ActuatorContext) => this.call('describe', ctx, () => this.inner.exists(m, ctx));
  update = (m: Machine, ctx: ActuatorContext) => this.call('describe', ctx, () => this.inner.update(m, ctx));
  delete = (m: Machine, ctx: ActuatorContext) => this.call('mutate', ctx, () => this.inner.delete(m, ctx));

  /** Up to three attempts, each through the limiter, as the providers' SDKs retry a throttled call. */
  private async call<T>(cls: ActionClass, ctx: ActuatorContext, fn: () => Promise<T>): Promise<T> {
    const attempt = () =>
      this.limiter.send(
        'fake-region-1',
        cls,
        () => {
          if (this.cloud[cls].available() < 1) {
            this.throttledReplies++;
            return Promise.reject(new FakeThrottlingError(cls));
          }
          this.cloud[cls].reserve();
          return fn();
        },
        { signal: ctx.signal, isThrottling: (err) => err instanceof FakeThrottlingError },
      );
    for (let tries = 1; ; tries++) {
      try {
        return await attempt();
      } catch (err) {
        if (!(err instanceof FakeThrottlingError) || tries === 3) throw err;
      }
    }
  }
}

/**
 * Reconciles per Machine in a scale-up, without resyncs (the benchmark's scale-ups, which span several of its
 * short resync periods, hold each controller to its targets: machine controller 6, NodeLink 3, drain 0).
 * The machine controller: one pass that adds the finalizer, launches and records the instance (Provisioned),
 * and one when NodeLink's nodeRef arrives (Running); the echoes of its own writes cost nothing. NodeLink: the
 * Node's registration (the link) and its turning Ready; a reconcile handed a copy older than its own write waits
 * for the cache rather than coming back. A little over 2 when a cache lags on a loaded machine.
 */
const ScaleUpTargets: Counts = {
  [MachineControllerName]: 3,
  [MachineDrainControllerName]: 0,
  [NodeLinkControllerName]: 2.5,
};
/**
 * Against a rate-limited cloud, the benchmark's targets: launches deferred to their turn cost the machine
 * controller a reconcile each, and a Machine whose follow-up read the cloud refused records its addresses only
 * on its Running pass, which NodeLink looks at once more.
 */
const ThrottledTargets: Counts = {
  [MachineControllerName]: 6,
  [MachineDrainControllerName]: 0,
  [NodeLinkControllerName]: 3,
};
const SameAtEverySize = Controllers;

const WriteVerbs = new Set(['create', 'update', 'updateStatus', 'patch', 'delete', 'evict']);

/** A client that counts the writes made through it. */
function countingWrites(client: KubeClient): { client: KubeClient; writes: () => number } {
  let writes = 0;
  const counted = new Proxy(client, {
    get(target, prop, receiver) {
      const v = Reflect.get(target, prop, receiver) as unknown;
      if (typeof v !== 'function') return v;
      return (...args: unknown[]) => {
        if (WriteVerbs.has(String(prop))) writes++;
        return (v as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
  return { client: counted, writes: () => writes };
}

async function reconciles(metrics: Registry): Promise<Counts> {
  const metric = metrics.getSingleMetric('controller_runtime_reconcile_total');
  const out: Counts = { [MachineControllerName]: 0, [MachineDrainControllerName]: 0, [NodeLinkControllerName]: 0 };
  for (const v of (await metric?.get())?.values ?? []) {
    const c = v.labels.controller as keyof Counts;
    if (c in out) out[c] += v.value;
  }
  return out;
}

/** Waits until no controller has work queued or running, several polls in a row. */
async function settled(metrics: Registry): Promise<void> {
  let quiet = 0;
  await eventually(
    'controllers idle',
    async () => {
      let busy = 0;
      for (const name of ['workqueue_depth', 'controller_runtime_active_workers']) {
        for (const v of (await metrics.getSingleMetric(name)?.get())?.values ?? []) busy += v.value;
      }
      quiet = busy === 0 ? quiet + 1 : 0;
      return quiet >= 6;
    },
    { timeoutMs: 60_000, intervalMs: 50 },
  );
}

const newMachine = (name: string): Machine => ({
  apiVersion: 'machine.openshift.io/v1beta1',
  kind: 'Machine',
  metadata: { name, namespace: NS, labels: { [MachineClusterIDLabel]: 'test-cluster' } },
  spec: {
    metadata: { labels: { 'node-role.kubernetes.io/worker': '' } },
    providerSpec: { value: { instanceType: 'fake.large' } },
  },
});

interface Stack {
  env: TestEnv;
  mgr: Manager;
  actuator: FakeActuator;
  writes: () => number;
  /** Resync rounds the Machines' and the Nodes' informers have each handed out so far (the fewer of the two). */
  resyncs: () => number;
  stop(): Promise<void>;
}

async function startStack(syncPeriodMs: number, meter?: (fake: FakeActuator) => Actuator): Promise<Stack> {
  const env = await startTestEnv();
  await env.client.create(Namespaces, { metadata: { name: NS } });
  // As on a cloud, an instance boots for a while before its kubelet registers the Node.
  const actuator = new FakeActuator({ clock: new RealClock(), bootDelayMs: 300 });
  const kubelet = new KubeletSimulator({ client: env.client, view: actuator, heartbeatMs: 0 });
  const { client, writes } = countingWrites(env.newClient());
  const mgr = env.newManager({ client, syncPeriodMs });
  addMachineController(mgr, meter ? meter(actuator) : actuator);
  addNodeLinkController(mgr);
  // A resync hands every cached object to 'update' as both its old and new state.
  const rounds = { machines: 0, nodes: 0 };
  const countResyncs = (kind: keyof typeof rounds) => (obj: KubeObject, old?: KubeObject) => {
    if (obj === old) rounds[kind]++;
  };
  mgr.informer(Machines).on('update', countResyncs('machines'));
  mgr.informer(Nodes).on('update', countResyncs('nodes'));
  const stop = new AbortController();
  const running = mgr.start(stop.signal);
  await kubelet.start();
  return {
    env,
    mgr,
    actuator,
    writes,
    resyncs: () => {
      const machines = mgr.informer(Machines).list().length;
      const nodes = mgr.informer(Nodes).list().length;
      return Math.min(machines ? rounds.machines / machines : 0, nodes ? rounds.nodes / nodes : 0);
    },
    async stop() {
      await kubelet.stop();
      stop.abort();
      await running.catch(() => undefined);
      await env.stop();
    },
  };
}

/** Creates n Machines at once and waits until each is Running on a Node NodeLink has linked and labelled. */
async function scaleUp(stack: Stack, n: number): Promise<void> {
  const { client } = stack.env;
  const names = Array.from({ length: n }, (_, i) => `worker-${i}`);
  await Promise.all(names.map((name) => client.create(Machines, newMachine(name))));
  await eventually(
    `${n} machines Running with linked, labelled nodes`,
    async () => {
      const machines = (await client.list(Machines, { namespace: NS })).items;
      const nodes = (await client.list(Nodes)).items;
      const linked = nodes.filter(
        (node) =>
          node.metadata.annotations?.[NodeMachineAnnotation] &&
          node.metadata.labels?.['node-role.kubernetes.io/worker'] === '',
      );
      return (
        machines.length === n &&
        machines.every((m) => m.status?.phase === 'Running' && m.status.nodeRef?.name) &&
        linked.length === n
      );
    },
    { timeoutMs: 120_000, intervalMs: 200 },
  );
  await settled(stack.mgr.metrics);
}

const perMachine = (c: Counts, n: number): Counts => ({
  [MachineControllerName]: c[MachineControllerName] / n,
  [MachineDrainControllerName]: c[MachineDrainControllerName] / n,
  [NodeLinkControllerName]: c[NodeLinkControllerName] / n,
});

describe('reconciles per Machine', function () {
  this.timeout(240_000);

  describe('through a scale-up', () => {
    const measured = new Map<number, Counts>();
    for (const n of [20, 200]) {
      it(`of ${n} Machines: the drain controller never, NodeLink about twice, the machine controller at most 3 times`, async () => {
        // No resync during the scale-up: only the events of the Machines' own creation count.
        const stack = await startStack(3_600_000);
        try {
          await scaleUp(stack, n);
          const per = perMachine(await reconciles(stack.mgr.metrics), n);
          measured.set(n, per);
          for (const c of Controllers) expect(per[c], `${c} reconciles per Machine`).to.be.at.most(ScaleUpTargets[c]);
          expect(per[MachineDrainControllerName]).to.equal(0);
          expect(stack.actuator.calls.filter((c) => c.method === 'create')).to.have.length(n);
        } finally {
          await stack.stop();
        }
      });
    }

    it('costs every controller the same per Machine at 200 as at 20, within 10 %', function () {
      const small = measured.get(20);
      const large = measured.get(200);
      if (!small || !large) this.skip();
      for (const c of SameAtEverySize) {
        const [a, b] = [small[c], large[c]];
        if (a === 0 && b === 0) continue;
        expect(Math.abs(b - a) / Math.max(a, b), `${c}: ${a.toFixed(2)} at 20, ${b.toFixed(2)} at 200`).to.be.at.most(
          0.1,
        );
      }
    });
  });

  it('through a scale-up faster than the cloud takes (its API rate-limited): at most the benchmark targets, one launch per Machine, none failed', async () => {
    const n = 40;
    // The provider's limiter allows four times the cloud's rate: the cloud's refusals bring it down to what
    // the cloud admits, and launches past its line are deferred to their turn.
    let metered: MeteredActuator | undefined;
    const stack = await startStack(3_600_000, (fake) => {
      metered = new MeteredActuator(
        fake,
        { describe: { qps: 80, burst: 40 }, mutate: { qps: 20, burst: 20 } },
        { describe: { qps: 20, burst: 10 }, mutate: { qps: 5, burst: 5 } },
      );
      return metered;
    });
    try {
      await scaleUp(stack, n);
      const per = perMachine(await reconciles(stack.mgr.metrics), n);
      for (const c of Controllers) expect(per[c], `${c} reconciles per Machine`).to.be.at.most(ThrottledTargets[c]);
      expect(stack.actuator.calls.filter((c) => c.method === 'create')).to.have.length(n);
      expect(metered?.throttledReplies, 'the cloud refused some calls for its rate').to.be.greaterThan(0);
    } finally {
      await stack.stop();
    }
  });

  it("through a scale-up past the provider's own write budget (the cloud refusing nothing): each Machine's first reconcile waits for its launch's turn, so none costs a pass more than within the budget", async () => {
    const n = 40;
    // The provider lets 5 launches go at once, then 20 a second: 35 of the 40 wait for their turn.
    const stack = await startStack(3_600_000, (fake) => {
      const roomy = { qps: 1_000, burst: 1_000 };
      return new MeteredActuator(
        fake,
        { describe: { qps: 80, burst: 40 }, mutate: { qps: 20, burst: 5 } },
        { describe: roomy, mutate: roomy },
      );
    });
    try {
      await scaleUp(stack, n);
      const per = perMachine(await reconciles(stack.mgr.metrics), n);
      expect(per[MachineControllerName], 'machine controller reconciles per Machine').to.be.at.most(2.3);
      expect(stack.actuator.calls.filter((c) => c.method === 'create')).to.have.length(n);
    } finally {
      await stack.stop();
    }
  });

  it('in steady state: per resync at most one reconcile and one existence check per Machine, none in the drain controller, and no writes', async () => {
    const n = 50;
    const stack = await startStack(2_000);
    try {
      await scaleUp(stack, n);
      // Past any resync that the scale-up overlapped, then measure whole rounds.
      const startRound = Math.ceil(stack.resyncs()) + 1;
      await eventually('a resync after the scale-up', async () => stack.resyncs() >= startRound, 30_000);
      await settled(stack.mgr.metrics);
      const before = { reconciles: await reconciles(stack.mgr.metrics), calls: stack.actuator.calls.length };
      const writesBefore = stack.writes();
      const from = stack.resyncs();
      await eventually('two more resyncs', async () => stack.resyncs() >= from + 2, 30_000);
      await settled(stack.mgr.metrics);
      const rounds = Math.round(stack.resyncs() - from);
      const after = await reconciles(stack.mgr.metrics);
      const per = (c: keyof Counts): number => (after[c] - before.reconciles[c]) / n / rounds;
      expect(per(MachineDrainControllerName)).to.equal(0);
      expect(per(NodeLinkControllerName)).to.be.at.most(1);
      expect(per(MachineControllerName)).to.be.at.most(1);
      // The machine controller's reconcile of a Machine with an instance: one existence check, then update.
      const calls = stack.actuator.calls.slice(before.calls);
      expect(calls.filter((c) => c.method === 'create' || c.method === 'delete')).to.deep.equal([]);
      expect(calls.filter((c) => c.method === 'exists').length / n / rounds).to.be.at.most(1);
      expect(stack.writes() - writesBefore, 'Kubernetes writes in steady state').to.equal(0);
    } finally {
      await stack.stop();
    }
  });
});
