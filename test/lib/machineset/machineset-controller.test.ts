import { expect } from 'chai';
import type { Machine, MachineSet } from '../../../lib/apis/machine-types.js';
import type { KubeObject } from '../../../lib/apis/meta.js';
import { FakeClock } from '../../../lib/base/fake-clock.js';
import type { KubeClient, WatchEvent, WatchOptions } from '../../../lib/client/kube-client.js';
import { ConfigMaps, Machines, MachineSets, Nodes, type Resource } from '../../../lib/client/resources.js';
import {
  addMachineSetController,
  type MachineSetControllerOptions,
} from '../../../lib/machineset/machineset-controller.js';
import { seededRandom } from '../../../lib/machineset/random.js';
import { templateHash } from '../../../lib/machineset/template-hash.js';
import type { Informer } from '../../../lib/runtime/types.js';
import { startTestEnv, type TestEnv } from '../../../sim/kit/test-env.js';
import {
  delegatingClient,
  eventually,
  events,
  getPath,
  newNamespace,
  run,
  settle,
  type Running,
} from './env-helpers.js';

const LABELS = { 'machine.openshift.io/cluster-api-machineset': 'workers' };

function machineSet(ns: string, replicas: number, extra: Partial<NonNullable<MachineSet['spec']>> = {}): MachineSet {
  return {
    apiVersion: 'machine.openshift.io/v1beta1',
    kind: 'MachineSet',
    metadata: { name: 'workers', namespace: ns },
    spec: {
      replicas,
      selector: { matchLabels: LABELS },
      template: {
        metadata: {
          labels: { ...LABELS, 'machine.openshift.io/cluster-api-cluster': 'c1' },
          annotations: { note: 'from-template' },
        },
        spec: {
          providerSpec: { value: { instanceType: 'm6i.large' } },
          taints: [{ key: 'dedicated', value: 'x', effect: 'NoSchedule' }],
        },
      },
      ...extra,
    },
  };
}

function orphan(ns: string, name: string, labels: Record<string, string> = LABELS): Machine {
  return {
    apiVersion: 'machine.openshift.io/v1beta1',
    kind: 'Machine',
    metadata: { name, namespace: ns, labels },
    spec: {},
  };
}

/** A client whose Machine watch events can be held back, to play a cache that lags behind the API. */
function laggingClient(inner: KubeClient) {
  let held: Array<() => void> | undefined;
  const client = delegatingClient(inner, {
    watch<T extends KubeObject>(r: Resource<T>, o: WatchOptions, onEvent: (e: WatchEvent<T>) => void, s: AbortSignal) {
      if (r.plural !== 'machines') return inner.watch(r, o, onEvent, s);
      return inner.watch(r, o, (e) => (held ? held.push(() => onEvent(e)) : onEvent(e)), s);
    },
  });
  return {
    client,
    hold: () => (held = []),
    release: () => {
      const pending = held ?? [];
      held = undefined;
      pending.forEach((f) => f());
    },
  };
}

describe('MachineSet controller', function () {
  let env: TestEnv;
  let ns: string;
  let running: Running | undefined;

  before(async () => {
    env = await startTestEnv();
  });
  after(async () => {
    await env.stop();
  });
  beforeEach(async () => {
    ns = await newNamespace(env.client, 'ms');
  });
  afterEach(async () => {
    await running?.stop();
    running = undefined;
  });

  function start(opts: MachineSetControllerOptions = {}, client?: KubeClient) {
    // One namespace per test: a manager never sees the MachineSets of earlier tests.
    const mgr = env.newManager(client ? { client, namespace: ns } : { namespace: ns });
    const handle = addMachineSetController(mgr, { random: seededRandom(7), ...opts });
    running = run(mgr);
    return { mgr, handle };
  }

  const machines = async () => (await env.client.list(Machines, { namespace: ns })).items;
  const active = async () => (await machines()).filter((m) => !m.metadata.deletionTimestamp);
  const getMS = () => env.client.get(MachineSets, { namespace: ns, name: 'workers' });
  const setReplicas = (n: number) =>
    env.client.patch(
      MachineSets,
      { namespace: ns, name: 'workers' },
      { type: 'merge', body: { spec: { replicas: n } } },
    );

  it('creates machines from the template, stamped with its hash, owned by the MachineSet, and reports status', async () => {
    start();
    const ms = await env.client.create(MachineSets, machineSet(ns, 3));
    const ms3 = await eventually(async () => {
      const cur = await getMS();
      return cur.status?.replicas === 3 && cur.status.observedGeneration === cur.metadata.generation && cur;
    });
    const list = await machines();
    expect(list).to.have.length(3);
    for (const m of list) {
      expect(m.metadata.name).to.match(/^workers-/);
      expect(m.metadata.labels).to.deep.equal({
        ...LABELS,
        'machine.openshift.io/cluster-api-cluster': 'c1',
        'machine.openshift.io/template-hash': templateHash(ms),
      });
      expect(m.metadata.annotations).to.deep.equal({ note: 'from-template' });
      expect(m.spec?.providerSpec?.value).to.deep.equal({ instanceType: 'm6i.large' });
      expect(m.spec?.taints).to.deep.equal([{ key: 'dedicated', value: 'x', effect: 'NoSchedule' }]);
      expect(m.metadata.ownerReferences).to.deep.equal([
        {
          apiVersion: 'machine.openshift.io/v1beta1',
          kind: 'MachineSet',
          name: 'workers',
          uid: ms.metadata.uid,
          controller: true,
          blockOwnerDeletion: true,
        },
      ]);
      expect(m.metadata.finalizers ?? []).to.deep.equal([]);
    }
    expect(ms3.status).to.include({
      replicas: 3,
      fullyLabeledReplicas: 3,
      readyReplicas: 0,
      availableReplicas: 0,
      labelSelector: 'machine.openshift.io/cluster-api-machineset=workers',
    });
    const created = await eventually(async () => {
      const evs = await events(env.client, ns, 'SuccessfulCreate');
      return evs.length === 3 && evs;
    });
    expect(created[0]!.message).to.match(/^Created machine: workers-/);
  });

  it('gets Machine names of at most 63 characters from a long MachineSet name (the API server cuts the prefix)', async () => {
    start();
    // The longest name its own label (the selector's value) can carry; "<name>-" is 64 characters.
    const name = `workers-${'long'.repeat(13)}-ab`;
    expect(name).to.have.length(63);
    const ms = machineSet(ns, 2);
    ms.metadata.name = name;
    await env.client.create(MachineSets, ms);
    const list = await eventually(async () => {
      const found = await machines();
      return found.length === 2 && found;
    });
    for (const m of list) {
      expect(m.metadata.name).to.have.length(63);
      expect(m.metadata.name!.slice(0, 58)).to.equal(name.slice(0, 58));
      expect(m.metadata.generateName).to.equal(`${name}-`);
    }
  });

  it('scales down deleting annotated and failed machines first, then those without a node', async () => {
    const { mgr } = start();
    await env.client.create(MachineSets, machineSet(ns, 4));
    await eventually(async () => (await machines()).length === 4);
    const [a, b, c, d] = await machines();
    await env.client.patch(
      Machines,
      { namespace: ns, name: a!.metadata.name! },
      { type: 'merge', body: { metadata: { annotations: { 'machine.openshift.io/delete-machine': 'true' } } } },
    );
    await env.client.patch(
      Machines,
      { namespace: ns, name: b!.metadata.name! },
      { type: 'merge', body: { status: { errorMessage: 'instance terminated' } } },
      { subresource: 'status' },
    );
    // c gets a Ready node; d has none, so d goes before c.
    await env.client.create(Nodes, {
      apiVersion: 'v1',
      kind: 'Node',
      metadata: { name: `${ns}-node-c` },
      status: { conditions: [{ type: 'Ready', status: 'True' }] },
    });
    await env.client.patch(
      Machines,
      { namespace: ns, name: c!.metadata.name! },
      { type: 'merge', body: { status: { nodeRef: { kind: 'Node', name: `${ns}-node-c` } } } },
      { subresource: 'status' },
    );
    // The MachineSet and Machine watches are separate streams: let the cache catch up before scaling.
    const cache = mgr.informer(Machines);
    await eventually(
      () =>
        cache
          .list({ namespace: ns })
          .filter(
            (m) =>
              m.metadata.annotations?.['machine.openshift.io/delete-machine'] ||
              m.status?.errorMessage ||
              m.status?.nodeRef,
          ).length === 3,
    );

    await setReplicas(2);
    await eventually(async () => (await machines()).length === 2);
    expect((await machines()).map((m) => m.metadata.name).sort()).to.deep.equal(
      [c!.metadata.name, d!.metadata.name].sort(),
    );

    await setReplicas(1);
    await eventually(async () => (await machines()).length === 1);
    expect((await machines()).map((m) => m.metadata.name)).to.deep.equal([c!.metadata.name]);
    await eventually(async () => (await events(env.client, ns, 'SuccessfulDelete')).length === 3);
  });

  it('counts ready and available replicas from the nodes, and follows node readiness', async () => {
    start();
    await env.client.create(MachineSets, machineSet(ns, 2));
    await eventually(async () => (await machines()).length === 2);
    const [m1, m2] = await machines();
    for (const [i, m] of [m1!, m2!].entries()) {
      await env.client.create(Nodes, {
        apiVersion: 'v1',
        kind: 'Node',
        metadata: { name: `${ns}-n${i}` },
        status: { conditions: [{ type: 'Ready', status: 'True' }] },
      });
      await env.client.patch(
        Machines,
        { namespace: ns, name: m.metadata.name! },
        { type: 'merge', body: { status: { nodeRef: { kind: 'Node', name: `${ns}-n${i}` } } } },
        { subresource: 'status' },
      );
    }
    await eventually(async () => (await getMS()).status?.readyReplicas === 2);
    expect((await getMS()).status?.availableReplicas).to.equal(2);

    // Only the Node changes: the Node watch brings the MachineSet up to date.
    await env.client.patch(
      Nodes,
      { name: `${ns}-n0` },
      { type: 'merge', body: { status: { conditions: [{ type: 'Ready', status: 'False' }] } } },
      { subresource: 'status' },
    );
    await eventually(async () => (await getMS()).status?.readyReplicas === 1);
  });

  it('counts a ready machine available only after minReadySeconds, and looks again by itself then', async () => {
    // The controller's time is a FakeClock that only the test moves, so how long the test's own steps take
    // on a busy machine cannot make the machine available early. Machine and Node changes are reconciled
    // at once (coalesceMs 0): the only timer due within minReadySeconds is then the controller's look-again.
    const clock = new FakeClock();
    const mgr = env.newManager({ namespace: ns, clock });
    addMachineSetController(mgr, { random: seededRandom(7), coalesceMs: 0 });
    running = run(mgr);
    await env.client.create(MachineSets, machineSet(ns, 1, { minReadySeconds: 1 }));
    const [m] = await eventually(async () => {
      const l = await machines();
      return l.length === 1 && l;
    });
    const readySince = clock.now();
    await env.client.create(Nodes, {
      apiVersion: 'v1',
      kind: 'Node',
      metadata: { name: `${ns}-slow` },
      status: {
        conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: new Date(readySince).toISOString() }],
      },
    });
    await env.client.patch(
      Machines,
      { namespace: ns, name: m!.metadata.name! },
      { type: 'merge', body: { status: { nodeRef: { kind: 'Node', name: `${ns}-slow` } } } },
      { subresource: 'status' },
    );
    const ready = await eventually(async () => {
      const cur = await getMS();
      return cur.status?.readyReplicas === 1 && cur;
    });
    expect(ready.status?.availableReplicas).to.equal(0);
    // Ready must hold strictly longer than minReadySeconds. Step only once the controller has set its
    // look-again (a step before that would move its due time on with the clock).
    const justPastMinReady = readySince + 1_001;
    await eventually(() => (clock.nextTimerAt() ?? Infinity) <= justPastMinReady, {
      what: 'a look-again due by the end of minReadySeconds',
    });
    clock.setTime(justPastMinReady);
    // No object changes after this point: only the controller's own look-again can make it available.
    await eventually(async () => (await getMS()).status?.availableReplicas === 1, {
      what: 'availableReplicas 1 after minReadySeconds',
    });
  });

  it('adopts a matching orphan instead of creating a machine', async () => {
    await env.client.create(Machines, orphan(ns, 'stray'));
    start();
    const ms = await env.client.create(MachineSets, machineSet(ns, 1));
    await eventually(
      async () =>
        (await env.client.get(Machines, { namespace: ns, name: 'stray' })).metadata.ownerReferences?.[0]?.uid ===
        ms.metadata.uid,
    );
    await eventually(async () => (await getMS()).status?.replicas === 1);
    await settle(200);
    expect((await machines()).map((m) => m.metadata.name)).to.deep.equal(['stray']);
  });

  it('leaves alone machines controlled by someone else, and orphans that do not match', async () => {
    await env.client.create(Machines, orphan(ns, 'other-labels', { app: 'x' }));
    const owned = orphan(ns, 'owned-elsewhere');
    const other = await env.client.create(ConfigMaps, {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'other', namespace: ns },
    });
    owned.metadata.ownerReferences = [
      { apiVersion: 'v1', kind: 'ConfigMap', name: 'other', uid: other.metadata.uid!, controller: true },
    ];
    await env.client.create(Machines, owned);
    start();
    await env.client.create(MachineSets, machineSet(ns, 1));
    await eventually(async () => (await getMS()).status?.replicas === 1);
    await settle(200);
    const byName = Object.fromEntries((await machines()).map((m) => [m.metadata.name, m]));
    expect(Object.keys(byName)).to.have.length(3);
    expect(byName['other-labels']!.metadata.ownerReferences).to.equal(undefined);
    expect(byName['owned-elsewhere']!.metadata.ownerReferences![0]!.name).to.equal('other');
  });

  it('releases a machine whose labels stop matching and replaces it', async () => {
    start();
    await env.client.create(MachineSets, machineSet(ns, 1));
    const [m] = await eventually(async () => {
      const l = await machines();
      return l.length === 1 && l;
    });
    await env.client.patch(
      Machines,
      { namespace: ns, name: m!.metadata.name! },
      { type: 'merge', body: { metadata: { labels: { 'machine.openshift.io/cluster-api-machineset': 'elsewhere' } } } },
    );
    await eventually(
      async () =>
        ((await env.client.get(Machines, { namespace: ns, name: m!.metadata.name! })).metadata.ownerReferences ?? [])
          .length === 0,
      { what: 'released' },
    );
    await eventually(async () => (await machines()).length === 2);
    await settle(200);
    expect(await machines()).to.have.length(2);
  });

  it('replaces a machine that is being deleted without waiting for it to go', async () => {
    start();
    await env.client.create(MachineSets, machineSet(ns, 1));
    const [m] = await eventually(async () => {
      const l = await machines();
      return l.length === 1 && l;
    });
    await env.client.patch(
      Machines,
      { namespace: ns, name: m!.metadata.name! },
      { type: 'merge', body: { metadata: { finalizers: ['test/hold'] } } },
    );
    await env.client.delete(Machines, { namespace: ns, name: m!.metadata.name! });
    await eventually(async () => (await active()).length === 1 && (await machines()).length === 2);
    await settle(200);
    expect(await active()).to.have.length(1);
    await env.client.patch(
      Machines,
      { namespace: ns, name: m!.metadata.name! },
      { type: 'merge', body: { metadata: { finalizers: null } } },
    );
  });

  it('records an invalid MachineSet on status and as an event, creates nothing, and recovers once fixed', async () => {
    start();
    const bad = machineSet(ns, 2);
    bad.spec!.template!.metadata!.labels = { other: 'labels' };
    await env.client.create(MachineSets, bad);
    const ms = await eventually(async () => {
      const cur = await getMS();
      return cur.status?.errorReason === 'InvalidConfiguration' && cur;
    });
    expect(ms.status?.errorMessage).to.equal(
      '"workers" machineset validation failed: spec.template.metadata.labels: Invalid value: {"other":"labels"}: `selector` does not match template `labels`',
    );
    const evs = await eventually(async () => {
      const e = await events(env.client, ns, 'ReconcileError');
      return e.length > 0 && e;
    });
    expect(evs[0]!.type).to.equal('Warning');
    expect(evs[0]!.message).to.equal(ms.status?.errorMessage);
    expect(await machines()).to.have.length(0);

    await env.client.patch(
      MachineSets,
      { namespace: ns, name: 'workers' },
      { type: 'merge', body: { spec: { template: { metadata: { labels: LABELS } } } } },
    );
    await eventually(async () => (await machines()).length === 2);
    const fixed = await eventually(async () => {
      const cur = await getMS();
      return cur.status?.replicas === 2 && cur;
    });
    expect(fixed.status?.errorReason).to.equal(undefined);
    expect(fixed.status?.errorMessage).to.equal(undefined);
  });

  it('creates in bursts and waits for the cache to see each burst before the next', async () => {
    const seenAtCreate: number[] = [];
    const ref: { cache?: Informer<Machine> } = {};
    const counting = delegatingClient(env.client, {
      create: (r, obj, o) => {
        if (r.plural === 'machines') seenAtCreate.push(ref.cache!.list({ namespace: ns }).length);
        return env.client.create(r, obj, o);
      },
    });
    const { mgr } = start({ burst: 3 }, counting);
    ref.cache = mgr.informer(Machines);
    await env.client.create(MachineSets, machineSet(ns, 7));
    await eventually(async () => (await getMS()).status?.replicas === 7);
    expect(seenAtCreate).to.have.length(7);
    seenAtCreate.forEach((seen, i) => expect(seen, `create #${i}`).to.be.at.least(3 * Math.floor(i / 3)));
    expect(await machines()).to.have.length(7);
  });

  it('stops creating after a failing batch and reports FailedCreate', async () => {
    let calls = 0;
    const failing = delegatingClient(env.client, {
      create: (r, obj, o) => {
        if (r.plural !== 'machines') return env.client.create(r, obj, o);
        calls++;
        return Promise.reject(new Error('admission webhook denied the request'));
      },
    });
    start({}, failing);
    await env.client.create(MachineSets, machineSet(ns, 20));
    const evs = await eventually(async () => {
      const e = await events(env.client, ns, 'FailedCreate');
      return e.length > 0 && e;
    });
    expect(evs[0]!.message).to.equal('Error creating: admission webhook denied the request');
    expect(evs[0]!.type).to.equal('Warning');
    // Slow start: the first batch is one machine, and a failed batch ends the pass.
    expect(calls).to.be.lessThan(5);
  });

  it('never creates twice while its cache lags behind its own creates (expectations)', async () => {
    const lag = laggingClient(env.newClient());
    const { handle } = start({}, lag.client);
    lag.hold();
    await env.client.create(MachineSets, machineSet(ns, 2));
    await eventually(async () => (await machines()).length === 2);
    // Poke the MachineSet repeatedly: each pass sees a cache without the two new machines.
    for (let i = 0; i < 3; i++) {
      await env.client.patch(
        MachineSets,
        { namespace: ns, name: 'workers' },
        { type: 'merge', body: { metadata: { annotations: { poke: String(i) } } } },
      );
      await settle(100);
    }
    expect(handle.expectations.pending(`${ns}/workers`)).to.deep.equal({ adds: 2, deletes: 0 });
    expect(await machines()).to.have.length(2);
    lag.release();
    await eventually(() => handle.expectations.satisfied(`${ns}/workers`));
    await settle(200);
    expect(await machines()).to.have.length(2);
  });

  it('never deletes twice while its cache lags behind its own deletes', async () => {
    const lag = laggingClient(env.newClient());
    start({}, lag.client);
    await env.client.create(MachineSets, machineSet(ns, 3));
    await eventually(async () => (await getMS()).status?.replicas === 3);
    lag.hold();
    await setReplicas(2);
    await eventually(async () => (await machines()).length === 2);
    for (let i = 0; i < 3; i++) {
      await env.client.patch(
        MachineSets,
        { namespace: ns, name: 'workers' },
        { type: 'merge', body: { metadata: { annotations: { poke: String(i) } } } },
      );
      await settle(100);
    }
    expect(await machines()).to.have.length(2);
    lag.release();
    await settle(200);
    expect(await machines()).to.have.length(2);
  });

  it('with MachineAPIMigration, acts only while Machine API is authoritative', async () => {
    start({ featureGates: { MachineAPIMigration: true } });
    await env.client.create(MachineSets, machineSet(ns, 2, { authoritativeAPI: 'ClusterAPI' }));
    const paused = await eventually(async () => {
      const cur = await getMS();
      return cur.status?.conditions?.find((c) => c.type === 'Paused')?.status === 'True' && cur;
    });
    expect(paused.status?.authoritativeAPI).to.equal('ClusterAPI');
    expect(paused.status?.conditions?.[0]).to.deep.include({
      reason: 'AuthoritativeAPINotMachineAPI',
      message: "The AuthoritativeAPI status is set to 'ClusterAPI'",
    });
    await settle(150);
    expect(await machines()).to.have.length(0);

    // The CRD's rule makes authority pass through Migrating, as the migration controller moves it.
    for (const authoritativeAPI of ['Migrating', 'MachineAPI']) {
      await env.client.patch(
        MachineSets,
        { namespace: ns, name: 'workers' },
        { type: 'merge', body: { status: { authoritativeAPI } } },
        { subresource: 'status' },
      );
    }
    await eventually(async () => (await machines()).length === 2);
    const active = await eventually(async () => {
      const cur = await getMS();
      return cur.status?.conditions?.find((c) => c.type === 'Paused')?.status === 'False' && cur;
    });
    expect(active.status?.conditions?.[0]).to.deep.include({ severity: 'Info', reason: 'AuthoritativeAPIMachineAPI' });
  });

  it('exposes status.labelSelector through the scale subresource', async () => {
    start();
    await env.client.create(MachineSets, machineSet(ns, 1));
    await eventually(async () => (await getMS()).status?.labelSelector);
    const scale = await getPath(env, `/apis/machine.openshift.io/v1beta1/namespaces/${ns}/machinesets/workers/scale`);
    expect(scale.status).to.deep.include({ selector: 'machine.openshift.io/cluster-api-machineset=workers' });
  });
});
