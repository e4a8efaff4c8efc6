// The GCP provider binary's wiring, in-process: the local control plane, the GCE emulator, the kubelet
// simulator, the machine + drain + NodeLink + scale-from-zero controllers from wireGcpProvider, and the
// MachineSet controller (its own binary in production) on one manager, with the real compute clients.
import { expect } from 'chai';
import { MachineSets, Machines, Nodes, type KubeClient, type Machine } from '../../../lib/index.js';
import { FAST_MACHINE_CONTROLLER, eventually, machineFor, type ProviderTestBed } from '../../../sim/kit/index.js';
import type { GcpProvider } from '../../../cmd/machine-api-provider-gcp.js';
import type { GceEmulator } from '../../../sim/gcp/index.js';
import { CLUSTER_ID, NAMESPACE, PROJECT, REGION, ZONE, gcpSpec, machineSet } from './fixtures.js';
import { startGcpScenarioBed } from './scenario-bed.js';

const newMachine = (name: string, spec: Record<string, unknown> = gcpSpec()): Machine =>
  machineFor({ name, namespace: NAMESPACE, clusterId: CLUSTER_ID, spec });

describe('machine-api-provider-gcp on the local control plane and the GCE emulator', function () {
  this.timeout(120_000);
  let emu: GceEmulator;
  let bed: ProviderTestBed<GcpProvider>;
  let client: KubeClient;

  const instancesOf = (m: Machine) => emu.instances().filter((i) => i.name === m.metadata.name);
  const live = (m: Machine) =>
    emu
      .instanceView()
      .listInstances()
      .filter((i) => i.nodeName === m.metadata.name && i.state !== 'terminating');

  before(async () => {
    ({ emu, bed } = await startGcpScenarioBed(FAST_MACHINE_CONTROLLER));
    client = bed.env.client;
  });

  after(async () => {
    await bed?.stop();
    await emu?.stop();
  });

  it('brings a MachineSet of 3 to 3 Running machines with nodes, providerIDs, addresses, labels and annotations', async () => {
    await client.create(MachineSets, machineSet('workers', 3));
    const machines = await bed.waitForMachines('workers', 3, 'Running');
    for (const m of machines) {
      const name = m.metadata.name ?? '';
      const inst = emu.instance(name);
      expect(live(m), name).to.have.length(1);
      expect(m.spec?.providerID).to.equal(`gce://${PROJECT}/${ZONE}/${name}`);
      const nic = (inst?.networkInterfaces as Array<{ networkIP: string }>)[0];
      expect(m.status?.addresses).to.deep.include({ type: 'InternalIP', address: nic?.networkIP });
      expect(m.status?.addresses).to.deep.include({
        type: 'InternalDNS',
        address: `${name}.${ZONE}.c.${PROJECT}.internal`,
      });
      expect(m.metadata.labels).to.include({
        'machine.openshift.io/region': REGION,
        'machine.openshift.io/zone': ZONE,
        'machine.openshift.io/instance-type': 'n2-standard-4',
      });
      expect(m.metadata.annotations?.['machine.openshift.io/instance-state']).to.equal('RUNNING');
      expect(m.status?.providerStatus).to.deep.include({ instanceId: name, instanceState: 'RUNNING' });
      expect(inst?.labels).to.include({ [`kubernetes-io-cluster-${CLUSTER_ID}`]: 'owned', team: 'machines' });
      const node = await client.get(Nodes, { name: m.status?.nodeRef?.name ?? '' });
      expect(node.spec?.providerID).to.equal(m.spec?.providerID);
    }
    const ms = await bed.waitForScaleFromZero('workers', 'scale-from-zero annotations');
    expect(ms.metadata.annotations).to.include({
      'machine.openshift.io/vCPU': '4',
      'machine.openshift.io/memoryMb': '16384',
      'machine.openshift.io/GPU': '0',
    });
  });

  it('scales to 1: the removed machines are drained, their instances deleted and their nodes removed', async () => {
    const before = await bed.machinesOf('workers');
    await bed.scaleMachineSet('workers', 1);
    const remaining = await bed.waitForMachines('workers', 1);
    const removed = before.filter((m) => m.metadata.uid !== remaining[0]!.metadata.uid);
    expect(removed).to.have.length(2);
    for (const m of removed) {
      expect(instancesOf(m), `${m.metadata.name} instance`).to.have.length(0);
      await eventually(`node of ${m.metadata.name} gone`, () => bed.nodeGone(m.status?.nodeRef?.name ?? ''));
    }
    expect(live(remaining[0]!)).to.have.length(1);
  });

  it('fails a Running machine whose instance was deleted out of band, as the reference does', async () => {
    await client.create(Machines, newMachine('oob-1'));
    await bed.waitForPhase('oob-1', 'Running');
    emu.terminateOutOfBand('oob-1');
    const failed = await bed.waitForPhase('oob-1', 'Failed');
    expect(failed.status?.errorMessage).to.equal("can't find created instance");
    expect(emu.instance('oob-1')).to.equal(undefined);
  });

  it('fails a machine with an invalid spec, naming the field, and creates nothing', async () => {
    await client.create(Machines, newMachine('invalid-1', gcpSpec({ onHostMaintenance: 'Sometimes' })));
    const failed = await bed.waitForPhase('invalid-1', 'Failed');
    expect(failed.status?.errorReason).to.equal('InvalidConfiguration');
    expect(failed.status?.errorMessage).to.contain('spec.providerSpec.value.onHostMaintenance');
    expect(emu.instance('invalid-1')).to.equal(undefined);
  });

  it('survives a quota and rate-limit storm: every machine Running, none Failed, one instance each', async () => {
    emu.setQuotaLimit(REGION, 'CPUS', 0);
    emu.knobs.setFailureRate('*', 0.3, { status: 403, code: 'rateLimitExceeded', message: 'Rate Limit Exceeded' });
    try {
      await client.create(MachineSets, machineSet('storm', 4));
      await eventually('inserts to be refused for quota', async () => {
        const ms = await bed.machinesOf('storm');
        const refused = ms.filter((m) =>
          (m.status?.providerStatus?.conditions as Array<{ status: string; message: string }> | undefined)?.some(
            (c) => c.status === 'False' && c.message.includes('QUOTA_EXCEEDED'),
          ),
        );
        return refused.length >= 2;
      });
      const stuck = await bed.machinesOf('storm');
      expect(
        stuck.filter((m) => m.status?.phase === 'Failed'),
        'quota must not fail a machine',
      ).to.have.length(0);
      emu.setQuotaLimit(REGION, 'CPUS', 2400);
      const machines = await eventually(
        '4 Running machines after the storm',
        async () => {
          const ms = await bed.machinesOf('storm');
          expect(
            ms.filter((m) => m.status?.phase === 'Failed'),
            'no machine may fail',
          ).to.have.length(0);
          return ms.length === 4 && ms.every((m) => m.status?.phase === 'Running') ? ms : undefined;
        },
        60_000,
      );
      for (const m of machines) expect(instancesOf(m), m.metadata.name).to.have.length(1);
    } finally {
      emu.knobs.reset();
      emu.setQuotaLimit(REGION, 'CPUS', 2400);
    }
  });

  it('creates exactly one instance when insert replies are lost and the controller restarts mid-create', async () => {
    emu.knobs.loseNextReplies('instances.insert', 3);
    await client.create(Machines, newMachine('restart-1'));
    await eventually('the lost insert to take effect in GCE', async () => emu.instance('restart-1') !== undefined);
    await bed.restartManager();
    const m = await bed.waitForPhase('restart-1', 'Running', 'restart-1 Running after the restart');
    expect(instancesOf(m)).to.have.length(1);
    expect(m.status?.providerStatus?.instanceId).to.equal('restart-1');
  });

  it('annotates MachineSets for scale from zero: x86, arm64 (t2a) and GPU (a2) types', async () => {
    const cases: Array<[string, string, Record<string, string>]> = [
      [
        'zero-x86',
        'n2-standard-8',
        { 'machine.openshift.io/vCPU': '8', 'machine.openshift.io/memoryMb': '32768', 'machine.openshift.io/GPU': '0' },
      ],
      [
        'zero-arm',
        't2a-standard-4',
        { 'machine.openshift.io/vCPU': '4', 'machine.openshift.io/memoryMb': '16384', 'machine.openshift.io/GPU': '0' },
      ],
      [
        'zero-gpu',
        'a2-highgpu-1g',
        {
          'machine.openshift.io/vCPU': '12',
          'machine.openshift.io/memoryMb': '87040',
          'machine.openshift.io/GPU': '1',
        },
      ],
    ];
    for (const [name, type] of cases) {
      const spec = gcpSpec({
        machineType: type,
        ...(type.startsWith('a2-') ? { onHostMaintenance: 'Terminate' } : {}),
      });
      await client.create(MachineSets, machineSet(name, 0, spec));
    }
    for (const [name, , want] of cases) {
      const ms = await bed.waitForScaleFromZero(name);
      expect(ms.metadata.annotations, name).to.include(want);
      const arch = name === 'zero-arm' ? 'arm64' : 'amd64';
      expect(ms.metadata.annotations?.['capacity.cluster-autoscaler.kubernetes.io/labels'], name).to.contain(
        `kubernetes.io/arch=${arch}`,
      );
    }
    const gpu = await client.get(MachineSets, { namespace: NAMESPACE, name: 'zero-gpu' });
    expect(gpu.metadata.annotations?.['capacity.cluster-autoscaler.kubernetes.io/gpu-type']).to.equal('nvidia.com/gpu');
  });
});
