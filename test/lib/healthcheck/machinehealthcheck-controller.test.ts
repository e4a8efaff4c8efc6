import { expect } from 'chai';
import { fileURLToPath } from 'node:url';
import type { Node } from '../../../lib/apis/core.js';
import type { Machine, MachineHealthCheck } from '../../../lib/apis/machine-types.js';
import type { KubeObject } from '../../../lib/apis/meta.js';
import { defineResource, MachineHealthChecks, Machines, MachineSets, Nodes } from '../../../lib/client/resources.js';
import { defaultCrdDir } from '../../../sim/apiserver/index.js';
import {
  addMachineHealthCheckController,
  MHC_CONTROLLER_NAME,
} from '../../../lib/healthcheck/machinehealthcheck-controller.js';
import type { LogFields, Logger } from '../../../lib/base/logger.js';
import type { Manager } from '../../../lib/runtime/manager.js';
import { startTestEnv, type TestEnv } from '../../../sim/kit/test-env.js';
import { eventually, events, newNamespace, run, settle, type Running } from '../machineset/env-helpers.js';

const SELECTED = { app: 'mhc-test' };
const Templates = defineResource<KubeObject & Record<string, unknown>>({
  group: 'remediation.example.com',
  version: 'v1alpha1',
  plural: 'testremediationtemplates',
  kind: 'TestRemediationTemplate',
  namespaced: true,
});
const Requests = defineResource<KubeObject & Record<string, unknown>>({
  group: 'remediation.example.com',
  version: 'v1alpha1',
  plural: 'testremediations',
  kind: 'TestRemediation',
  namespaced: true,
});

const ago = (ms: number) => new Date(Date.now() - ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
const MIN = 60_000;

interface MachineOpts {
  /** Ready condition of its node; 'none' = no nodeRef; 'missing' = nodeRef to a node that does not exist. */
  node?: 'True' | 'False' | 'Unknown' | 'none' | 'missing';
  /** How long ago the node's Ready condition last changed. */
  since?: number;
  owned?: boolean;
  phase?: string;
  lastUpdated?: string;
  labels?: Record<string, string>;
  finalizers?: string[];
}

describe('MachineHealthCheck controller', function () {
  let env: TestEnv;
  let ns: string;
  let ownerUid: string;
  let mgr: Manager;
  let running: Running | undefined;

  before(async () => {
    env = await startTestEnv({
      controlPlane: { crdDirs: [defaultCrdDir()!, fileURLToPath(new URL('./fixtures/crds', import.meta.url))] },
    });
  });
  after(async () => {
    await env.stop();
  });
  beforeEach(async () => {
    ns = await newNamespace(env.client, 'mhc');
    // A real owner, so that garbage collection leaves the machines alone.
    const owner = await env.client.create(MachineSets, {
      apiVersion: 'machine.openshift.io/v1beta1',
      kind: 'MachineSet',
      metadata: { name: 'owner', namespace: ns },
      spec: {
        replicas: 0,
        selector: { matchLabels: { owner: 'x' } },
        template: { metadata: { labels: { owner: 'x' } } },
      },
    });
    ownerUid = owner.metadata.uid!;
  });
  afterEach(async () => {
    await running?.stop();
    running = undefined;
  });

  function start(opts: Parameters<typeof addMachineHealthCheckController>[1] = {}, logger?: Logger) {
    mgr = env.newManager({ namespace: ns, ...(logger ? { logger } : {}) });
    addMachineHealthCheckController(mgr, { maxConcurrentReconciles: 1, ...opts });
    running = run(mgr);
  }

  async function machine(name: string, o: MachineOpts = {}): Promise<Machine> {
    const nodeName = `${ns}-${name}`;
    const node = o.node ?? 'True';
    if (node !== 'none' && node !== 'missing') {
      await env.client.create<Node>(Nodes, {
        apiVersion: 'v1',
        kind: 'Node',
        metadata: { name: nodeName },
        status: { conditions: [{ type: 'Ready', status: node, lastTransitionTime: ago(o.since ?? 20 * MIN) }] },
      });
    }
    await env.client.create(Machines, {
      apiVersion: 'machine.openshift.io/v1beta1',
      kind: 'Machine',
      metadata: {
        name,
        namespace: ns,
        labels: o.labels ?? SELECTED,
        finalizers: o.finalizers,
        ownerReferences:
          o.owned === false
            ? undefined
            : [
                {
                  apiVersion: 'machine.openshift.io/v1beta1',
                  kind: 'MachineSet',
                  name: 'owner',
                  uid: ownerUid,
                  controller: true,
                },
              ],
      },
      spec: {},
    });
    const status: Record<string, unknown> = { lastUpdated: o.lastUpdated ?? ago(0) };
    if (node !== 'none') status.nodeRef = { kind: 'Node', name: nodeName };
    if (o.phase) status.phase = o.phase;
    return env.client.patch(
      Machines,
      { namespace: ns, name },
      { type: 'merge', body: { status } },
      { subresource: 'status' },
    );
  }

  async function mhc(
    spec: Partial<NonNullable<MachineHealthCheck['spec']>> = {},
    annotations?: Record<string, string>,
  ) {
    return env.client.create(MachineHealthChecks, {
      apiVersion: 'machine.openshift.io/v1beta1',
      kind: 'MachineHealthCheck',
      metadata: { name: 'mhc', namespace: ns, annotations },
      spec: {
        selector: { matchLabels: SELECTED },
        unhealthyConditions: [
          { type: 'Ready', status: 'False', timeout: '300s' },
          { type: 'Ready', status: 'Unknown', timeout: '300s' },
        ],
        ...spec,
      },
    });
  }

  const getMHC = () => env.client.get(MachineHealthChecks, { namespace: ns, name: 'mhc' });
  const names = async () =>
    (await env.client.list(Machines, { namespace: ns })).items
      .filter((m) => !m.metadata.deletionTimestamp)
      .map((m) => m.metadata.name)
      .sort();
  const poke = (i: number) =>
    env.client.patch(
      MachineHealthChecks,
      { namespace: ns, name: 'mhc' },
      { type: 'merge', body: { metadata: { labels: { poke: String(i) } } } },
    );
  async function metric(name: string): Promise<number | undefined> {
    const m = (await mgr.metrics.getMetricsAsJSON()).find((x) => x.name === name);
    return m?.values.find((v) => v.labels.name === 'mhc' && v.labels.namespace === ns)?.value;
  }
  async function eventsFor(reason: string, n = 1) {
    return eventually(
      async () => {
        const e = await events(env.client, ns, reason);
        return e.length >= n && e;
      },
      { what: `${reason} event` },
    );
  }

  it('reports covered and healthy machines on status and in metrics', async () => {
    await machine('a');
    await machine('b');
    await machine('not-selected', { labels: { app: 'other' } });
    start();
    await mhc({ maxUnhealthy: '100%' });
    const cur = await eventually(async () => {
      const m = await getMHC();
      return m.status?.expectedMachines === 2 && m;
    });
    expect(cur.status).to.deep.include({ expectedMachines: 2, currentHealthy: 2, remediationsAllowed: 2 });
    expect(cur.status?.conditions?.map((c) => [c.type, c.status])).to.deep.equal([['RemediationAllowed', 'True']]);
    expect(await metric('mapi_machinehealthcheck_nodes_covered')).to.equal(2);
    expect(await metric('mapi_machinehealthcheck_short_circuit')).to.equal(0);
  });

  it('deletes a machine whose node has been unhealthy longer than the timeout', async () => {
    await machine('healthy');
    await machine('sick', { node: 'False', since: 10 * MIN });
    start();
    await mhc();
    await eventually(async () => JSON.stringify(await names()) === '["healthy"]');
    const [ev] = await eventsFor('MachineDeleted');
    expect(ev).to.deep.include({
      type: 'Normal',
      message: `Machine ${ns}/mhc/sick/${ns}-sick has been remediated by requesting to delete Machine object`,
    });
    expect(ev!.involvedObject).to.deep.include({ kind: 'Machine', name: 'sick' });
    await eventually(async () => (await metric('mapi_machinehealthcheck_remediation_success_total')) === 1);
  });

  it('waits while a condition is within its timeout and reports DetectedUnhealthy once', async () => {
    await machine('flaky', { node: 'Unknown', since: 0 });
    start();
    await mhc({ unhealthyConditions: [{ type: 'Ready', status: 'Unknown', timeout: '1h' }] });
    const [ev] = await eventsFor('DetectedUnhealthy');
    expect(ev).to.deep.include({
      type: 'Normal',
      message: `Machine ${ns}/mhc/flaky/${ns}-flaky has unhealthy node ${ns}-flaky`,
    });
    for (let i = 0; i < 3; i++) {
      await poke(i);
      await settle(60);
    }
    const evs = await events(env.client, ns, 'DetectedUnhealthy');
    expect(evs.map((e) => e.count)).to.deep.equal([1]);
    expect(await names()).to.deep.equal(['flaky']);
    expect((await getMHC()).status).to.deep.include({ expectedMachines: 1, currentHealthy: 0 });
  });

  it('skips a machine without a controller owner, and says so once', async () => {
    await machine('stray', { node: 'False', since: 10 * MIN, owned: false });
    start();
    await mhc();
    const [ev] = await eventsFor('SkippedNoController');
    expect(ev!.message).to.equal(`Machine ${ns}/mhc/stray/${ns}-stray has no controller owner, skipping remediation`);
    for (let i = 0; i < 3; i++) {
      await poke(i);
      await settle(60);
    }
    expect((await events(env.client, ns, 'SkippedNoController')).map((e) => e.count)).to.deep.equal([1]);
    expect(await names()).to.deep.equal(['stray']);
  });

  it('short-circuits when too many machines are unhealthy: no remediation, one event, and no hot loop', async () => {
    await machine('ok');
    await machine('sick-1', { node: 'False', since: 10 * MIN });
    await machine('sick-2', { node: 'Unknown', since: 10 * MIN });
    start();
    await mhc({ maxUnhealthy: 1 });
    const cur = await eventually(async () => {
      const m = await getMHC();
      return m.status?.conditions?.[0]?.status === 'False' && m;
    });
    expect(cur.status).to.deep.include({ expectedMachines: 3, currentHealthy: 1, remediationsAllowed: 0 });
    expect(cur.status?.conditions?.[0]).to.deep.include({
      type: 'RemediationAllowed',
      status: 'False',
      severity: 'Warning',
      reason: 'TooManyUnhealthy',
      message:
        'Remediation is not allowed, the number of not started or unhealthy machines exceeds maxUnhealthy (total: 3, unhealthy: 2, maxUnhealthy: 1)',
    });
    const [ev] = await eventsFor('RemediationRestricted');
    expect(ev).to.deep.include({
      type: 'Warning',
      message:
        'Remediation restricted due to exceeded number of unhealthy machines (total: 3, unhealthy: 2, maxUnhealthy: 1)',
    });
    expect(await metric('mapi_machinehealthcheck_short_circuit')).to.equal(1);
    await settle(400);
    const reconciles = (await mgr.metrics.getMetricsAsJSON())
      .find((m) => m.name === 'controller_runtime_reconcile_total')
      ?.values.filter((v) => v.labels.controller === MHC_CONTROLLER_NAME)
      .reduce((n, v) => n + v.value, 0);
    // The reference requeued every 1 ms: hundreds of passes in this time.
    expect(reconciles).to.be.lessThan(15);
    expect((await events(env.client, ns, 'RemediationRestricted')).map((e) => e.count)).to.deep.equal([1]);
    expect(await names()).to.deep.equal(['ok', 'sick-1', 'sick-2']);

    // Raising the limit lets remediation proceed.
    await env.client.patch(
      MachineHealthChecks,
      { namespace: ns, name: 'mhc' },
      { type: 'merge', body: { spec: { maxUnhealthy: '100%' } } },
    );
    await eventually(async () => JSON.stringify(await names()) === '["ok"]');
    await eventually(async () => (await metric('mapi_machinehealthcheck_short_circuit')) === 0);
  });

  it('short-circuited, sets its recheck delay by how long that has lasted, not by how many events a burst brought', async () => {
    const delays: number[] = [];
    const capture: Logger = {
      error() {},
      info() {},
      debug() {},
      // A warning, as the reference logs it: remediation is being withheld from unhealthy Machines.
      warn(msg: string, fields?: LogFields) {
        if (msg === 'short-circuiting remediation') delays.push(fields?.requeueAfterMs as number);
      },
      child: () => capture,
    };
    await machine('sick-1', { node: 'False', since: 10 * MIN });
    await machine('sick-2', { node: 'False', since: 10 * MIN });
    start({ shortCircuitBackoff: { baseMs: 30_000, maxMs: 5 * MIN } }, capture);
    await mhc({ maxUnhealthy: 1 });
    await eventsFor('RemediationRestricted');
    for (let i = 0; i < 8; i++) {
      const seen = delays.length;
      await poke(i);
      await eventually(() => delays.length > seen, { what: `short-circuited pass ${i}` });
    }
    // Counting passes, the ninth would wait 30 s × 2^8, capped at 5 min; a few seconds in, it is still 30 s.
    expect(delays.length).to.be.at.least(9);
    expect(new Set(delays)).to.deep.equal(new Set([30_000]));
  });

  it('remediates a node-less machine once nodeStartupTimeout has passed since status.lastUpdated, and leaves one still starting alone', async () => {
    await machine('stuck', { node: 'none', lastUpdated: ago(11 * MIN) });
    await machine('booting', { node: 'none', lastUpdated: ago(1 * MIN) });
    start();
    await mhc({ nodeStartupTimeout: '10m' });
    await eventually(async () => JSON.stringify(await names()) === '["booting"]');
    const [ev] = await eventsFor('MachineDeleted');
    expect(ev!.message).to.equal(
      `Machine ${ns}/mhc/stuck (no node) has been remediated by requesting to delete Machine object`,
    );
    await settle(100);
    expect(
      await events(env.client, ns, 'DetectedUnhealthy'),
      'a machine inside its startup window is not unhealthy',
    ).to.deep.equal([]);
  });

  it('counts machines waiting for their node as neither healthy nor unhealthy: no DetectedUnhealthy, no short-circuit', async () => {
    await machine('new-1', { node: 'none', lastUpdated: ago(5_000) });
    await machine('new-2', { node: 'none', lastUpdated: ago(1_000) });
    await machine('new-3', { node: 'none', lastUpdated: ago(0) });
    start();
    await mhc({ maxUnhealthy: 0, nodeStartupTimeout: '10m' });
    const cur = await eventually(async () => {
      const m = await getMHC();
      return m.status?.expectedMachines === 3 && m;
    });
    expect(cur.status).to.deep.include({ expectedMachines: 3, currentHealthy: 0, remediationsAllowed: 0 });
    expect(cur.status?.conditions?.map((c) => [c.type, c.status])).to.deep.equal([['RemediationAllowed', 'True']]);
    for (let i = 0; i < 3; i++) {
      await poke(i);
      await settle(60);
    }
    expect(await events(env.client, ns, 'DetectedUnhealthy')).to.deep.equal([]);
    expect(await events(env.client, ns, 'RemediationRestricted')).to.deep.equal([]);
    expect(await metric('mapi_machinehealthcheck_short_circuit')).to.equal(0);
    expect(await names()).to.deep.equal(['new-1', 'new-2', 'new-3']);
  });

  it('never remediates a node-less machine when the startup check is disabled', async () => {
    await machine('stuck', { node: 'none', lastUpdated: ago(60 * MIN) });
    start();
    await mhc({ nodeStartupTimeout: '0' });
    await eventually(async () => (await getMHC()).status?.expectedMachines === 1);
    await settle(150);
    expect(await names()).to.deep.equal(['stuck']);
    // Not counted healthy either, as in the reference.
    expect((await getMHC()).status?.currentHealthy).to.equal(0);
  });

  it('remediates a machine whose node is gone, a Failed machine, and a control-plane machine like any other', async () => {
    await machine('ghost', { node: 'missing' });
    await machine('failed', { phase: 'Failed' });
    await machine('master', {
      node: 'False',
      since: 10 * MIN,
      labels: { ...SELECTED, 'machine.openshift.io/cluster-api-machine-role': 'master' },
    });
    await machine('fine');
    start();
    await mhc();
    await eventually(async () => JSON.stringify(await names()) === '["fine"]');
    await eventually(async () => (await metric('mapi_machinehealthcheck_remediation_success_total')) === 3);
  });

  it('does nothing while paused', async () => {
    await machine('sick', { node: 'False', since: 10 * MIN });
    start();
    await mhc({}, { 'cluster.x-k8s.io/paused': '' });
    await settle(300);
    expect((await getMHC()).status ?? {}).to.not.have.property('expectedMachines');
    expect(await names()).to.deep.equal(['sick']);
  });

  it('asks for external bare-metal remediation by annotating the machine, but deletes a Failed one', async () => {
    await machine('sick', { node: 'False', since: 10 * MIN });
    await machine('failed', { phase: 'Failed' });
    start();
    await mhc({}, { 'machine.openshift.io/remediation-strategy': 'external-baremetal' });
    await eventually(async () => {
      const m = await env.client.get(Machines, { namespace: ns, name: 'sick' });
      return m.metadata.annotations?.['host.metal3.io/external-remediation'] === '';
    });
    const [ev] = await eventsFor('ExternalAnnotationAdded');
    expect(ev!.message).to.equal(
      `Requesting external remediation of node associated with machine ${ns}/mhc/sick/${ns}-sick`,
    );
    await eventually(async () => JSON.stringify(await names()) === '["sick"]');
    // A machine under external remediation is not counted healthy.
    await eventually(async () => (await getMHC()).status?.currentHealthy === 0);
  });

  it('creates an external remediation request from the template and removes it when the machine recovers', async () => {
    await machine('sick', { node: 'False', since: 10 * MIN });
    start();
    await mhc({
      remediationTemplate: {
        apiVersion: 'remediation.example.com/v1alpha1',
        kind: 'TestRemediationTemplate',
        name: 'reboot',
      },
    });
    // No template yet: the failure is visible on status (the reference never persisted it).
    const cond = await eventually(async () =>
      (await getMHC()).status?.conditions?.find((c) => c.type === 'ExternalRemediationTemplateAvailable'),
    );
    expect(cond).to.deep.include({ status: 'False', reason: 'ExternalRemediationTemplateNotFound', severity: 'Error' });

    await env.client.create(Templates, {
      apiVersion: 'remediation.example.com/v1alpha1',
      kind: 'TestRemediationTemplate',
      metadata: { name: 'reboot', namespace: ns },
      spec: { template: { spec: { strategy: 'Reboot' } } },
    });
    const req = await eventually(() => env.client.get(Requests, { namespace: ns, name: 'sick' }), {
      timeoutMs: 15_000,
    });
    const sick = await env.client.get(Machines, { namespace: ns, name: 'sick' });
    expect(req.spec).to.deep.equal({ strategy: 'Reboot' });
    expect(req.metadata.annotations).to.deep.equal({
      'machine.openshift.io/cloned-from-name': 'reboot',
      'machine.openshift.io/cloned-from-groupkind': 'TestRemediationTemplate.remediation.example.com',
    });
    expect(req.metadata.ownerReferences).to.deep.equal([
      { apiVersion: 'machine.openshift.io/v1beta1', kind: 'Machine', name: 'sick', uid: sick.metadata.uid },
    ]);
    const status = await eventually(async () => {
      const m = await getMHC();
      return (
        m.status?.conditions?.find((c) => c.type === 'ExternalRemediationRequestAvailable')?.status === 'True' &&
        m.status
      );
    });
    expect(status.conditions?.find((c) => c.type === 'ExternalRemediationTemplateAvailable')?.status).to.equal('True');
    expect(await names()).to.deep.equal(['sick']);

    await env.client.patch(
      Nodes,
      { name: `${ns}-sick` },
      {
        type: 'merge',
        body: { status: { conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: ago(0) }] } },
      },
      { subresource: 'status' },
    );
    await eventually(async () => {
      try {
        const r = await env.client.get(Requests, { namespace: ns, name: 'sick' });
        return !!r.metadata.deletionTimestamp;
      } catch {
        return true;
      }
    });
  });

  it('removes its metric series when the MHC is deleted', async () => {
    await machine('a');
    start();
    await mhc();
    await eventually(async () => (await metric('mapi_machinehealthcheck_nodes_covered')) === 1);
    await env.client.delete(MachineHealthChecks, { namespace: ns, name: 'mhc' });
    await eventually(async () => (await metric('mapi_machinehealthcheck_nodes_covered')) === undefined);
    expect(await metric('mapi_machinehealthcheck_short_circuit')).to.equal(undefined);
  });

  describe('machine.openshift.io/max-in-flight', () => {
    const sick = (name: string) => machine(name, { node: 'False', since: 10 * MIN, finalizers: ['test/hold'] });
    const deleting = async () =>
      (await env.client.list(Machines, { namespace: ns })).items.filter((m) => m.metadata.deletionTimestamp);
    const release = (name: string) =>
      env.client.patch(Machines, { namespace: ns, name }, { type: 'merge', body: { metadata: { finalizers: null } } });

    it('remediates one at a time with max-in-flight 1, marks what it deleted, and says who waits', async () => {
      await machine('healthy');
      await sick('sick-1');
      await sick('sick-2');
      await sick('sick-3');
      start();
      await mhc({}, { 'machine.openshift.io/max-in-flight': '1' });
      const [first] = await eventually(async () => {
        const d = await deleting();
        return d.length === 1 && d;
      });
      expect(first?.metadata.annotations?.['machine.openshift.io/remediated-by']).to.equal('mhc');
      const held = await eventually(async () =>
        (await getMHC()).status?.conditions?.find(
          (c) => c.type === 'RemediationInFlightAllowed' && c.status === 'False',
        ),
      );
      expect(held).to.deep.include({ reason: 'MaxInFlightReached', severity: 'Info' });
      expect(held.message).to.match(/^1 remediation in flight, max-in-flight 1; waiting: sick-\d, sick-\d$/);
      const [deferred] = await eventsFor('RemediationDeferred');
      expect(deferred?.message).to.match(/^Remediation of 2 unhealthy Machines deferred: 1 remediation in flight/);
      expect(await metric('mapi_machinehealthcheck_remediations_held_back_total')).to.equal(2);
      // Still one while the first is being deleted, whatever wakes the MHC.
      await poke(1);
      await settle();
      expect((await deleting()).length).to.equal(1);
      // Gone (its MachineSet wants no replacement): the next one goes.
      await release(first!.metadata.name ?? '');
      const second = await eventually(async () => {
        const d = await deleting();
        return d.length === 1 && d[0]!.metadata.name !== first!.metadata.name && d[0];
      });
      await release(second.metadata.name ?? '');
      const third = await eventually(async () => {
        const d = await deleting();
        return d.length === 1 && d[0]!.metadata.name !== second.metadata.name && d[0];
      });
      await release(third.metadata.name ?? '');
      await eventually(async () => JSON.stringify(await names()) === '["healthy"]');
      await eventually(
        async () =>
          (await getMHC()).status?.conditions?.find((c) => c.type === 'RemediationInFlightAllowed')?.status === 'True',
      );
    });

    it('refuses an unreadable value, naming the annotation, and remediates nothing', async () => {
      await sick('sick-1');
      start();
      await mhc({}, { 'machine.openshift.io/max-in-flight': 'a few' });
      const [ev] = await eventsFor('ReconcileError');
      expect(ev?.message).to.equal(
        'metadata.annotations.machine.openshift.io/max-in-flight: Invalid value: "a few": must be an integer or a percentage such as "2" or "20%"',
      );
      expect((await deleting()).length).to.equal(0);
    });

    it('counts requests from a remediation template as in flight', async () => {
      await env.client.create(Templates, {
        apiVersion: 'remediation.example.com/v1alpha1',
        kind: 'TestRemediationTemplate',
        metadata: { name: 'reboot', namespace: ns },
        spec: { template: { spec: { strategy: 'Reboot' } } },
      });
      await machine('sick-1', { node: 'False', since: 10 * MIN });
      await machine('sick-2', { node: 'False', since: 10 * MIN });
      start();
      await mhc(
        {
          remediationTemplate: {
            apiVersion: 'remediation.example.com/v1alpha1',
            kind: 'TestRemediationTemplate',
            name: 'reboot',
          },
        },
        { 'machine.openshift.io/max-in-flight': '1' },
      );
      await eventually(async () =>
        (await getMHC()).status?.conditions?.find(
          (c) => c.type === 'RemediationInFlightAllowed' && c.status === 'False',
        ),
      );
      await poke(1);
      await settle();
      const requests = (await env.client.list(Requests, { namespace: ns })).items;
      expect(requests).to.have.length(1);
    });
  });
});
