import { expect } from 'chai';
import { scaleFromZeroAnnotations } from '../../../lib/machineset/scale-from-zero.js';
import type { IbmVpcEmulator } from '../../../sim/ibmcloud/index.js';
import { architectureOf, profileValue, toInstanceTypeInfo } from '../../../providers/ibmcloud/instance-types.js';
import type { InstanceProfile } from '../../../providers/ibmcloud/vpc-types.js';
import { clientFor, startEmulator } from './ibm-test-env.js';

const profile = (name: string, extra: Partial<InstanceProfile> = {}): InstanceProfile => ({
  name,
  vcpu_count: { type: 'fixed', value: 4 },
  memory: { type: 'fixed', value: 16 },
  vcpu_architecture: { type: 'fixed', value: 'amd64' },
  os_architecture: { type: 'enum', default: 'amd64', values: ['amd64'] },
  ...extra,
});

describe('IBM Cloud instance types from profiles', () => {
  it('reads vCPU and memory (GiB → MiB) from the API, not the name', () => {
    expect(toInstanceTypeInfo(profile('bx2-4x16'))).to.deep.equal({
      name: 'bx2-4x16',
      vCPU: 4,
      memoryMiB: 16384,
      gpuCount: 0,
      architecture: 'amd64',
    });
  });

  it('handles memory beyond a 16-bit int and names the reference cannot parse', () => {
    const info = toInstanceTypeInfo(
      profile('bx2d-metal-96x384', { vcpu_count: { type: 'fixed', value: 96 }, memory: { type: 'fixed', value: 768 } }),
    );
    expect(info).to.include({ vCPU: 96, memoryMiB: 786432 });
  });

  it('reports GPU count and the extended resource of the manufacturer', () => {
    const info = toInstanceTypeInfo(
      profile('gx2-8x64x1v100', {
        gpu_count: { type: 'fixed', value: 1 },
        gpu_manufacturer: { type: 'enum', values: ['nvidia'] },
      }),
    );
    expect(info).to.include({ gpuCount: 1, gpuType: 'nvidia.com/gpu' });
    expect(
      toInstanceTypeInfo(
        profile('gx3-amd', {
          gpu_count: { type: 'fixed', value: 8 },
          gpu_manufacturer: { type: 'enum', values: ['amd'] },
        }),
      ),
    ).to.include({ gpuType: 'amd.com/gpu' });
  });

  it('reports the s390x architecture of LinuxONE profiles', () => {
    expect(architectureOf(profile('bz2-4x16', { vcpu_architecture: { type: 'fixed', value: 's390x' } }))).to.equal(
      's390x',
    );
  });

  it('falls back to the default OS architecture, then amd64', () => {
    expect(
      architectureOf(
        profile('x', {
          vcpu_architecture: { type: 'fixed', value: '' },
          os_architecture: { type: 'enum', default: 's390x', values: ['s390x'] },
        }),
      ),
    ).to.equal('s390x');
    expect(
      architectureOf(
        profile('x', {
          vcpu_architecture: { type: 'fixed', value: 'mystery' },
          os_architecture: { type: 'enum', default: '', values: [] },
        }),
      ),
    ).to.equal('amd64');
  });

  it('reads the default of a flexible (range) value', () => {
    expect(profileValue({ type: 'range', min: 2, max: 16, default: 4 })).to.equal(4);
    expect(profileValue({ type: 'enum', values: [8, 16] })).to.equal(8);
    expect(profileValue(undefined)).to.equal(undefined);
  });
});

describe('IBM Cloud instance types from the VPC emulator profiles (real client)', function () {
  this.timeout(20_000);
  let emu: IbmVpcEmulator;
  let infos: Map<string, ReturnType<typeof toInstanceTypeInfo>>;
  before(async () => {
    ({ emu } = await startEmulator());
    const profiles = await clientFor(emu).listInstanceProfiles();
    infos = new Map(profiles.map((p) => [p.name, toInstanceTypeInfo(p)]));
  });
  after(async () => {
    await emu.stop();
  });

  it('offers the third generation with the published vCPU and memory (bx3d 1:5, cx3d 1:2.5, mx3d 1:10)', () => {
    const figures = (name: string) => {
      const i = infos.get(name);
      return i && [i.vCPU, i.memoryMiB, i.gpuCount, i.architecture];
    };
    expect(figures('bx3d-2x10')).to.deep.equal([2, 10240, 0, 'amd64']);
    expect(figures('bx3d-176x880')).to.deep.equal([176, 901120, 0, 'amd64']);
    expect(figures('cx3d-2x5')).to.deep.equal([2, 5120, 0, 'amd64']);
    expect(figures('cx3d-16x40')).to.deep.equal([16, 40960, 0, 'amd64']);
    expect(figures('mx3d-8x80')).to.deep.equal([8, 81920, 0, 'amd64']);
    expect(figures('mx3d-176x1760')).to.deep.equal([176, 1802240, 0, 'amd64']);
    expect(figures('bx2-4x16'), 'the second generation stays').to.deep.equal([4, 16384, 0, 'amd64']);
  });

  it('annotates gx3 MachineSets with their NVIDIA L4 or L40S GPUs', () => {
    expect(scaleFromZeroAnnotations(infos.get('gx3-16x80x1l4')!, undefined)).to.deep.equal({
      'machine.openshift.io/vCPU': '16',
      'machine.openshift.io/memoryMb': '81920',
      'machine.openshift.io/GPU': '1',
      'capacity.cluster-autoscaler.kubernetes.io/labels': 'kubernetes.io/arch=amd64',
      'capacity.cluster-autoscaler.kubernetes.io/cpu': '16',
      'capacity.cluster-autoscaler.kubernetes.io/memory': '81920Mi',
      'capacity.cluster-autoscaler.kubernetes.io/gpu-count': '1',
      'capacity.cluster-autoscaler.kubernetes.io/gpu-type': 'nvidia.com/gpu',
    });
    expect(scaleFromZeroAnnotations(infos.get('gx3-64x320x4l4')!, undefined)).to.include({
      'machine.openshift.io/vCPU': '64',
      'machine.openshift.io/GPU': '4',
    });
    expect(scaleFromZeroAnnotations(infos.get('gx3-48x240x2l40s')!, undefined)).to.include({
      'machine.openshift.io/vCPU': '48',
      'machine.openshift.io/memoryMb': '245760',
      'machine.openshift.io/GPU': '2',
      'capacity.cluster-autoscaler.kubernetes.io/gpu-type': 'nvidia.com/gpu',
    });
  });
});
