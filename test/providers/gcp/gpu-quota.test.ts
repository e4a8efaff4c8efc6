import { expect } from 'chai';
import { gpuQuotaShortfall, gpuRequestOf, hasBuiltInGpus } from '../../../providers/gcp/gpu-quota.js';
import { decodeProviderSpec } from '../../../providers/gcp/index.js';
import { gcpSpec } from './fixtures.js';

const specOf = (extra: Record<string, unknown>) =>
  decodeProviderSpec(gcpSpec({ onHostMaintenance: 'Terminate', ...extra })).spec;

describe('GCP GPU quota rule', () => {
  const region = {
    name: 'us-central1',
    quotas: [
      { metric: 'NVIDIA_T4_GPUS', limit: 4, usage: 3 },
      { metric: 'PREEMPTIBLE_NVIDIA_T4_GPUS', limit: 8, usage: 0 },
    ],
  };

  it('refuses a request that would take usage past the limit, naming the metric, usage and limit', () => {
    expect(gpuQuotaShortfall(region, { type: 'nvidia-tesla-t4', count: 2 }, false)).to.deep.equal({
      metric: 'NVIDIA_T4_GPUS',
      usage: 3,
      limit: 4,
    });
    expect(gpuQuotaShortfall(region, { type: 'nvidia-tesla-t4', count: 1 }, false)).to.equal(undefined);
  });

  it('counts preemptible and Spot instances against the PREEMPTIBLE_ metric', () => {
    expect(gpuQuotaShortfall(region, { type: 'nvidia-tesla-t4', count: 2 }, true)).to.equal(undefined);
  });

  it('does not limit what the region lists no quota for, nor an accelerator with no known metric', () => {
    expect(gpuQuotaShortfall({ quotas: [] }, { type: 'nvidia-tesla-t4', count: 99 }, false)).to.equal(undefined);
    expect(gpuQuotaShortfall(region, { type: 'nvidia-future', count: 99 }, false)).to.equal(undefined);
  });

  it('takes attached GPUs from the spec, else the built-in ones of the machine type', () => {
    expect(
      gpuRequestOf(specOf({ machineType: 'n1-standard-4', gpus: [{ type: 'nvidia-tesla-t4', count: 2 }] })),
    ).to.deep.equal({ type: 'nvidia-tesla-t4', count: 2 });
    const a3 = { accelerators: [{ guestAcceleratorType: 'nvidia-h100-80gb', guestAcceleratorCount: 8 }] };
    expect(gpuRequestOf(specOf({ machineType: 'a3-highgpu-8g' }), a3)).to.deep.equal({
      type: 'nvidia-h100-80gb',
      count: 8,
    });
    expect(gpuRequestOf(specOf({}))).to.equal(undefined);
    expect(hasBuiltInGpus('a3-highgpu-8g')).to.equal(true);
    expect(hasBuiltInGpus('n2-standard-4')).to.equal(false);
  });
});
