// steady-N (the adopted steady state): the world seeded before the binaries start (the shapes the controllers
// would have left), and the targets its figures are held to.
import { expect } from 'chai';
import type { MachineSet, Node } from '../../lib/index.js';
import { templateHash } from '../../lib/machineset/template-hash.js';
import { adoptedMachine, adoptedSetStatus, adoptedSpecPatch, adoptedStatus, shares } from '../../hack/bench/adopted.js';
import { requestCountsOf } from '../../hack/bench/envtest-requests.js';
import { QUICK } from '../../hack/bench/plans.js';
import { CONTROL_PLANE, SIMULATION_CPU } from '../../hack/bench/process-names.js';
import { awsBench } from '../../hack/bench/providers.js';
import { evaluateTargets, SteadyAdoptedLimits, type Target } from '../../hack/bench/report.js';
import { machineSet } from '../../hack/bench/workload.js';
import type { AdoptedInstance } from '../../sim/kit/bench-cloud.js';

const created = (): MachineSet => {
  const set = machineSet('adopted-5000', 5000);
  return { ...set, metadata: { ...set.metadata, uid: 'set-uid', generation: 3 } };
};

const instance: AdoptedInstance = {
  machine: 'adopted-5000-00001',
  providerID: 'aws:///us-east-1a/i-0abc',
  labels: { 'machine.openshift.io/zone': 'us-east-1a' },
  annotations: { 'machine.openshift.io/instance-state': 'running' },
  addresses: [{ type: 'InternalIP', address: '10.0.0.1' }],
  providerStatus: { instanceId: 'i-0abc', instanceState: 'running' },
};

describe('steady-N seeding (adopted Machines)', () => {
  it('makes each Machine as the MachineSet controller would: owned by the set, its template, hash and finalizer', () => {
    const set = created();
    const m = adoptedMachine(set, 35);
    expect(m.metadata.name).to.equal('adopted-5000-0000z');
    expect(m.metadata.namespace).to.equal('openshift-machine-api');
    expect(m.metadata.finalizers).to.deep.equal(['machine.machine.openshift.io']);
    expect(m.metadata.ownerReferences).to.deep.equal([
      {
        apiVersion: 'machine.openshift.io/v1beta1',
        kind: 'MachineSet',
        name: 'adopted-5000',
        uid: 'set-uid',
        controller: true,
        blockOwnerDeletion: true,
      },
    ]);
    expect(m.metadata.labels).to.include({
      'machine.openshift.io/cluster-api-machineset': 'adopted-5000',
      'machine.openshift.io/template-hash': templateHash(set),
    });
    expect(m.spec?.providerSpec?.value).to.deep.equal(awsBench.providerSpec());
  });

  it("writes the provider's record on the Machine's metadata and spec, and a Running, linked status", () => {
    expect(adoptedSpecPatch(instance)).to.deep.equal({
      metadata: { labels: instance.labels, annotations: instance.annotations },
      spec: { providerID: 'aws:///us-east-1a/i-0abc' },
    });
    const node: Node = { apiVersion: 'v1', kind: 'Node', metadata: { name: 'ip-10-0-0-1', uid: 'node-uid' } };
    const status = adoptedStatus(instance, node, Date.parse('2026-11-28T10:00:00.123Z'));
    expect(status).to.deep.include({
      phase: 'Running',
      providerStatus: instance.providerStatus,
      addresses: instance.addresses,
      nodeRef: { kind: 'Node', name: 'ip-10-0-0-1', uid: 'node-uid' },
      lastUpdated: '2026-11-28T10:00:00Z',
    });
    expect(status?.conditions?.map((c) => `${c.type}=${c.status}`)).to.deep.equal([
      'Drainable=True',
      'InstanceExists=True',
      'Terminable=True',
    ]);
  });

  it("spreads the Machines over the zones' MachineSets as evenly as they go", () => {
    expect(shares(5000, 3)).to.deep.equal([1667, 1667, 1666]);
    expect(shares(2, 3)).to.deep.equal([1, 1, 0]);
    expect(shares(200, 1)).to.deep.equal([200]);
  });

  it('gives the MachineSet a status with every replica ready and up to date', () => {
    const status = adoptedSetStatus(created(), 5000, 0);
    expect(status).to.deep.include({ replicas: 5000, readyReplicas: 5000, availableReplicas: 5000 });
    expect(status?.observedGeneration).to.equal(3);
    expect(status?.labelSelector).to.equal(
      'machine.openshift.io/cluster-api-cluster=bench,machine.openshift.io/cluster-api-machineset=adopted-5000',
    );
    expect(status?.conditions?.[0]).to.include({ type: 'UpToDate', message: '5000 Machines match the template' });
  });
});

describe('the control plane process: requests per client from its /metrics', () => {
  it('keys them as the in-process count does', () => {
    const text = [
      '# TYPE machine_api_envtest_requests_total counter',
      'machine_api_envtest_requests_total{client="nodelink-controller",verb="patch",resource="machines/status"} 3',
      'machine_api_envtest_requests_total{client="kubelet-simulator",verb="list",resource="nodes"} 1',
      'process_cpu_seconds_total 12.5',
    ].join('\n');
    expect([...requestCountsOf(text)]).to.deep.equal([
      ['nodelink-controller|patch machines/status', 3],
      ['kubelet-simulator|list nodes', 1],
    ]);
  });
});

describe('steady-N targets', () => {
  const find = (ts: Target[], prefix: string) => ts.find((t) => t.name.startsWith(prefix));
  const scenario = (over: Record<string, unknown> = {}) => ({
    name: 'steady-5000',
    provider: 'aws',
    metrics: {
      machines: 5000,
      ec2CallsPerMachinePerResync: 0.001,
      reconcilesPerMachinePerResync: { 'machine-controller': 1, 'nodelink-controller': 0.5 },
      kubeWritesPerResync: 0,
      peakRssMb: { 'machine-api-provider-aws': 300, [CONTROL_PLANE]: 900, [SIMULATION_CPU]: 1200 },
      peakHeapUsedMb: { 'machine-api-provider-aws': 160, [CONTROL_PLANE]: 800 },
      heapLimitMb: { 'machine-api-provider-aws': 240, [CONTROL_PLANE]: 1000 },
      ...over,
    },
  });
  const targets = (over?: Record<string, unknown>) =>
    evaluateTargets([scenario(over)], { largest: 0, limits: QUICK.limits, cloud: awsBench });

  it('are met by a cluster that costs one listing, one reconcile and no write per resync', () => {
    const t = targets();
    expect(find(t, 'steady-5000: EC2 calls')).to.include({ value: 0.001, limit: 0.005, met: true });
    expect(find(t, 'steady-5000: reconciles')).to.include({ value: 1, limit: 1, met: true });
    expect(find(t, 'steady-5000: reconciles')?.name).to.contain('machine-controller');
    expect(find(t, 'steady-5000: Kubernetes writes')).to.include({ value: 0, limit: 0, met: true });
    // The control plane's 80 % is the simulation's, not held to the Deployment's limit.
    expect(find(t, 'steady-5000: peak V8 heap')).to.include({ value: 0.667, met: true });
    expect(find(t, 'steady-5000: provider peak RSS')).to.include({ value: 300, limit: 350, met: true });
  });

  it('are missed by a write, a second reconcile, a call per Machine, a full heap or a large provider', () => {
    const t = targets({
      ec2CallsPerMachinePerResync: 1,
      reconcilesPerMachinePerResync: { 'nodelink-controller': 2 },
      kubeWritesPerResync: 1,
      peakRssMb: { 'machine-api-provider-aws': 400 },
      peakHeapUsedMb: { 'machine-api-provider-aws': 200 },
    });
    for (const prefix of ['EC2 calls', 'reconciles', 'Kubernetes writes', 'peak V8 heap', 'provider peak RSS'])
      expect(find(t, `steady-5000: ${prefix}`)?.met, prefix).to.equal(false);
    expect(find(t, 'steady-5000: reconciles')?.name).to.contain('nodelink-controller');
  });

  it('allow one listing a resync on a cloud whose pages are small (VPC: 100 a page), and no more', () => {
    const vpc = { metricPrefix: 'vpc', cloudLabel: 'VPC', listingPageSize: 100 };
    const at200 = (calls: number) =>
      evaluateTargets(
        [{ name: 'steady-200', provider: 'ibmcloud', metrics: { machines: 200, vpcCallsPerMachinePerResync: calls } }],
        { largest: 0, limits: QUICK.limits, cloud: vpc },
      );
    expect(find(at200(0.01), 'steady-200: VPC calls')).to.include({
      name: 'steady-200: VPC calls per machine per resync (one listing: 2 pages)',
      limit: 0.01,
      met: true,
    });
    expect(find(at200(0.015), 'steady-200: VPC calls')?.met).to.equal(false);
    // EC2's 1,000 a page leave the 5,000-Machine limit as it is.
    expect(find(targets(), 'steady-5000: EC2 calls')).to.include({ limit: 0.005 });
  });

  it('say nothing is met when the scenario did not run', () => {
    const t = evaluateTargets([], { largest: 0, limits: QUICK.limits, cloud: awsBench });
    const adopted = t.filter((x) => /^steady-(\d+|N):/.test(x.name));
    expect(adopted).to.have.length(5);
    expect(adopted.every((x) => x.value === null && !x.met)).to.equal(true);
    expect(SteadyAdoptedLimits.providerRssMb).to.equal(350);
  });
});
