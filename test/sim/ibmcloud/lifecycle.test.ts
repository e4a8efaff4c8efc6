import { expect } from 'chai';
import type { FakeClock } from '../../../lib/base/fake-clock.js';
import { stateHistory } from '../../../sim/kit/instance-view.js';
import { startIbmVpcEmulator, type IbmVpcEmulator } from '../../../sim/ibmcloud/index.js';
import type { VpcApi } from '../../../providers/ibmcloud/vpc-api.js';
import {
  apiError,
  clientFor,
  eventually,
  startEmulator,
  workerPrototype,
} from '../../providers/ibmcloud/ibm-test-env.js';

describe('IBM VPC emulator: instance lifecycle and the instance view', () => {
  let emu: IbmVpcEmulator;
  let clock: FakeClock;
  let api: VpcApi;

  beforeEach(async () => {
    ({ emu, clock } = await startEmulator());
    api = clientFor(emu);
  });
  afterEach(async () => {
    await emu.stop();
  });

  it('moves pending → starting (address allocated) → running after the provision and boot delays', async () => {
    const { id } = await api.createInstance(workerPrototype(emu, 'worker-1'));
    expect(emu.instance(id)?.status).to.equal('pending');
    clock.step(99);
    expect(emu.instance(id)?.status).to.equal('pending');
    clock.step(1);
    const starting = emu.instance(id);
    expect(starting?.status).to.equal('starting');
    expect(starting?.primary_network_interface?.primary_ip?.address).to.equal('10.241.1.4');
    clock.step(399);
    expect(emu.instance(id)?.status).to.equal('starting');
    clock.step(1);
    expect(emu.instance(id)?.status).to.equal('running');
    expect(emu.instance(id)?.lifecycle_state).to.equal('stable');
  });

  it('gives each instance its own address in its subnet', async () => {
    await api.createInstance(workerPrototype(emu, 'worker-1'));
    await api.createInstance(workerPrototype(emu, 'worker-2'));
    clock.step(100);
    expect(emu.instances().map((i) => i.primary_network_interface?.primary_ip?.address)).to.deep.equal([
      '10.241.1.4',
      '10.241.1.5',
    ]);
  });

  it('shows the kubelet view: providerID ibm://<account>///<cluster>/<id>, node name = instance name, no 0.0.0.0 address', async () => {
    const view = emu.instanceView();
    let changes = 0;
    const off = view.onChange(() => changes++);
    const { id } = await api.createInstance(workerPrototype(emu, 'worker-1'));
    expect(changes).to.be.greaterThan(0);

    let [inst] = view.listInstances();
    expect(inst?.providerID).to.equal(`ibm://${emu.accountId}///${emu.clusterId}/${id}`);
    expect(inst?.nodeName).to.equal('worker-1');
    expect(inst?.state).to.equal('pending');
    expect(
      inst?.addresses.filter((a) => a.type === 'InternalIP'),
      'no address before allocation',
    ).to.deep.equal([]);
    expect(inst?.labels).to.deep.include({
      'node.kubernetes.io/instance-type': 'bx2-4x16',
      'topology.kubernetes.io/zone': 'us-south-1',
      'kubernetes.io/arch': 'amd64',
    });

    clock.step(500);
    [inst] = view.listInstances();
    expect(inst?.state).to.equal('running');
    expect(inst?.addresses).to.deep.include({ type: 'InternalIP', address: '10.241.1.4' });

    emu.terminateOutOfBand(id);
    expect(view.listInstances()[0]?.state).to.equal('terminating');
    clock.step(300);
    expect(view.listInstances()).to.deep.equal([]);
    off();
  });

  it('stops and starts out of band, keeping the address; the view shows it never terminating, so the Node stays', async () => {
    const { id } = await api.createInstance(workerPrototype(emu, 'worker-1'));
    clock.step(500);
    const history = stateHistory(emu.instanceView(), 'worker-1');
    emu.stopOutOfBand(id);
    expect(emu.instance(id)?.status).to.equal('stopping');
    clock.step(200);
    expect(emu.instance(id)?.status).to.equal('stopped');
    expect(emu.instanceView().listInstances()[0]?.state).to.equal('stopped');
    emu.startOutOfBand(id);
    expect(emu.instance(id)?.status).to.equal('starting');
    clock.step(400);
    expect(emu.instance(id)?.status).to.equal('running');
    expect(emu.instance(id)?.primary_network_interface?.primary_ip?.address).to.equal('10.241.1.4');
    history.stop();
    expect(history.states).to.deep.equal(['running', 'stopping', 'stopped', 'pending', 'running']);
    expect(() => emu.startOutOfBand(id)).to.throw(/not stopped/);
    expect(() => emu.stopOutOfBand('0717_nope')).to.throw(/no instance/);
  });

  it('marks an instance failed with a status reason', async () => {
    const { id } = await api.createInstance(workerPrototype(emu, 'worker-1'));
    emu.failOutOfBand(id);
    const inst = await api.getInstance(id);
    expect(inst.status).to.equal('failed');
    expect(inst.status_reasons?.[0]?.code).to.equal('cannot_start_capacity');
    clock.step(10_000);
    expect(emu.instance(id)?.status, 'failed stays failed').to.equal('failed');
  });

  it('refuses a create past the instance quota with over_quota, creating nothing, until the quota is lifted', async () => {
    await api.createInstance(workerPrototype(emu, 'worker-1'));
    emu.setInstanceQuota(1);
    const err = await apiError(api.createInstance(workerPrototype(emu, 'worker-2')), 400, 'over_quota');
    expect(err.message).to.match(/quota of 1 virtual server instances/);
    expect(emu.instances().map((i) => i.name)).to.deep.equal(['worker-1']);
    emu.setInstanceQuota(undefined);
    await api.createInstance(workerPrototype(emu, 'worker-2'));
    expect(emu.instances().map((i) => i.name)).to.deep.equal(['worker-1', 'worker-2']);
    expect(() => emu.setInstanceQuota(-1)).to.throw(/limit must be a whole number >= 0, got -1/);
  });

  it('applies timings changed at run time to transitions scheduled afterwards', async () => {
    emu.setTimings({ provisionMs: 10, bootMs: 20 });
    const { id } = await api.createInstance(workerPrototype(emu, 'worker-1'));
    clock.step(30);
    expect(emu.instance(id)?.status).to.equal('running');
  });

  it('runs on the real clock when none is given', async () => {
    const real = await startIbmVpcEmulator({ timings: { provisionMs: 5, bootMs: 5 } });
    try {
      const { id } = await clientFor(real).createInstance(workerPrototype(real, 'worker-rt'));
      await eventually(() => {
        expect(real.instance(id)?.status).to.equal('running');
      });
    } finally {
      await real.stop();
    }
  });

  describe('create validation', () => {
    it('runs an s390x profile from the s390x image, and refuses the amd64 image on it', async () => {
      const s390Image = emu.world.images.find((i) => i.architecture === 's390x')?.id ?? '';
      const ok = await api.createInstance(
        workerPrototype(emu, 'z-worker', { profile: { name: 'bz2-4x16' }, image: { id: s390Image } }),
      );
      expect(ok.vcpu?.architecture).to.equal('s390x');
      const err = await apiError(
        api.createInstance(workerPrototype(emu, 'z-worker-2', { profile: { name: 'bz2-4x16' } })),
        400,
        'image_profile_architecture_mismatch',
      );
      expect(err.target).to.equal('image.id');
    });

    it('refuses a subnet from another zone, an unknown zone, VPC, image and security group', async () => {
      const w = emu.world;
      const otherZoneSubnet = w.subnets.find((s) => s.zone === 'us-south-2')?.id ?? '';
      const base = workerPrototype(emu, 'w');
      await apiError(
        api.createInstance({ ...base, primary_network_interface: { subnet: { id: otherZoneSubnet } } }),
        400,
        'bad_field',
      );
      expect(
        (await apiError(api.createInstance({ ...base, zone: { name: 'us-south-9' } }), 404, 'not_found')).target,
      ).to.equal('zone.name');
      expect(
        (await apiError(api.createInstance({ ...base, vpc: { id: 'r006-nope' } }), 404, 'not_found')).target,
      ).to.equal('vpc.id');
      expect(
        (await apiError(api.createInstance({ ...base, image: { id: 'r006-nope' } }), 404, 'not_found')).target,
      ).to.equal('image.id');
      const sgErr = await apiError(
        api.createInstance({
          ...base,
          primary_network_interface: { ...base.primary_network_interface, security_groups: [{ id: 'r006-nope' }] },
        }),
        404,
        'not_found',
      );
      expect(sgErr.target).to.equal('primary_network_interface.security_groups[0].id');
      expect(emu.instances()).to.deep.equal([]);
    });

    it('refuses a missing required field and an invalid name, naming the field', async () => {
      const { name: _n, ...noName } = workerPrototype(emu, 'w');
      expect((await apiError(api.createInstance(noName as never), 400, 'missing_field')).target).to.equal('name');
      expect(
        (await apiError(api.createInstance(workerPrototype(emu, 'Worker_1')), 400, 'validation_invalid_name')).target,
      ).to.equal('name');
    });

    it('places on a dedicated host only in its zone and for a profile it supports', async () => {
      const host = emu.world.dedicatedHosts[0];
      const placed = await api.createInstance(
        workerPrototype(emu, 'dh-worker', { placement_target: { id: host?.id ?? '' } }),
      );
      expect(placed.dedicated_host?.name).to.equal(host?.name);
      await apiError(
        api.createInstance(
          workerPrototype(emu, 'dh-gpu', {
            placement_target: { id: host?.id ?? '' },
            profile: { name: 'gx2-8x64x1v100' },
          }),
        ),
        400,
        'bad_field',
      );
    });

    it('checks the boot volume: profile, capacity bounds from the image minimum, iops and bandwidth only where allowed', async () => {
      const vol = (volume: Record<string, unknown>) => ({ volume }) as never;
      await api.createInstance(
        workerPrototype(emu, 'bv-ok', {
          boot_volume_attachment: vol({ profile: { name: 'sdp' }, capacity: 300, iops: 3000, bandwidth: 1000 }),
        }),
      );
      await apiError(
        api.createInstance(
          workerPrototype(emu, 'bv-1', {
            boot_volume_attachment: vol({ profile: { name: 'general-purpose' }, capacity: 300 }),
          }),
        ),
        400,
        'bad_field',
      );
      await apiError(
        api.createInstance(
          workerPrototype(emu, 'bv-2', {
            boot_volume_attachment: vol({ profile: { name: 'general-purpose' }, capacity: 50 }),
          }),
        ),
        400,
        'bad_field',
      );
      await apiError(
        api.createInstance(
          workerPrototype(emu, 'bv-3', {
            boot_volume_attachment: vol({ profile: { name: 'general-purpose' }, iops: 3000 }),
          }),
        ),
        400,
        'bad_field',
      );
      await apiError(
        api.createInstance(
          workerPrototype(emu, 'bv-4', { boot_volume_attachment: vol({ profile: { name: 'fast' } }) }),
        ),
        404,
        'not_found',
      );
      expect(emu.instances().map((i) => i.name)).to.deep.equal(['bv-ok']);
    });

    it('allows the same name in another VPC', async () => {
      const w = emu.world;
      const vpc2 = {
        id: 'r006-second',
        name: 'second-vpc',
        resourceGroupId: w.resourceGroups[0]?.id ?? '',
        createdAt: 0,
        seq: w.nextSeq++,
      };
      w.vpcs.push(vpc2);
      w.subnets.push({
        id: '0717-second',
        name: 'second-subnet',
        vpcId: vpc2.id,
        zone: 'us-south-1',
        resourceGroupId: vpc2.resourceGroupId,
        cidr: '10.9.0.0/24',
        nextHost: 4,
        seq: w.nextSeq++,
      });
      await api.createInstance(workerPrototype(emu, 'same'));
      const other = await api.createInstance(
        workerPrototype(emu, 'same', {
          vpc: { id: vpc2.id },
          primary_network_interface: { subnet: { id: '0717-second' } },
        }),
      );
      expect(other.vpc.name).to.equal('second-vpc');
      expect((await api.listInstances({ name: 'same', vpcName: 'second-vpc' })).map((i) => i.id)).to.deep.equal([
        other.id,
      ]);
    });
  });
});
