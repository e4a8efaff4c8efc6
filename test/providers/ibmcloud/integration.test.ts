// The IBM Cloud provider binary's wiring, in-process: the local control plane, the VPC emulator, the kubelet
// simulator, the machine + drain + NodeLink + scale-from-zero controllers from wireIbmCloudProvider, and the
// MachineSet controller (its own binary in production) on one manager.
import { expect } from 'chai';
import {
  MachineSets,
  Machines,
  Namespaces,
  Nodes,
  Secrets,
  addMachineSetController,
  isNotFound,
  type KubeClient,
  type Machine,
  type MachineSet,
  type Manager,
} from '../../../lib/index.js';
import { KubeletSimulator, startTestEnv, type TestEnv } from '../../../lib/testing/index.js';
import { wireIbmCloudProvider } from '../../../cmd/machine-api-provider-ibmcloud.js';
import { startIbmVpcEmulator, type IbmVpcEmulator } from '../../../providers/ibmcloud/emulator/index.js';
import { CLUSTER_ID, NAMESPACE, defaultSecrets, ibmSpec } from './fixtures.js';

async function eventually<T>(what: string, probe: () => Promise<T | undefined | false>, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await probe();
      if (v !== undefined && v !== false) return v;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}${last ? `: ${(last as Error).message}` : ''}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

const machineSet = (name: string, replicas: number, spec: Record<string, unknown> = ibmSpec()): MachineSet => ({
  apiVersion: 'machine.openshift.io/v1beta1',
  kind: 'MachineSet',
  metadata: { name, namespace: NAMESPACE, labels: { 'machine.openshift.io/cluster-api-cluster': CLUSTER_ID } },
  spec: {
    replicas,
    selector: { matchLabels: { 'machine.openshift.io/cluster-api-machineset': name } },
    template: {
      metadata: { labels: { 'machine.openshift.io/cluster-api-machineset': name, 'machine.openshift.io/cluster-api-cluster': CLUSTER_ID } },
      spec: { providerSpec: { value: spec } },
    },
  },
});

const newMachine = (name: string, spec: Record<string, unknown> = ibmSpec()): Machine => ({
  apiVersion: 'machine.openshift.io/v1beta1',
  kind: 'Machine',
  metadata: { name, namespace: NAMESPACE, labels: { 'machine.openshift.io/cluster-api-cluster': CLUSTER_ID } },
  spec: { providerSpec: { value: spec } },
});

async function machinesOf(client: KubeClient, set: string): Promise<Machine[]> {
  return (await client.list(Machines, { namespace: NAMESPACE, labelSelector: `machine.openshift.io/cluster-api-machineset=${set}` })).items;
}

async function getMachine(client: KubeClient, name: string): Promise<Machine | undefined> {
  try {
    return await client.get(Machines, { namespace: NAMESPACE, name });
  } catch (err) {
    if (isNotFound(err)) return undefined;
    throw err;
  }
}

describe('machine-api-provider-ibmcloud on the local control plane and the VPC emulator', function () {
  this.timeout(120_000);
  let env: TestEnv;
  let emu: IbmVpcEmulator;
  let kubelet: KubeletSimulator;
  let mgr: Manager;
  let stop: AbortController;
  let running: Promise<void>;

  const instancesOf = (m: Machine) => emu.instances().filter((i) => i.name === m.metadata.name);
  const live = (m: Machine) => instancesOf(m).filter((i) => i.status !== 'deleting');

  function startManager(): void {
    mgr = env.newManager({ syncPeriodMs: 60_000 });
    wireIbmCloudProvider(mgr, env.client, {
      endpoints: { vpc: emu.endpoint, iam: emu.iamEndpoint, resourceManager: emu.resourceManagerEndpoint, globalTagging: emu.globalTaggingEndpoint },
      retry: { retries: 2, minTimeoutMs: 2, maxTimeoutMs: 20 },
      batchWindowMs: 2,
      maxConcurrentReconciles: 5,
      machineController: {
        requeueAfterMs: 200,
        rateLimiter: { baseDelayMs: 10, maxDelayMs: 500 },
        drainRateLimiter: { baseDelayMs: 50, maxDelayMs: 500 },
        drain: { timeoutMs: 1_000, evictionRetryBaseMs: 50, evictionRetryMaxMs: 200, podPollIntervalMs: 50 },
      },
      actuator: { requeueAfterMs: 200 },
    });
    addMachineSetController(mgr, { maxConcurrentReconciles: 2 });
    stop = new AbortController();
    running = mgr.start(stop.signal);
  }

  async function stopManager(): Promise<void> {
    stop.abort();
    await running.catch(() => undefined);
  }

  before(async () => {
    env = await startTestEnv();
    emu = await startIbmVpcEmulator({ clusterId: CLUSTER_ID, timings: { provisionMs: 20, bootMs: 50, deleteMs: 50, stopMs: 50 } });
    await env.client.create(Namespaces, { metadata: { name: NAMESPACE } });
    for (const s of defaultSecrets(emu.apiKey)) await env.client.create(Secrets, s);
    kubelet = new KubeletSimulator({ client: env.client, view: emu.instanceView() });
    await kubelet.start();
    startManager();
  });

  after(async () => {
    await kubelet?.stop();
    await stopManager().catch(() => undefined);
    await emu?.stop();
    await env?.stop();
  });

  it('brings a MachineSet of 3 to 3 Running machines with nodes, providerIDs, addresses, labels, annotations and tags', async () => {
    await env.client.create(MachineSets, machineSet('workers', 3, ibmSpec({ tags: [{ name: 'environment', value: 'test' }, { name: 'team' }] })));
    const machines = await eventually('3 Running machines', async () => {
      const ms = await machinesOf(env.client, 'workers');
      return ms.length === 3 && ms.every((m) => m.status?.phase === 'Running') ? ms : undefined;
    });
    for (const m of machines) {
      expect(live(m), m.metadata.name).to.have.length(1);
      const inst = live(m)[0]!;
      expect(m.spec?.providerID).to.equal(`ibm://${emu.accountId}///${CLUSTER_ID}/${inst.id}`);
      expect(m.status?.addresses).to.deep.include({ type: 'InternalIP', address: inst.primary_network_interface?.primary_ip?.address });
      expect(m.status?.addresses).to.deep.include({ type: 'InternalDNS', address: m.metadata.name });
      expect(m.status?.addresses?.some((a) => a.address === '0.0.0.0'), 'no unallocated address').to.equal(false);
      expect(m.metadata.labels).to.include({
        'machine.openshift.io/region': 'us-south',
        'machine.openshift.io/zone': 'us-south-1',
        'machine.openshift.io/instance-type': 'bx2-4x16',
      });
      expect(m.metadata.annotations?.['machine.openshift.io/instance-state']).to.equal('running');
      expect(m.status?.providerStatus).to.deep.include({ instanceId: inst.id, instanceState: 'running' });
      const node = await env.client.get(Nodes, { name: m.status?.nodeRef?.name ?? '' });
      expect(node.spec?.providerID).to.equal(m.spec?.providerID);
      await eventually(`tags on ${m.metadata.name}`, async () => (emu.world.tags[inst.crn] ?? []).includes('environment:test') && (emu.world.tags[inst.crn] ?? []).includes('team'));
    }
    const ms = await eventually('scale-from-zero annotations', async () => {
      const s = await env.client.get(MachineSets, { namespace: NAMESPACE, name: 'workers' });
      return s.metadata.annotations?.['machine.openshift.io/vCPU'] ? s : undefined;
    });
    expect(ms.metadata.annotations).to.include({ 'machine.openshift.io/vCPU': '4', 'machine.openshift.io/memoryMb': '16384', 'machine.openshift.io/GPU': '0' });
    // Names were resolved once for the whole MachineSet, not per Machine.
    expect(emu.knobs.counts('ListImages').total).to.equal(1);
    expect(emu.knobs.counts('ListSubnets').total).to.equal(1);
    expect(emu.knobs.counts('GetRegion').total, 'an endpoint override needs no region look-up').to.equal(0);
  });

  it('scales to 1: the removed machines are drained, their instances deleted once and their nodes removed', async () => {
    const before = await machinesOf(env.client, 'workers');
    const deletesBefore = emu.knobs.counts('DeleteInstance').total;
    await env.client.patch(MachineSets, { namespace: NAMESPACE, name: 'workers' }, { type: 'merge', body: { spec: { replicas: 1 } } });
    const remaining = await eventually('1 machine left', async () => {
      const ms = await machinesOf(env.client, 'workers');
      return ms.length === 1 ? ms : undefined;
    });
    const removed = before.filter((m) => m.metadata.uid !== remaining[0]!.metadata.uid);
    expect(removed).to.have.length(2);
    for (const m of removed) {
      expect(instancesOf(m), `${m.metadata.name} instance`).to.have.length(0);
      await eventually(`node of ${m.metadata.name} gone`, async () => {
        try {
          await env.client.get(Nodes, { name: m.status?.nodeRef?.name ?? '' });
          return false;
        } catch (err) {
          return isNotFound(err);
        }
      });
    }
    expect(emu.knobs.counts('DeleteInstance').total - deletesBefore, 'DELETE is not re-issued while the instance is deleting').to.equal(2);
    expect(live(remaining[0]!)).to.have.length(1);
  });

  it('fails a Running machine whose instance was deleted out of band, as the reference does', async () => {
    await env.client.create(Machines, newMachine('oob-1'));
    const m = await eventually('oob-1 Running', async () => {
      const x = await getMachine(env.client, 'oob-1');
      return x?.status?.phase === 'Running' ? x : undefined;
    });
    emu.terminateOutOfBand(live(m)[0]!.id);
    const failed = await eventually('oob-1 Failed', async () => {
      const x = await getMachine(env.client, 'oob-1');
      return x?.status?.phase === 'Failed' ? x : undefined;
    });
    expect(failed.status?.errorMessage).to.equal("can't find created instance");
    expect(instancesOf(m)).to.have.length(0);
  });

  it('fails a machine with an invalid spec, naming the field, and creates nothing', async () => {
    const created = await env.client.create(Machines, newMachine('invalid-1', ibmSpec({ bootVolume: { profile: 'general-purpose', iops: 3000 } })));
    const failed = await eventually('invalid-1 Failed', async () => {
      const x = await getMachine(env.client, 'invalid-1');
      return x?.status?.phase === 'Failed' ? x : undefined;
    });
    expect(failed.status?.errorReason).to.equal('InvalidConfiguration');
    expect(failed.status?.errorMessage).to.contain('spec.providerSpec.value.bootVolume.iops');
    expect(instancesOf(created)).to.have.length(0);
  });

  it('fails a machine whose subnet does not exist, naming the field, and creates nothing', async () => {
    const created = await env.client.create(Machines, newMachine('invalid-2', ibmSpec({ primaryNetworkInterface: { subnet: 'no-such-subnet' } })));
    const failed = await eventually('invalid-2 Failed', async () => {
      const x = await getMachine(env.client, 'invalid-2');
      return x?.status?.phase === 'Failed' ? x : undefined;
    });
    expect(failed.status?.errorReason).to.equal('InvalidConfiguration');
    expect(failed.status?.errorMessage).to.contain('spec.providerSpec.value.primaryNetworkInterface.subnet');
    expect(instancesOf(created)).to.have.length(0);
  });

  it('survives a rate-limit storm: every machine Running, none Failed, one instance each', async () => {
    emu.knobs.setFailureRate('*', 0.4, { status: 429, code: 'rate_limit_exceeded', message: 'Rate limit exceeded. Please retry later.' });
    try {
      await env.client.create(MachineSets, machineSet('storm', 4));
      const machines = await eventually(
        '4 Running machines under throttling',
        async () => {
          const ms = await machinesOf(env.client, 'storm');
          expect(ms.filter((m) => m.status?.phase === 'Failed'), 'no machine may fail').to.have.length(0);
          return ms.length === 4 && ms.every((m) => m.status?.phase === 'Running') ? ms : undefined;
        },
        60_000,
      );
      for (const m of machines) expect(live(m), m.metadata.name).to.have.length(1);
      const injected = Object.values(emu.knobs.allCounts()).reduce((n, c) => n + c.failed, 0);
      expect(injected, 'the storm really throttled calls').to.be.greaterThan(0);
    } finally {
      emu.knobs.reset();
    }
  });

  it('creates exactly one instance when the create reply is lost and the controller restarts mid-create', async () => {
    emu.knobs.loseNextReplies('CreateInstance', 1);
    const created = await env.client.create(Machines, newMachine('restart-1'));
    await eventually('the lost create to take effect in the VPC', async () => instancesOf(created).length > 0);
    await stopManager();
    startManager();
    const m = await eventually('restart-1 Running after the restart', async () => {
      const x = await getMachine(env.client, 'restart-1');
      return x?.status?.phase === 'Running' ? x : undefined;
    });
    expect(instancesOf(m)).to.have.length(1);
    expect(m.status?.providerStatus?.instanceId).to.equal(instancesOf(m)[0]!.id);
  });

  it('annotates MachineSets for scale from zero from the profiles: balanced, GPU and s390x', async () => {
    const cases: Array<[string, Record<string, unknown>, Record<string, string>, string]> = [
      ['zero-balanced', { profile: 'bx2-8x32' }, { 'machine.openshift.io/vCPU': '8', 'machine.openshift.io/memoryMb': '32768', 'machine.openshift.io/GPU': '0' }, 'amd64'],
      ['zero-gpu', { profile: 'gx2-8x64x1v100' }, { 'machine.openshift.io/vCPU': '8', 'machine.openshift.io/memoryMb': '65536', 'machine.openshift.io/GPU': '1' }, 'amd64'],
      ['zero-s390x', { profile: 'bz2-4x16', image: `${CLUSTER_ID}-rhcos-s390x` }, { 'machine.openshift.io/vCPU': '4', 'machine.openshift.io/memoryMb': '16384', 'machine.openshift.io/GPU': '0' }, 's390x'],
    ];
    for (const [name, extra] of cases) await env.client.create(MachineSets, machineSet(name, 0, ibmSpec(extra)));
    for (const [name, , want, arch] of cases) {
      const ms = await eventually(`${name} annotated`, async () => {
        const s = await env.client.get(MachineSets, { namespace: NAMESPACE, name });
        return s.metadata.annotations?.['machine.openshift.io/vCPU'] ? s : undefined;
      });
      expect(ms.metadata.annotations, name).to.include(want);
      expect(ms.metadata.annotations?.['capacity.cluster-autoscaler.kubernetes.io/labels'], name).to.contain(`kubernetes.io/arch=${arch}`);
    }
    const gpu = await env.client.get(MachineSets, { namespace: NAMESPACE, name: 'zero-gpu' });
    expect(gpu.metadata.annotations?.['capacity.cluster-autoscaler.kubernetes.io/gpu-type']).to.equal('nvidia.com/gpu');
  });
});
