// A MachineHealthCheck with machine.openshift.io/max-in-flight on the local control plane, with the machine,
// MachineSet and NodeLink controllers, the FakeActuator as the cloud and the KubeletSimulator as its kubelets:
// 6 of 10 Nodes go NotReady at once, and the MHC never has more than 2 remediations in flight, yet replaces all 6.
import { expect } from 'chai';
import { MachineClusterIDLabel } from '../../../lib/apis/constants.js';
import type { Machine } from '../../../lib/apis/machine-types.js';
import { RealClock } from '../../../lib/base/real-clock.js';
import { Events, MachineHealthChecks, Machines, MachineSets, Nodes } from '../../../lib/client/resources.js';
import { addMachineHealthCheckController } from '../../../lib/healthcheck/machinehealthcheck-controller.js';
import { addMachineSetController } from '../../../lib/machineset/machineset-controller.js';
import type { KubeletSimulator } from '../../../sim/kit/kubelet-simulator.js';
import { eventually } from '../../../sim/kit/provider-test-bed.js';
import type { TestEnv } from '../../../sim/kit/test-env.js';
import { startMachineStack, type MachineStack } from '../machine/machine-stack.js';

const NS = 'openshift-machine-api';
const LABELS = { [MachineClusterIDLabel]: 'test-cluster', 'machine.openshift.io/cluster-api-machineset': 'workers' };

describe('MachineHealthCheck max-in-flight on the local control plane', function () {
  this.timeout(120_000);
  let stack: MachineStack;
  let env: TestEnv;
  let kubelet: KubeletSimulator;

  before(async () => {
    stack = await startMachineStack({
      actuator: { clock: new RealClock(), bootDelayMs: 400, terminateDelayMs: 300 },
      kubelet: { heartbeatMs: 0 },
      extra: (mgr) => {
        addMachineSetController(mgr, { coalesceMs: 50 });
        addMachineHealthCheckController(mgr);
      },
    });
    ({ env, kubelet } = stack);
  });

  after(async () => {
    await stack?.stop();
  });

  it('6 of 10 Nodes NotReady, max-in-flight 2: never more than 2 remediations in flight, all 6 replaced', async () => {
    await env.client.create(MachineSets, {
      apiVersion: 'machine.openshift.io/v1beta1',
      kind: 'MachineSet',
      metadata: { name: 'workers', namespace: NS },
      spec: {
        replicas: 10,
        selector: { matchLabels: LABELS },
        template: { metadata: { labels: LABELS }, spec: { providerSpec: { value: { instanceType: 'fake.large' } } } },
      },
    });
    const readyNodeOf = async (): Promise<Map<string, boolean>> => {
      const nodes = (await env.client.list(Nodes)).items;
      return new Map(
        nodes.map((n) => [
          n.metadata.name ?? '',
          n.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false,
        ]),
      );
    };
    const machines = async (): Promise<Machine[]> => (await env.client.list(Machines, { namespace: NS })).items;
    const first = await eventually(
      '10 Machines with Ready Nodes',
      async () => {
        const ms = await machines();
        const ready = await readyNodeOf();
        const linked = ms.filter((m) => ready.get(m.status?.nodeRef?.name ?? '') === true);
        return linked.length === 10 ? linked : undefined;
      },
      30_000,
    );
    const original = new Set(first.map((m) => m.metadata.name ?? ''));

    await env.client.create(MachineHealthChecks, {
      apiVersion: 'machine.openshift.io/v1beta1',
      kind: 'MachineHealthCheck',
      metadata: { name: 'workers', namespace: NS, annotations: { 'machine.openshift.io/max-in-flight': '2' } },
      spec: {
        selector: { matchLabels: LABELS },
        unhealthyConditions: [
          { type: 'Ready', status: 'False', timeout: '1s' },
          { type: 'Ready', status: 'Unknown', timeout: '1s' },
        ],
        maxUnhealthy: '100%',
        nodeStartupTimeout: '5m',
      },
    });
    const victims = first.slice(0, 6);
    const victimNames = new Set(victims.map((m) => m.metadata.name ?? ''));
    for (const m of victims) await kubelet.setNodeReady(m.status?.nodeRef?.name ?? '', 'False');

    // In flight as an outsider sees it: victims deleted so far, less new Machines whose Node is Ready.
    let maxInFlight = 0;
    let sawHeldBack = false;
    const deleted = new Set<string>();
    await eventually(
      'all 6 replaced by Machines with Ready Nodes',
      async () => {
        const ms = await machines();
        const ready = await readyNodeOf();
        const present = new Set(ms.map((m) => m.metadata.name ?? ''));
        for (const m of ms)
          if (victimNames.has(m.metadata.name ?? '') && m.metadata.deletionTimestamp)
            deleted.add(m.metadata.name ?? '');
        for (const v of victimNames) if (!present.has(v)) deleted.add(v);
        const replaced = ms.filter(
          (m) => !original.has(m.metadata.name ?? '') && ready.get(m.status?.nodeRef?.name ?? '') === true,
        ).length;
        maxInFlight = Math.max(maxInFlight, deleted.size - replaced);
        const mhc = await env.client.get(MachineHealthChecks, { namespace: NS, name: 'workers' });
        const c = mhc.status?.conditions?.find((x) => x.type === 'RemediationInFlightAllowed');
        if (c?.status === 'False') sawHeldBack = true;
        return deleted.size === 6 && replaced >= 6 && ms.length === 10;
      },
      { timeoutMs: 90_000, intervalMs: 20 },
    );
    expect(maxInFlight).to.be.at.most(2);
    expect(maxInFlight, 'remediations did run side by side').to.be.at.least(1);
    expect(sawHeldBack, 'the MHC said that Machines waited').to.equal(true);
    const survivors = (await machines()).filter((m) => original.has(m.metadata.name ?? ''));
    expect(survivors.map((m) => m.metadata.name).sort()).to.deep.equal(
      first
        .slice(6)
        .map((m) => m.metadata.name)
        .sort(),
    );
    const deferred = (await env.client.list(Events, { namespace: NS })).items.filter(
      (e) => e.reason === 'RemediationDeferred' && e.involvedObject.name === 'workers',
    );
    expect(deferred.length).to.be.greaterThan(0);
    for (const e of deferred)
      expect(e.message).to.match(
        /^Remediation of \d unhealthy Machines? deferred: 2 remediations in flight, max-in-flight 2; waiting: /,
      );
    const final = await env.client.get(MachineHealthChecks, { namespace: NS, name: 'workers' });
    await eventually('condition back to True', async () => {
      const m = await env.client.get(MachineHealthChecks, { namespace: NS, name: 'workers' });
      return m.status?.conditions?.find((x) => x.type === 'RemediationInFlightAllowed')?.status === 'True';
    });
    expect(final.metadata.annotations?.['machine.openshift.io/max-in-flight']).to.equal('2');
  });
});
