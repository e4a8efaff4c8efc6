// The IBM Cloud provider binary's wiring, in-process: the local control plane, the VPC emulator, the kubelet
// simulator, the machine + drain + NodeLink + scale-from-zero controllers from wireIbmCloudProvider, and the
// MachineSet controller (its own binary in production) on one manager.
import { expect } from 'chai';
import { MachineSets, Machines, Nodes, type Machine } from '../../../lib/index.js';
import {
  eventually,
  FAST_MACHINE_CONTROLLER,
  machineFor,
  machineSetFor,
  type ProviderTestBed,
  type WiredProvider,
} from '../../../sim/kit/index.js';
import type { IbmCloudProvider } from '../../../cmd/machine-api-provider-ibmcloud.js';
import type { IbmVpcEmulator } from '../../../sim/ibmcloud/index.js';
import { CLUSTER_ID, NAMESPACE, ibmSpec } from './fixtures.js';
import { startIbmScenarioBed } from './scenario-bed.js';

const machineSet = (name: string, replicas: number, spec: Record<string, unknown> = ibmSpec()) =>
  machineSetFor({ name, namespace: NAMESPACE, clusterId: CLUSTER_ID, replicas, spec });

const newMachine = (name: string, spec: Record<string, unknown> = ibmSpec()) =>
  machineFor({ name, namespace: NAMESPACE, clusterId: CLUSTER_ID, spec });

describe('machine-api-provider-ibmcloud on the local control plane and the VPC emulator', function () {
  this.timeout(120_000);
  let emu: IbmVpcEmulator;
  let bed: ProviderTestBed<IbmCloudProvider & WiredProvider>;

  const instancesOf = (m: Machine) => emu.instances().filter((i) => i.name === m.metadata.name);
  const live = (m: Machine) => instancesOf(m).filter((i) => i.status !== 'deleting');

  before(async () => {
    ({ emu, bed } = await startIbmScenarioBed(FAST_MACHINE_CONTROLLER));
  });

  after(async () => {
    await bed?.stop();
    await emu?.stop();
  });

  it('brings a MachineSet of 3 to 3 Running machines with nodes, providerIDs, addresses, labels, annotations and tags', async () => {
    await bed.env.client.create(
      MachineSets,
      machineSet('workers', 3, ibmSpec({ tags: [{ name: 'environment', value: 'test' }, { name: 'team' }] })),
    );
    const machines = await bed.waitForMachines('workers', 3, 'Running');
    for (const m of machines) {
      expect(live(m), m.metadata.name).to.have.length(1);
      const inst = live(m)[0]!;
      expect(m.spec?.providerID).to.equal(`ibm://${emu.accountId}///${CLUSTER_ID}/${inst.id}`);
      expect(m.status?.addresses).to.deep.include({
        type: 'InternalIP',
        address: inst.primary_network_interface?.primary_ip?.address,
      });
      expect(m.status?.addresses).to.deep.include({ type: 'InternalDNS', address: m.metadata.name });
      expect(
        m.status?.addresses?.some((a) => a.address === '0.0.0.0'),
        'no unallocated address',
      ).to.equal(false);
      expect(m.metadata.labels).to.include({
        'machine.openshift.io/region': 'us-south',
        'machine.openshift.io/zone': 'us-south-1',
        'machine.openshift.io/instance-type': 'bx2-4x16',
      });
      expect(m.metadata.annotations?.['machine.openshift.io/instance-state']).to.equal('running');
      expect(m.status?.providerStatus).to.deep.include({ instanceId: inst.id, instanceState: 'running' });
      const node = await bed.env.client.get(Nodes, { name: m.status?.nodeRef?.name ?? '' });
      expect(node.spec?.providerID).to.equal(m.spec?.providerID);
      await eventually(
        `tags on ${m.metadata.name}`,
        async () =>
          (emu.world.tags[inst.crn] ?? []).includes('environment:test') &&
          (emu.world.tags[inst.crn] ?? []).includes('team'),
      );
    }
    const ms = await bed.waitForScaleFromZero('workers', 'scale-from-zero annotations');
    expect(ms.metadata.annotations).to.include({
      'machine.openshift.io/vCPU': '4',
      'machine.openshift.io/memoryMb': '16384',
      'machine.openshift.io/GPU': '0',
    });
    // Names were resolved once for the whole MachineSet, not per Machine.
    expect(emu.knobs.counts('ListImages').total).to.equal(1);
    expect(emu.knobs.counts('ListSubnets').total).to.equal(1);
    expect(emu.knobs.counts('GetRegion').total, 'an endpoint override needs no region look-up').to.equal(0);
  });

  it('scales to 1: the removed machines are drained, their instances deleted once and their nodes removed', async () => {
    const before = await bed.machinesOf('workers');
    const deletesBefore = emu.knobs.counts('DeleteInstance').total;
    await bed.scaleMachineSet('workers', 1);
    const remaining = await bed.waitForMachines('workers', 1);
    const removed = before.filter((m) => m.metadata.uid !== remaining[0]!.metadata.uid);
    expect(removed).to.have.length(2);
    for (const m of removed) {
      expect(instancesOf(m), `${m.metadata.name} instance`).to.have.length(0);
      await eventually(`node of ${m.metadata.name} gone`, () => bed.nodeGone(m.status?.nodeRef?.name ?? ''));
    }
    expect(
      emu.knobs.counts('DeleteInstance').total - deletesBefore,
      'DELETE is not re-issued while the instance is deleting',
    ).to.equal(2);
    expect(live(remaining[0]!)).to.have.length(1);
  });

  it('fails a Running machine whose instance was deleted out of band, as the reference does', async () => {
    await bed.env.client.create(Machines, newMachine('oob-1'));
    const m = await bed.waitForPhase('oob-1', 'Running');
    emu.terminateOutOfBand(live(m)[0]!.id);
    const failed = await bed.waitForPhase('oob-1', 'Failed');
    expect(failed.status?.errorMessage).to.equal("can't find created instance");
    expect(instancesOf(m)).to.have.length(0);
  });

  it('fails a machine with an invalid spec, naming the field, and creates nothing', async () => {
    const created = await bed.env.client.create(
      Machines,
      newMachine('invalid-1', ibmSpec({ bootVolume: { profile: 'general-purpose', iops: 3000 } })),
    );
    const failed = await bed.waitForPhase('invalid-1', 'Failed');
    expect(failed.status?.errorReason).to.equal('InvalidConfiguration');
    expect(failed.status?.errorMessage).to.contain('spec.providerSpec.value.bootVolume.iops');
    expect(instancesOf(created)).to.have.length(0);
  });

  it('fails a machine whose subnet does not exist, naming the field, and creates nothing', async () => {
    const created = await bed.env.client.create(
      Machines,
      newMachine('invalid-2', ibmSpec({ primaryNetworkInterface: { subnet: 'no-such-subnet' } })),
    );
    const failed = await bed.waitForPhase('invalid-2', 'Failed');
    expect(failed.status?.errorReason).to.equal('InvalidConfiguration');
    expect(failed.status?.errorMessage).to.contain('spec.providerSpec.value.primaryNetworkInterface.subnet');
    expect(instancesOf(created)).to.have.length(0);
  });

  it('survives a rate-limit storm: every machine Running, none Failed, one instance each', async () => {
    emu.knobs.setFailureRate('*', 0.4, {
      status: 429,
      code: 'rate_limit_exceeded',
      message: 'Rate limit exceeded. Please retry later.',
    });
    try {
      await bed.env.client.create(MachineSets, machineSet('storm', 4));
      const machines = await eventually(
        '4 Running machines under throttling',
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
      for (const m of machines) expect(live(m), m.metadata.name).to.have.length(1);
      const injected = Object.values(emu.knobs.allCounts()).reduce((n, c) => n + c.failed, 0);
      expect(injected, 'the storm really throttled calls').to.be.greaterThan(0);
    } finally {
      emu.knobs.reset();
    }
  });

  it('creates exactly one instance when the create reply is lost and the controller restarts mid-create', async () => {
    emu.knobs.loseNextReplies('CreateInstance', 1);
    const created = await bed.env.client.create(Machines, newMachine('restart-1'));
    await eventually('the lost create to take effect in the VPC', async () => instancesOf(created).length > 0);
    await bed.restartManager();
    const m = await bed.waitForPhase('restart-1', 'Running', 'restart-1 Running after the restart');
    expect(instancesOf(m)).to.have.length(1);
    expect(m.status?.providerStatus?.instanceId).to.equal(instancesOf(m)[0]!.id);
  });

  it('annotates MachineSets for scale from zero from the profiles: balanced, GPU and s390x', async () => {
    const cases: Array<[string, Record<string, unknown>, Record<string, string>, string]> = [
      [
        'zero-balanced',
        { profile: 'bx2-8x32' },
        { 'machine.openshift.io/vCPU': '8', 'machine.openshift.io/memoryMb': '32768', 'machine.openshift.io/GPU': '0' },
        'amd64',
      ],
      [
        'zero-gpu',
        { profile: 'gx2-8x64x1v100' },
        { 'machine.openshift.io/vCPU': '8', 'machine.openshift.io/memoryMb': '65536', 'machine.openshift.io/GPU': '1' },
        'amd64',
      ],
      [
        'zero-s390x',
        { profile: 'bz2-4x16', image: `${CLUSTER_ID}-rhcos-s390x` },
        { 'machine.openshift.io/vCPU': '4', 'machine.openshift.io/memoryMb': '16384', 'machine.openshift.io/GPU': '0' },
        's390x',
      ],
    ];
    for (const [name, extra] of cases) await bed.env.client.create(MachineSets, machineSet(name, 0, ibmSpec(extra)));
    for (const [name, , want, arch] of cases) {
      const ms = await bed.waitForScaleFromZero(name);
      expect(ms.metadata.annotations, name).to.include(want);
      expect(ms.metadata.annotations?.['capacity.cluster-autoscaler.kubernetes.io/labels'], name).to.contain(
        `kubernetes.io/arch=${arch}`,
      );
    }
    const gpu = await bed.env.client.get(MachineSets, { namespace: NAMESPACE, name: 'zero-gpu' });
    expect(gpu.metadata.annotations?.['capacity.cluster-autoscaler.kubernetes.io/gpu-type']).to.equal('nvidia.com/gpu');
  });
});
