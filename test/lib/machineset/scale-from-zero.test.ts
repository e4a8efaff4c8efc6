import { expect } from 'chai';
import type { InstanceTypeInfo } from '../../../lib/machineset/instance-type-catalog.js';
import {
  InvalidInstanceTypeInfoError,
  changedAnnotations,
  mergeCommaSeparatedKeyValuePairs,
  scaleFromZeroAnnotations,
  smallestAcross,
} from '../../../lib/machineset/scale-from-zero.js';

const m6i: InstanceTypeInfo = { name: 'm6i.xlarge', vCPU: 4, memoryMiB: 16384, gpuCount: 0, architecture: 'amd64' };
const g5: InstanceTypeInfo = {
  name: 'g5.xlarge',
  vCPU: 4,
  memoryMiB: 16384,
  gpuCount: 1,
  gpuType: 'nvidia.com/gpu',
  architecture: 'amd64',
};

describe('scale-from-zero annotations', () => {
  it('writes the OpenShift keys (integer MiB) and the upstream keys (Quantity)', () => {
    expect(scaleFromZeroAnnotations(m6i, undefined)).to.deep.equal({
      'machine.openshift.io/vCPU': '4',
      'machine.openshift.io/memoryMb': '16384',
      'machine.openshift.io/GPU': '0',
      'capacity.cluster-autoscaler.kubernetes.io/labels': 'kubernetes.io/arch=amd64',
      'capacity.cluster-autoscaler.kubernetes.io/cpu': '4',
      'capacity.cluster-autoscaler.kubernetes.io/memory': '16384Mi',
      'capacity.cluster-autoscaler.kubernetes.io/gpu-count': '0',
    });
  });

  it('writes the GPU count and type when there are GPUs', () => {
    const a = scaleFromZeroAnnotations(g5, undefined);
    expect(a['machine.openshift.io/GPU']).to.equal('1');
    expect(a['capacity.cluster-autoscaler.kubernetes.io/gpu-count']).to.equal('1');
    expect(a['capacity.cluster-autoscaler.kubernetes.io/gpu-type']).to.equal('nvidia.com/gpu');
    expect(
      scaleFromZeroAnnotations({ ...g5, gpuType: undefined }, undefined)[
        'capacity.cluster-autoscaler.kubernetes.io/gpu-type'
      ],
    ).to.equal('nvidia.com/gpu');
    expect(
      scaleFromZeroAnnotations({ ...g5, gpuType: 'amd.com/gpu' }, undefined)[
        'capacity.cluster-autoscaler.kubernetes.io/gpu-type'
      ],
    ).to.equal('amd.com/gpu');
  });

  it('merges the arch label into existing labels, keeping a value the user set', () => {
    const arm = { ...m6i, architecture: 'arm64' as const };
    expect(
      scaleFromZeroAnnotations(arm, { 'capacity.cluster-autoscaler.kubernetes.io/labels': 'team=a' })[
        'capacity.cluster-autoscaler.kubernetes.io/labels'
      ],
    ).to.equal('kubernetes.io/arch=arm64,team=a');
    expect(
      scaleFromZeroAnnotations(arm, { 'capacity.cluster-autoscaler.kubernetes.io/labels': 'kubernetes.io/arch=s390x' })[
        'capacity.cluster-autoscaler.kubernetes.io/labels'
      ],
    ).to.equal('kubernetes.io/arch=s390x');
  });

  it('drops malformed pairs and sorts the merged list', () => {
    expect(mergeCommaSeparatedKeyValuePairs('b=1', 'a=2,junk,c=d=e,,b=3')).to.equal('a=2,b=3');
    expect(mergeCommaSeparatedKeyValuePairs(undefined, '')).to.equal('');
  });

  it('refuses a catalog entry whose numbers are not non-negative integers', () => {
    expect(() => scaleFromZeroAnnotations({ ...m6i, memoryMiB: 1.5 }, undefined))
      .to.throw(InvalidInstanceTypeInfoError)
      .with.property('message', 'instance type m6i.xlarge: memoryMiB must be a non-negative integer, got 1.5');
    expect(() => scaleFromZeroAnnotations({ ...m6i, vCPU: -1 }, undefined)).to.throw(/vCPU/);
  });

  it('reports only the annotations that differ, or nothing', () => {
    const desired = scaleFromZeroAnnotations(m6i, undefined);
    expect(changedAnnotations({ ...desired, other: 'x' }, desired)).to.equal(undefined);
    expect(changedAnnotations({ ...desired, 'machine.openshift.io/vCPU': '2' }, desired)).to.deep.equal({
      'machine.openshift.io/vCPU': '4',
    });
  });
});

describe('scale-from-zero with capacity fallbacks', () => {
  const t = (name: string, vCPU: number, memoryMiB: number, gpuCount = 0): InstanceTypeInfo => ({
    name,
    vCPU,
    memoryMiB,
    gpuCount,
    architecture: 'amd64',
    ...(gpuCount > 0 ? { gpuType: 'nvidia.com/gpu' } : {}),
  });

  it('takes the smallest of each figure across the entries, with the primary name', () => {
    expect(smallestAcross([t('big', 16, 65536, 1), t('wide', 32, 32768), t('small', 8, 131072)])).to.deep.equal(
      t('big', 8, 32768, 0),
    );
  });

  it('is the primary alone without fallbacks, and nothing when an entry is unknown', () => {
    expect(smallestAcross([t('only', 4, 16384, 2)])).to.deep.equal(t('only', 4, 16384, 2));
    expect(smallestAcross([t('a', 4, 16384), undefined])).to.equal(undefined);
  });
});
