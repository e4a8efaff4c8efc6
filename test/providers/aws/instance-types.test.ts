import { expect } from 'chai';
import { FakeClock, InvalidMachineConfigurationError, type MachineSet } from '../../../lib/index.js';
import { scaleFromZeroAnnotations } from '../../../lib/machineset/scale-from-zero.js';
import { startEc2Emulator, type Ec2Emulator } from '../../../sim/aws/index.js';
import { AwsClientFactory, createAwsInstanceTypeCatalog, toInstanceTypeInfo } from '../../../providers/aws/index.js';
import { NAMESPACE, awsSpec, secretsClient, silentLogger } from './fixtures.js';

const machineSet = (spec: Record<string, unknown>): MachineSet => ({
  metadata: { name: 'ms', namespace: NAMESPACE, uid: 'ms-uid', generation: 1 },
  spec: { selector: {}, template: { spec: { providerSpec: { value: spec } } } },
});
const ctx = { signal: new AbortController().signal, log: silentLogger };

describe('AWS instance-type catalog', () => {
  let emu: Ec2Emulator;
  let clock: FakeClock;
  let clients: AwsClientFactory;

  beforeEach(async () => {
    emu = await startEc2Emulator();
    clock = new FakeClock(Date.now());
    clients = new AwsClientFactory({ clock, endpoint: emu.endpoint, retryDelayMs: () => 1 });
  });
  afterEach(async () => {
    clients.destroy();
    await emu.stop();
  });

  it('describes x86, arm64 and NVIDIA GPU types from DescribeInstanceTypes', async () => {
    const catalog = createAwsInstanceTypeCatalog({ client: secretsClient(), clock, clients });
    expect(await catalog.lookup(machineSet(awsSpec({ instanceType: 'm6i.xlarge' })), ctx)).to.deep.equal({
      name: 'm6i.xlarge',
      vCPU: 4,
      memoryMiB: 16384,
      gpuCount: 0,
      architecture: 'amd64',
    });
    expect(await catalog.lookup(machineSet(awsSpec({ instanceType: 'm6g.large' })), ctx)).to.deep.include({
      architecture: 'arm64',
      vCPU: 2,
      memoryMiB: 8192,
    });
    expect(await catalog.lookup(machineSet(awsSpec({ instanceType: 'p3.8xlarge' })), ctx)).to.deep.include({
      gpuCount: 4,
      gpuType: 'nvidia.com/gpu',
      vCPU: 32,
    });
    expect(await catalog.lookup(machineSet(awsSpec({ instanceType: 'x9.nonexistent' })), ctx)).to.equal(undefined);
  });

  it('publishes the smallest vCPU, memory and GPU count across a MachineSet and its capacity fallbacks', async () => {
    const catalog = createAwsInstanceTypeCatalog({ client: secretsClient(), clock, clients });
    const spec = awsSpec({ instanceType: 'p3.8xlarge', fallbacks: [{ instanceType: 'm6i.xlarge' }] });
    expect(await catalog.lookup(machineSet(spec), ctx)).to.deep.equal({
      name: 'p3.8xlarge',
      vCPU: 4,
      memoryMiB: 16384,
      gpuCount: 0,
      architecture: 'amd64',
    });
    const unknown = awsSpec({ fallbacks: [{ instanceType: 'x9.nonexistent' }] });
    expect(await catalog.lookup(machineSet(unknown), ctx), 'an unknown entry: nothing rather than a guess').to.equal(
      undefined,
    );
  });

  it('gives current arm64 and GPU types their scale-from-zero figures (m8g on Graviton4, g6 with L4, p5 with H100)', async () => {
    const catalog = createAwsInstanceTypeCatalog({ client: secretsClient(), clock, clients });
    const lookup = (instanceType: string) => catalog.lookup(machineSet(awsSpec({ instanceType })), ctx);
    expect(await lookup('m8g.2xlarge')).to.deep.equal({
      name: 'm8g.2xlarge',
      vCPU: 8,
      memoryMiB: 32768,
      gpuCount: 0,
      architecture: 'arm64',
    });
    expect(await lookup('c7g.4xlarge')).to.deep.equal({
      name: 'c7g.4xlarge',
      vCPU: 16,
      memoryMiB: 32768,
      gpuCount: 0,
      architecture: 'arm64',
    });
    expect(await lookup('g6.xlarge')).to.deep.equal({
      name: 'g6.xlarge',
      vCPU: 4,
      memoryMiB: 16384,
      gpuCount: 1,
      gpuType: 'nvidia.com/gpu',
      architecture: 'amd64',
    });
    expect(await lookup('p5.48xlarge')).to.deep.equal({
      name: 'p5.48xlarge',
      vCPU: 192,
      memoryMiB: 2097152,
      gpuCount: 8,
      gpuType: 'nvidia.com/gpu',
      architecture: 'amd64',
    });

    expect(scaleFromZeroAnnotations((await lookup('m8g.2xlarge'))!, undefined)).to.deep.equal({
      'machine.openshift.io/vCPU': '8',
      'machine.openshift.io/memoryMb': '32768',
      'machine.openshift.io/GPU': '0',
      'capacity.cluster-autoscaler.kubernetes.io/labels': 'kubernetes.io/arch=arm64',
      'capacity.cluster-autoscaler.kubernetes.io/cpu': '8',
      'capacity.cluster-autoscaler.kubernetes.io/memory': '32768Mi',
      'capacity.cluster-autoscaler.kubernetes.io/gpu-count': '0',
    });
    expect(scaleFromZeroAnnotations((await lookup('g6.xlarge'))!, undefined)).to.include({
      'machine.openshift.io/vCPU': '4',
      'machine.openshift.io/memoryMb': '16384',
      'machine.openshift.io/GPU': '1',
      'capacity.cluster-autoscaler.kubernetes.io/labels': 'kubernetes.io/arch=amd64',
      'capacity.cluster-autoscaler.kubernetes.io/gpu-count': '1',
      'capacity.cluster-autoscaler.kubernetes.io/gpu-type': 'nvidia.com/gpu',
    });
  });

  it('loads the list once per region and credentials for 24 hours, with one request in flight', async () => {
    const catalog = createAwsInstanceTypeCatalog({ client: secretsClient(), clock, clients });
    await Promise.all([1, 2, 3].map(() => catalog.lookup(machineSet(awsSpec()), ctx)));
    const first = emu.knobs.counts('DescribeInstanceTypes').total;
    expect(first).to.be.greaterThan(0);
    await catalog.lookup(machineSet(awsSpec({ instanceType: 'c5.xlarge' })), ctx);
    expect(emu.knobs.counts('DescribeInstanceTypes').total, 'cached').to.equal(first);
    clock.step(24 * 3_600_000);
    await catalog.lookup(machineSet(awsSpec()), ctx);
    expect(emu.knobs.counts('DescribeInstanceTypes').total, 'refreshed after 24 h').to.equal(2 * first);
  });

  it('keeps serving the previous list when a refresh fails', async () => {
    const catalog = createAwsInstanceTypeCatalog({ client: secretsClient(), clock, clients });
    await catalog.lookup(machineSet(awsSpec()), ctx);
    clock.step(24 * 3_600_000);
    emu.knobs.failNext('DescribeInstanceTypes', 10);
    expect(await catalog.lookup(machineSet(awsSpec()), ctx)).to.deep.include({ name: 'm6i.xlarge' });
  });

  it('rejects an invalid template providerSpec as invalid configuration', async () => {
    const catalog = createAwsInstanceTypeCatalog({ client: secretsClient(), clock, clients });
    try {
      await catalog.lookup(machineSet(awsSpec({ placement: {} })), ctx);
      expect.fail('should reject');
    } catch (err) {
      expect(err).to.be.instanceOf(InvalidMachineConfigurationError);
    }
  });

  it('maps AMD GPUs and non-Linux architectures as the reference does', () => {
    expect(
      toInstanceTypeInfo({
        InstanceType: 'g4ad.xlarge',
        VCpuInfo: { DefaultVCpus: 4 },
        MemoryInfo: { SizeInMiB: 16384 },
        GpuInfo: { Gpus: [{ Count: 1, Manufacturer: 'AMD' }] },
        ProcessorInfo: { SupportedArchitectures: ['x86_64'] },
      }),
    ).to.deep.include({ gpuType: 'amd.com/gpu', gpuCount: 1, architecture: 'amd64' });
    expect(
      toInstanceTypeInfo({ InstanceType: 'mac2.metal', ProcessorInfo: { SupportedArchitectures: ['arm64_mac'] } })
        ?.architecture,
    ).to.equal('amd64');
    expect(toInstanceTypeInfo({})).to.equal(undefined);
  });
});
