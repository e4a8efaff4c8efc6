// Rolling replacement of a MachineSet's Machines, end to end on the local control plane: the MachineSet, machine,
// drain and NodeLink controllers, the FakeActuator as the cloud and the kubelet simulator as its kubelets. A watch
// on Machines and Nodes checks the rollout's bounds at every change it sees.
import { expect } from 'chai';
import type { Node } from '../../../lib/apis/core.js';
import { InvalidMachineConfigurationError } from '../../../lib/apis/errors.js';
import type { Condition, Machine, MachineSet } from '../../../lib/apis/machine-types.js';
import type { KubeObject } from '../../../lib/apis/meta.js';
import type { KubeClient } from '../../../lib/client/kube-client.js';
import {
  Machines,
  MachineSets,
  Nodes,
  PodDisruptionBudgets,
  Pods,
  type Resource,
} from '../../../lib/client/resources.js';
import type { ActuatorContext } from '../../../lib/machine/actuator.js';
import { addMachineController } from '../../../lib/machine/controller.js';
import { addMachineSetController } from '../../../lib/machineset/machineset-controller.js';
import { seededRandom } from '../../../lib/machineset/random.js';
import { addNodeLinkController } from '../../../lib/nodelink/controller.js';
import type { Manager } from '../../../lib/runtime/manager.js';
import { FakeActuator } from '../../../sim/kit/fake-actuator.js';
import { KubeletSimulator } from '../../../sim/kit/kubelet-simulator.js';
import { startTestEnv, type TestEnv } from '../../../sim/kit/test-env.js';
import { eventually, events, newNamespace, settle } from './env-helpers.js';

const LABELS = { 'machine.openshift.io/cluster-api-machineset': 'workers' };
const CLUSTER = { 'machine.openshift.io/cluster-api-cluster': 'c1' };
const BROKEN_TYPE = 'broken.type';

/** The fake cloud, refusing one instance type as a bad image or unknown type would be refused. */
class PickyActuator extends FakeActuator {
  override async create(machine: Machine, ctx: ActuatorContext): Promise<void> {
    const value = machine.spec?.providerSpec?.value as { instanceType?: string } | undefined;
    if (value?.instanceType === BROKEN_TYPE)
      throw new InvalidMachineConfigurationError(`instance type ${BROKEN_TYPE} does not exist`);
    return super.create(machine, ctx);
  }
}

function machineSet(ns: string, replicas: number, annotations: Record<string, string>): MachineSet {
  return {
    apiVersion: 'machine.openshift.io/v1beta1',
    kind: 'MachineSet',
    metadata: {
      name: 'workers',
      namespace: ns,
      annotations: { 'machine.openshift.io/rollout-strategy': 'RollingUpdate', ...annotations },
    },
    spec: {
      replicas,
      selector: { matchLabels: LABELS },
      template: {
        metadata: { labels: { ...LABELS, ...CLUSTER } },
        spec: { providerSpec: { value: { instanceType: 'fake.large' } } },
      },
    },
  };
}

const isReady = (n: Node | undefined) => n?.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True');

/** Follows Machines (of one namespace) and Nodes with watches and records the extremes at every change. */
class FleetObserver {
  readonly machines = new Map<string, Machine>();
  readonly nodes = new Map<string, Node>();
  most = 0;
  fewestAvailable = Infinity;
  private readonly ac = new AbortController();

  constructor(
    private readonly client: KubeClient,
    private readonly namespace: string,
  ) {}

  async start(): Promise<void> {
    await Promise.all([
      this.follow(Machines, this.machines, { namespace: this.namespace }),
      this.follow(Nodes, this.nodes, {}),
    ]);
    this.check();
  }

  stop(): void {
    this.ac.abort();
  }

  available(): number {
    let n = 0;
    for (const m of this.machines.values()) {
      if (m.metadata.deletionTimestamp || m.status?.phase !== 'Running') continue;
      if (isReady(this.nodes.get(m.status.nodeRef?.name ?? ''))) n++;
    }
    return n;
  }

  private check(): void {
    this.most = Math.max(this.most, this.machines.size);
    this.fewestAvailable = Math.min(this.fewestAvailable, this.available());
  }

  private async follow<T extends KubeObject>(
    resource: Resource<T>,
    into: Map<string, T>,
    opts: { namespace?: string },
  ): Promise<void> {
    const list = await this.client.list(resource, opts);
    for (const o of list.items) into.set(o.metadata.name ?? '', o);
    const loop = async (resourceVersion: string | undefined) => {
      while (!this.ac.signal.aborted) {
        try {
          await this.client.watch(
            resource,
            { ...opts, resourceVersion },
            (e) => {
              const o = e.object as T;
              if (e.type === 'DELETED') into.delete(o.metadata.name ?? '');
              else if (e.type === 'ADDED' || e.type === 'MODIFIED') into.set(o.metadata.name ?? '', o);
              resourceVersion = o.metadata.resourceVersion ?? resourceVersion;
              this.check();
            },
            this.ac.signal,
          );
        } catch {
          if (this.ac.signal.aborted) return;
          await settle(20);
        }
      }
    };
    void loop(list.metadata?.resourceVersion);
  }
}

describe('MachineSet rolling update on the local control plane', function () {
  this.timeout(90_000);
  let env: TestEnv;
  let mgr: Manager;
  let actuator: PickyActuator;
  let kubelet: KubeletSimulator;
  const stop = new AbortController();
  let running: Promise<void>;
  let ns: string;
  let observer: FleetObserver | undefined;

  before(async () => {
    env = await startTestEnv();
    actuator = new PickyActuator();
    kubelet = new KubeletSimulator({ client: env.client, view: actuator });
    mgr = env.newManager({ syncPeriodMs: 60_000 });
    addMachineController(mgr, actuator, {
      requeueAfterMs: 250,
      rateLimiter: { baseDelayMs: 5, maxDelayMs: 500 },
      drainRateLimiter: { baseDelayMs: 100, maxDelayMs: 500 },
      drain: { timeoutMs: 1_000, evictionRetryBaseMs: 50, evictionRetryMaxMs: 200, podPollIntervalMs: 50 },
    });
    addNodeLinkController(mgr);
    addMachineSetController(mgr, { random: seededRandom(3), coalesceMs: 50 });
    running = mgr.start(stop.signal);
    await kubelet.start();
  });

  after(async () => {
    await kubelet?.stop();
    stop.abort();
    await running?.catch(() => undefined);
    await env?.stop();
  });

  beforeEach(async () => {
    ns = await newNamespace(env.client, 'roll');
  });
  afterEach(() => {
    observer?.stop();
    observer = undefined;
  });

  const list = async () => (await env.client.list(Machines, { namespace: ns })).items;
  const getMS = () => env.client.get(MachineSets, { namespace: ns, name: 'workers' });
  const upToDate = async (): Promise<Condition | undefined> =>
    (await getMS()).status?.conditions?.find((c) => c.type === 'UpToDate');
  const patchMS = (body: Record<string, unknown>) =>
    env.client.patch(MachineSets, { namespace: ns, name: 'workers' }, { type: 'merge', body });
  const setType = (instanceType: string) =>
    patchMS({ spec: { template: { spec: { providerSpec: { value: { instanceType } } } } } });
  const instanceTypeOf = (m: Machine) => (m.spec?.providerSpec?.value as { instanceType?: string }).instanceType;
  const runningInstances = () =>
    actuator.allInstances().filter((i) => i.machine.namespace === ns && i.state === 'running');

  /** Creates the set and waits for `replicas` Running Machines with Ready Nodes and UpToDate=True. */
  async function steadySet(replicas: number, annotations: Record<string, string> = {}): Promise<Machine[]> {
    await env.client.create(MachineSets, machineSet(ns, replicas, annotations));
    return settled(replicas, 'fake.large');
  }

  /** Waits until the set is up to date with `replicas` available Machines of `instanceType`. */
  async function settled(replicas: number, instanceType: string): Promise<Machine[]> {
    return eventually(
      async () => {
        const c = await upToDate();
        const ms = await getMS();
        const machines = await list();
        return (
          c?.status === 'True' &&
          ms.status?.availableReplicas === replicas &&
          machines.length === replicas &&
          machines.every((m) => m.status?.phase === 'Running' && instanceTypeOf(m) === instanceType) &&
          machines
        );
      },
      { timeoutMs: 40_000, what: `${replicas} up-to-date ${instanceType} machines` },
    );
  }

  async function observe(): Promise<FleetObserver> {
    observer = new FleetObserver(env.client, ns);
    await observer.start();
    return observer;
  }

  it('replaces every Machine of a changed template one at a time: never fewer than 3 available nor more than 4', async () => {
    const before = await steadySet(3, {
      'machine.openshift.io/rollout-max-surge': '1',
      'machine.openshift.io/rollout-max-unavailable': '0',
    });
    const watch = await observe();
    await setType('fake.xlarge');
    await eventually(async () => (await upToDate())?.reason === 'RollingUpdate', { what: 'RollingUpdate' });
    const after = await settled(3, 'fake.xlarge');

    expect(watch.most, 'the surge was used, never exceeded').to.equal(4);
    expect(watch.fewestAvailable).to.equal(3);
    const names = new Set(before.map((m) => m.metadata.name));
    expect(after.filter((m) => names.has(m.metadata.name))).to.deep.equal([]);
    await eventually(async () => runningInstances().length === 3, { what: 'old instances terminated' });
    expect(runningInstances().map((i) => i.instanceType)).to.deep.equal(['fake.xlarge', 'fake.xlarge', 'fake.xlarge']);

    const steps = (await events(env.client, ns, 'RollingUpdate')).map((e) => e.message ?? '');
    expect(steps.filter((m) => m.startsWith('Replacing outdated machine'))).to.have.length(3);
    expect(steps.some((m) => m.startsWith('Creating 1 machine from the current template'))).to.equal(true);
    expect(await events(env.client, ns, 'RolloutComplete')).to.have.length(1);
    const metrics = await mgr.metrics.getMetricsAsJSON();
    const outdated = metrics.find((m) => m.name === 'mapi_machineset_outdated_machines');
    expect(outdated?.values.find((v) => v.labels.namespace === ns)?.value).to.equal(0);
    const duration = metrics.find((m) => m.name === 'mapi_machineset_rollout_duration_seconds');
    const count = duration?.values.find(
      (v) => (v as { metricName?: string }).metricName?.endsWith('_count') && v.labels.namespace === ns,
    );
    expect(count?.value).to.equal(1);
  });

  it('goes on with the other Machines while a PodDisruptionBudget holds one drain, and finishes once it is lifted', async () => {
    const before = await steadySet(3, {
      'machine.openshift.io/rollout-max-surge': '1',
      'machine.openshift.io/rollout-max-unavailable': '1',
    });
    const held = before[0]!;
    await env.client.create(Pods, {
      metadata: { name: 'db', namespace: ns, labels: { app: 'db' } },
      spec: { nodeName: held.status?.nodeRef?.name ?? '', containers: [{ name: 'c', image: 'x' }] },
    });
    await env.client.patch(
      Pods,
      { namespace: ns, name: 'db' },
      { type: 'merge', body: { status: { phase: 'Running' } } },
      { subresource: 'status' },
    );
    await env.client.create(PodDisruptionBudgets, {
      metadata: { name: 'db', namespace: ns },
      spec: { minAvailable: 1, selector: { matchLabels: { app: 'db' } } },
    });
    const watch = await observe();
    await setType('fake.xlarge');

    // Every other Machine is replaced while the held one drains.
    const stuck = await eventually(
      async () => {
        const machines = await list();
        const current = machines.filter((m) => !m.metadata.deletionTimestamp && instanceTypeOf(m) === 'fake.xlarge');
        const h = machines.find((m) => m.metadata.name === held.metadata.name);
        const drained = h?.status?.conditions?.find((c) => c.type === 'Drained');
        return (
          current.length === 3 &&
          current.every((m) => m.status?.phase === 'Running') &&
          machines.length === 4 &&
          drained?.status === 'False' &&
          h
        );
      },
      { timeoutMs: 40_000, what: 'three new machines beside the held one' },
    );
    expect(stuck.metadata.deletionTimestamp).to.be.a('string');
    const c = await upToDate();
    expect(c).to.include({ status: 'False', reason: 'RollingUpdate' });
    expect(c?.message).to.contain('1 outdated (1 being deleted)');

    await env.client.delete(PodDisruptionBudgets, { namespace: ns, name: 'db' });
    await settled(3, 'fake.xlarge');
    expect(watch.most, 'replicas + maxSurge, the held Machine included').to.be.at.most(4);
    expect(watch.fewestAvailable, 'replicas - maxUnavailable').to.be.at.least(2);
  });

  it('stalls on a new Machine that fails, keeping every old one, and resumes from there when the template is reverted', async () => {
    const before = await steadySet(3);
    const watch = await observe();
    await setType(BROKEN_TYPE);
    const stalled = await eventually(
      async () => {
        const c = await upToDate();
        return c?.reason === 'RolloutStalled' && c;
      },
      { timeoutMs: 20_000, what: 'RolloutStalled' },
    );
    expect(stalled.severity).to.equal('Warning');
    expect(stalled.message).to.match(
      /^Machine workers-\w+ made from the current template failed \(instance type broken.type does not exist\)/,
    );
    await settle(1_000);
    const machines = await list();
    expect(machines).to.have.length(4);
    expect(machines.filter((m) => m.status?.phase === 'Failed')).to.have.length(1);
    const names = before.map((m) => m.metadata.name);
    expect(machines.filter((m) => names.includes(m.metadata.name) && !m.metadata.deletionTimestamp)).to.have.length(3);
    expect(await events(env.client, ns, 'RolloutStalled')).to.have.length(1);

    await setType('fake.large');
    const after = await settled(3, 'fake.large');
    expect(after.map((m) => m.metadata.name).sort(), 'the old Machines match again and stay').to.deep.equal(
      [...names].sort(),
    );
    expect(watch.most).to.equal(4);
    expect(watch.fewestAvailable).to.equal(3);
  });

  it('replaces every Machine once on a new rollout-restart value, and not again when it is removed', async () => {
    const before = await steadySet(3);
    await patchMS({ metadata: { annotations: { 'machine.openshift.io/rollout-restart': '2026-11-28T09:00:00Z' } } });
    await eventually(async () => (await upToDate())?.reason === 'RollingUpdate', { what: 'RollingUpdate' });
    const after = await settled(3, 'fake.large');
    const names = new Set(before.map((m) => m.metadata.name));
    expect(after.filter((m) => names.has(m.metadata.name))).to.deep.equal([]);
    expect(actuator.allInstances().filter((i) => i.machine.namespace === ns)).to.have.length(6);
    for (const m of after)
      expect(m.metadata.annotations?.['machine.openshift.io/rollout-restart']).to.equal('2026-11-28T09:00:00Z');

    await patchMS({ metadata: { annotations: { 'machine.openshift.io/rollout-restart': null } } });
    await settle(1_000);
    expect((await list()).map((m) => m.metadata.name).sort()).to.deep.equal(after.map((m) => m.metadata.name).sort());
    expect((await upToDate())?.status).to.equal('True');
  });

  it('scaled from 3 to 5 during a rollout, ends with 5 new Machines and never drops below 3 available', async () => {
    await steadySet(3);
    const watch = await observe();
    await setType('fake.xlarge');
    await eventually(async () => (await list()).some((m) => instanceTypeOf(m) === 'fake.xlarge'), {
      what: 'first new machine',
    });
    await patchMS({ spec: { replicas: 5 } });
    await settled(5, 'fake.xlarge');
    expect(watch.fewestAvailable).to.be.at.least(3);
    expect(watch.most).to.be.at.most(6);
  });

  it('scaled down by the autoscaler during a rollout, deletes the Machine it marked, then finishes', async () => {
    await steadySet(3, { 'machine.openshift.io/rollout-paused': 'true' });
    await setType('fake.xlarge');
    await eventually(async () => (await upToDate())?.reason === 'RolloutPaused', { what: 'RolloutPaused' });
    // One new Machine from the current template, as a scale-up during the pause makes.
    await patchMS({ spec: { replicas: 4 } });
    const fresh = await eventually(async () => {
      const m = (await list()).find((x) => instanceTypeOf(x) === 'fake.xlarge' && x.status?.phase === 'Running');
      return m;
    });
    // The autoscaler marks the Node's Machine it wants gone, then lowers replicas.
    await env.client.patch(
      Machines,
      { namespace: ns, name: fresh.metadata.name ?? '' },
      { type: 'merge', body: { metadata: { annotations: { 'machine.openshift.io/delete-machine': 'true' } } } },
    );
    await patchMS({ spec: { replicas: 3 } });
    await eventually(
      async () => {
        const m = (await list()).find((x) => x.metadata.name === fresh.metadata.name);
        return !m || m.metadata.deletionTimestamp;
      },
      { what: 'the marked Machine deleted' },
    );
    await patchMS({ metadata: { annotations: { 'machine.openshift.io/rollout-paused': null } } });
    await settled(3, 'fake.xlarge');
  });

  it('paused: replaces nothing, says so, and goes on when unpaused', async () => {
    const before = await steadySet(3, { 'machine.openshift.io/rollout-paused': 'true' });
    await setType('fake.xlarge');
    await eventually(async () => (await upToDate())?.reason === 'RolloutPaused', { what: 'RolloutPaused' });
    await settle(500);
    expect((await list()).map((m) => m.metadata.name).sort()).to.deep.equal(before.map((m) => m.metadata.name).sort());
    expect((await upToDate())?.message).to.equal(
      'Rollout paused by machine.openshift.io/rollout-paused: 0 of 3 up to date, 3 outdated, 3 available',
    );
    await patchMS({ metadata: { annotations: { 'machine.openshift.io/rollout-paused': 'false' } } });
    await settled(3, 'fake.xlarge');
  });

  it('stamps Machines made before the feature as up to date, so an upgrade starts no rollout', async () => {
    // More than are stamped at once, as an upgrade meets a whole fleet.
    const names = Array.from({ length: 23 }, (_, i) => `legacy-${String(i).padStart(2, '0')}`);
    await Promise.all(
      names.map((name) =>
        env.client.create(Machines, {
          apiVersion: 'machine.openshift.io/v1beta1',
          kind: 'Machine',
          metadata: { name, namespace: ns, labels: { ...LABELS, ...CLUSTER } },
          spec: { providerSpec: { value: { instanceType: 'fake.medium' } } },
        }),
      ),
    );
    // Running: the controllers' caches have them, as they have every Machine of a cluster being upgraded.
    await eventually(async () => (await list()).every((m) => m.status?.phase === 'Running'), {
      what: 'Running',
      timeoutMs: 30_000,
    });
    await env.client.create(MachineSets, machineSet(ns, names.length, {}));
    const adopted = await eventually(async () => {
      const machines = await list();
      return machines.every((m) => m.metadata.labels?.['machine.openshift.io/template-hash']) && machines;
    });
    expect(adopted.map((m) => m.metadata.name).sort()).to.deep.equal(names);
    await eventually(async () => (await upToDate())?.status === 'True', { what: 'UpToDate' });
    await settle(500);
    expect((await list()).map((m) => m.metadata.name).sort()).to.deep.equal(names);
  });

  it('OnDelete (the default) leaves outdated Machines alone and says how many there are', async () => {
    await env.client.create(MachineSets, {
      ...machineSet(ns, 2, {}),
      metadata: { name: 'workers', namespace: ns },
    });
    const before = await settled(2, 'fake.large');
    await setType('fake.xlarge');
    const c = await eventually(async () => {
      const x = await upToDate();
      return x?.reason === 'OnDelete' && x;
    });
    expect(c.message).to.equal(
      'Outdated Machines are replaced only when deleted (machine.openshift.io/rollout-strategy is OnDelete): 0 of 2 up to date, 2 outdated, 2 available',
    );
    await settle(500);
    expect((await list()).map((m) => m.metadata.name).sort()).to.deep.equal(before.map((m) => m.metadata.name).sort());
  });
});
