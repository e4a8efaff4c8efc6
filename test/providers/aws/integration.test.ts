// The AWS provider binary's wiring, in-process: the local control plane, the EC2 emulator, the kubelet
// simulator, the machine + drain + NodeLink + scale-from-zero controllers from wireAwsProvider, and the
// MachineSet controller (its own binary in production) on one manager.
import { expect } from 'chai';
import { MachineSets, Machines, Nodes, type KubeClient, type Machine, type MachineSet } from '../../../lib/index.js';
import {
  FAST_MACHINE_CONTROLLER,
  eventually,
  machineFor,
  machineSetFor,
  type ProviderTestBed,
} from '../../../sim/kit/index.js';
import type { AwsProvider } from '../../../cmd/machine-api-provider-aws.js';
import type { Ec2Emulator } from '../../../sim/aws/index.js';
import { MACHINE_UID_TAG } from '../../../providers/aws/instances.js';
import { CLUSTER_ID, NAMESPACE, awsSpec } from './fixtures.js';
import { startAwsScenarioBed } from './scenario-bed.js';

const machineSet = (name: string, replicas: number, spec: Record<string, unknown> = awsSpec()): MachineSet =>
  machineSetFor({ name, namespace: NAMESPACE, clusterId: CLUSTER_ID, replicas, spec });

const newMachine = (name: string, spec: Record<string, unknown> = awsSpec()): Machine =>
  machineFor({ name, namespace: NAMESPACE, clusterId: CLUSTER_ID, spec });

describe('machine-api-provider-aws on the local control plane and the EC2 emulator', function () {
  this.timeout(120_000);
  let emu: Ec2Emulator;
  let bed: ProviderTestBed<AwsProvider>;
  let client: KubeClient;

  const instancesOf = (m: Machine) =>
    emu.instances().filter((i) => i.tags.some((t) => t.key === MACHINE_UID_TAG && t.value === m.metadata.uid));
  const live = (m: Machine) => instancesOf(m).filter((i) => i.state !== 'terminated' && i.state !== 'shutting-down');

  before(async () => {
    ({ emu, bed } = await startAwsScenarioBed(FAST_MACHINE_CONTROLLER));
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
      const [inst] = live(m);
      expect(live(m), m.metadata.name).to.have.length(1);
      expect(m.spec?.providerID).to.equal(`aws:///${inst!.availabilityZone}/${inst!.instanceId}`);
      expect(m.status?.addresses).to.deep.include({ type: 'InternalIP', address: inst!.privateIpAddress });
      expect(m.status?.addresses).to.deep.include({ type: 'InternalDNS', address: inst!.privateDnsName });
      expect(m.metadata.labels).to.include({
        'machine.openshift.io/region': 'us-east-1',
        'machine.openshift.io/zone': 'us-east-1a',
        'machine.openshift.io/instance-type': 'm6i.xlarge',
      });
      expect(m.metadata.annotations?.['machine.openshift.io/instance-state']).to.equal('running');
      expect(m.status?.providerStatus).to.deep.include({ instanceId: inst!.instanceId, instanceState: 'running' });
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

  it('scales to 1: the removed machines are drained, their instances terminated and their nodes removed', async () => {
    const before = await bed.machinesOf('workers');
    await bed.scaleMachineSet('workers', 1);
    const remaining = await bed.waitForMachines('workers', 1);
    const removed = before.filter((m) => m.metadata.uid !== remaining[0]!.metadata.uid);
    expect(removed).to.have.length(2);
    for (const m of removed) {
      expect(live(m), `${m.metadata.name} instance`).to.have.length(0);
      await eventually(`node of ${m.metadata.name} gone`, () => bed.nodeGone(m.status?.nodeRef?.name ?? ''));
    }
    expect(live(remaining[0]!)).to.have.length(1);
  });

  it('fails a Running machine whose instance was terminated out of band, as the reference does', async () => {
    await client.create(Machines, newMachine('oob-1'));
    const m = await bed.waitForPhase('oob-1', 'Running');
    emu.terminateOutOfBand(live(m)[0]!.instanceId);
    const failed = await bed.waitForPhase('oob-1', 'Failed');
    expect(failed.status?.errorMessage).to.equal("can't find created instance");
    expect(instancesOf(m)).to.have.length(1);
  });

  it('fails a machine with an invalid spec, naming the field, and launches nothing', async () => {
    const created = await client.create(
      Machines,
      newMachine('invalid-1', awsSpec({ placement: { region: 'us-east-1' }, marketType: 'Cheap' })),
    );
    const failed = await bed.waitForPhase('invalid-1', 'Failed');
    expect(failed.status?.errorReason).to.equal('InvalidConfiguration');
    expect(failed.status?.errorMessage).to.contain('spec.providerSpec.value.marketType');
    expect(instancesOf(created)).to.have.length(0);
  });

  it('survives a throttling storm: every machine Running, none Failed, one instance each', async () => {
    emu.knobs.setFailureRate('*', 0.4, {
      status: 503,
      code: 'RequestLimitExceeded',
      message: 'Request limit exceeded.',
    });
    try {
      await client.create(MachineSets, machineSet('storm', 4));
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

  it('launches exactly one instance when RunInstances replies are lost and the controller restarts mid-create', async () => {
    emu.knobs.loseNextReplies('RunInstances', 3);
    const created = await client.create(Machines, newMachine('restart-1'));
    await eventually('the lost launch to take effect in EC2', async () => instancesOf(created).length > 0);
    await bed.restartManager();
    const m = await bed.waitForPhase('restart-1', 'Running', 'restart-1 Running after the restart');
    expect(instancesOf(m)).to.have.length(1);
    expect(m.status?.providerStatus?.instanceId).to.equal(instancesOf(m)[0]!.instanceId);
  });

  it('annotates MachineSets for scale from zero: x86, arm64 and GPU types', async () => {
    const cases: Array<[string, string, Record<string, string>]> = [
      [
        'zero-x86',
        'm6i.xlarge',
        { 'machine.openshift.io/vCPU': '4', 'machine.openshift.io/memoryMb': '16384', 'machine.openshift.io/GPU': '0' },
      ],
      [
        'zero-arm',
        'm6g.large',
        { 'machine.openshift.io/vCPU': '2', 'machine.openshift.io/memoryMb': '8192', 'machine.openshift.io/GPU': '0' },
      ],
      [
        'zero-gpu',
        'g4dn.xlarge',
        { 'machine.openshift.io/vCPU': '4', 'machine.openshift.io/memoryMb': '16384', 'machine.openshift.io/GPU': '1' },
      ],
    ];
    for (const [name, type] of cases)
      await client.create(MachineSets, machineSet(name, 0, awsSpec({ instanceType: type })));
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
