import { expect } from 'chai';
import { architectureOf, profileValue, toInstanceTypeInfo } from '../../../providers/ibmcloud/instance-types.js';
import type { InstanceProfile } from '../../../providers/ibmcloud/vpc-types.js';

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
    expect(toInstanceTypeInfo(profile('bx2-4x16'))).to.deep.equal({ name: 'bx2-4x16', vCPU: 4, memoryMiB: 16384, gpuCount: 0, architecture: 'amd64' });
  });

  it('handles memory beyond a 16-bit int and names the reference cannot parse', () => {
    const info = toInstanceTypeInfo(profile('bx2d-metal-96x384', { vcpu_count: { type: 'fixed', value: 96 }, memory: { type: 'fixed', value: 768 } }));
    expect(info).to.include({ vCPU: 96, memoryMiB: 786432 });
  });

  it('reports GPU count and the extended resource of the manufacturer', () => {
    const info = toInstanceTypeInfo(profile('gx2-8x64x1v100', { gpu_count: { type: 'fixed', value: 1 }, gpu_manufacturer: { type: 'enum', values: ['nvidia'] } }));
    expect(info).to.include({ gpuCount: 1, gpuType: 'nvidia.com/gpu' });
    expect(toInstanceTypeInfo(profile('gx3-amd', { gpu_count: { type: 'fixed', value: 8 }, gpu_manufacturer: { type: 'enum', values: ['amd'] } }))).to.include({ gpuType: 'amd.com/gpu' });
  });

  it('reports the s390x architecture of LinuxONE profiles', () => {
    expect(architectureOf(profile('bz2-4x16', { vcpu_architecture: { type: 'fixed', value: 's390x' } }))).to.equal('s390x');
  });

  it('falls back to the default OS architecture, then amd64', () => {
    expect(architectureOf(profile('x', { vcpu_architecture: { type: 'fixed', value: '' }, os_architecture: { type: 'enum', default: 's390x', values: ['s390x'] } }))).to.equal('s390x');
    expect(architectureOf(profile('x', { vcpu_architecture: { type: 'fixed', value: 'mystery' }, os_architecture: { type: 'enum', default: '', values: [] } }))).to.equal('amd64');
  });

  it('reads the default of a flexible (range) value', () => {
    expect(profileValue({ type: 'range', min: 2, max: 16, default: 4 })).to.equal(4);
    expect(profileValue({ type: 'enum', values: [8, 16] })).to.equal(8);
    expect(profileValue(undefined)).to.equal(undefined);
  });
});
