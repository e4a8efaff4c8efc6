import { expect } from 'chai';
import { PassThroughClient } from 'google-auth-library';
import { FakeClock, InvalidMachineConfigurationError } from '../../../lib/index.js';
import { scaleFromZeroAnnotations } from '../../../lib/machineset/scale-from-zero.js';
import { startGceEmulator, type GceEmulator } from '../../../sim/gcp/index.js';
import {
  GcpClientFactory,
  SdkComputeApi,
  architectureOf,
  createGcpInstanceTypeCatalog,
  toInstanceTypeInfo,
  type ComputeApi,
  type MachineType,
} from '../../../providers/gcp/index.js';
import { gcpSpec, machineSet, secretsClient, silentLogger } from './fixtures.js';

const TYPES: Record<string, MachineType> = {
  'n2-standard-4': { name: 'n2-standard-4', guestCpus: 4, memoryMb: 16384 },
  't2a-standard-4': { name: 't2a-standard-4', guestCpus: 4, memoryMb: 16384 },
  'a2-highgpu-1g': {
    name: 'a2-highgpu-1g',
    guestCpus: 12,
    memoryMb: 87040,
    accelerators: [{ guestAcceleratorType: 'nvidia-tesla-a100', guestAcceleratorCount: 1 }],
  },
  'n1-standard-8': { name: 'n1-standard-8', guestCpus: 8, memoryMb: 30720 },
};

/** A ComputeApi that only answers machineTypes.get, counting calls and their (project, zone, type). */
function fakeCompute(seen: string[], fail?: { error: Error }): ComputeApi {
  const notFound = Object.assign(new Error('not found'), { name: 'GoogleError', code: 5, httpStatusCode: 404 });
  return {
    getMachineType: async (project: string, zone: string, type: string) => {
      seen.push(`${project}/${zone}/${type}`);
      if (fail) throw fail.error;
      const t = TYPES[type];
      if (!t) throw notFound;
      return t;
    },
  } as unknown as ComputeApi;
}

const ctx = { signal: new AbortController().signal, log: silentLogger };

describe('GCP instance-type catalog (scale from zero)', () => {
  function catalog(seen: string[], fail?: { error: Error }) {
    const clock = new FakeClock(0);
    const clients = new GcpClientFactory({ clock, createComputeApi: () => fakeCompute(seen, fail) });
    return { clock, catalog: createGcpInstanceTypeCatalog({ client: secretsClient(), clock, clients, ttlMs: 60_000 }) };
  }

  it('reads vCPU and memory from machineTypes.get in the project of the credentials', async () => {
    const seen: string[] = [];
    const info = await catalog(seen).catalog.lookup(machineSet('s', 0), ctx);
    expect(info).to.deep.equal({
      name: 'n2-standard-4',
      vCPU: 4,
      memoryMiB: 16384,
      gpuCount: 0,
      architecture: 'amd64',
    });
    expect(seen).to.deep.equal(['test-project/us-central1-a/n2-standard-4']);
  });

  it('counts built-in accelerators (A2) and the GPUs the spec attaches (N1)', async () => {
    const c = catalog([]).catalog;
    expect(await c.lookup(machineSet('a2', 0, gcpSpec({ machineType: 'a2-highgpu-1g' })), ctx)).to.include({
      gpuCount: 1,
      gpuType: 'nvidia.com/gpu',
      vCPU: 12,
    });
    const n1 = gcpSpec({
      machineType: 'n1-standard-8',
      onHostMaintenance: 'Terminate',
      gpus: [{ type: 'nvidia-tesla-t4', count: 2 }],
    });
    expect(await c.lookup(machineSet('n1', 0, n1), ctx)).to.include({ gpuCount: 2, gpuType: 'nvidia.com/gpu' });
  });

  it('says arm64 for Arm families (t2a, c4a, n4a) or when GCE says ARM64', async () => {
    expect(
      (await catalog([]).catalog.lookup(machineSet('arm', 0, gcpSpec({ machineType: 't2a-standard-4' })), ctx))
        ?.architecture,
    ).to.equal('arm64');
    expect(architectureOf('c4a-standard-8')).to.equal('arm64');
    expect(architectureOf('n4a-standard-2')).to.equal('arm64');
    expect(architectureOf('custom-4', 'ARM64')).to.equal('arm64');
    expect(architectureOf('c3-standard-4', 'X86_64')).to.equal('amd64');
  });

  it('caches per project, zone and type until the entry expires', async () => {
    const seen: string[] = [];
    const { clock, catalog: c } = catalog(seen);
    await c.lookup(machineSet('s', 0), ctx);
    await c.lookup(machineSet('s', 0), ctx);
    await c.lookup(machineSet('p', 0, gcpSpec({ projectID: 'other-project' })), ctx);
    expect(seen).to.have.length(2);
    clock.step(60_001);
    await c.lookup(machineSet('s', 0), ctx);
    expect(seen).to.have.length(3);
  });

  it('answers undefined for a type GCE does not know, and propagates other errors', async () => {
    expect(
      await catalog([]).catalog.lookup(machineSet('u', 0, gcpSpec({ machineType: 'n9-imaginary-2' })), ctx),
    ).to.equal(undefined);
    const boom = Object.assign(new Error('backend'), { httpStatusCode: 503 });
    const err = await catalog([], { error: boom })
      .catalog.lookup(machineSet('s', 0), ctx)
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(err).to.equal(boom);
  });

  it('rejects a template without a zone as a configuration error naming the template field', async () => {
    const err = await catalog([])
      .catalog.lookup(machineSet('z', 0, gcpSpec({ zone: '' })), ctx)
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(err).to.be.instanceOf(InvalidMachineConfigurationError);
    expect((err as InvalidMachineConfigurationError).field).to.equal('spec.template.spec.providerSpec.value.zone');
  });

  it('maps a machine type to the scale-from-zero view', () => {
    expect(
      toInstanceTypeInfo({
        name: 'g2-standard-4',
        guestCpus: 4,
        memoryMb: 16384,
        accelerators: [{ guestAcceleratorType: 'nvidia-l4', guestAcceleratorCount: 1 }],
      }),
    ).to.deep.equal({
      name: 'g2-standard-4',
      vCPU: 4,
      memoryMiB: 16384,
      gpuCount: 1,
      gpuType: 'nvidia.com/gpu',
      architecture: 'amd64',
    });
  });
});

describe('GCP instance-type catalog against the GCE emulator (real SDK)', function () {
  this.timeout(20_000);
  let emu: GceEmulator;
  let clients: GcpClientFactory;
  before(async () => {
    emu = await startGceEmulator();
    const clock = new FakeClock(0);
    clients = new GcpClientFactory({
      clock,
      createComputeApi: () =>
        new SdkComputeApi({ apiEndpoint: emu.endpoint, auth: { authClient: new PassThroughClient() } }),
    });
  });
  after(async () => {
    await emu.stop();
  });
  const annotationsOf = async (machineType: string) => {
    const catalog = createGcpInstanceTypeCatalog({ client: secretsClient(), clock: new FakeClock(0), clients });
    const info = await catalog.lookup(machineSet(machineType, 0, gcpSpec({ machineType })), ctx);
    expect(info, machineType).to.not.equal(undefined);
    return scaleFromZeroAnnotations(info!, undefined);
  };

  it('annotates an Axion (c4a) MachineSet as arm64 with its published vCPU and memory', async () => {
    expect(await annotationsOf('c4a-standard-8')).to.deep.equal({
      'machine.openshift.io/vCPU': '8',
      'machine.openshift.io/memoryMb': '32768',
      'machine.openshift.io/GPU': '0',
      'capacity.cluster-autoscaler.kubernetes.io/labels': 'kubernetes.io/arch=arm64',
      'capacity.cluster-autoscaler.kubernetes.io/cpu': '8',
      'capacity.cluster-autoscaler.kubernetes.io/memory': '32768Mi',
      'capacity.cluster-autoscaler.kubernetes.io/gpu-count': '0',
    });
  });

  it('annotates A3 (8x H100) and G2 (L4) MachineSets with their built-in GPUs', async () => {
    expect(await annotationsOf('a3-highgpu-8g')).to.include({
      'machine.openshift.io/vCPU': '208',
      'machine.openshift.io/memoryMb': '1916928',
      'machine.openshift.io/GPU': '8',
      'capacity.cluster-autoscaler.kubernetes.io/gpu-type': 'nvidia.com/gpu',
      'capacity.cluster-autoscaler.kubernetes.io/labels': 'kubernetes.io/arch=amd64',
    });
    expect(await annotationsOf('g2-standard-24')).to.include({
      'machine.openshift.io/vCPU': '24',
      'machine.openshift.io/memoryMb': '98304',
      'machine.openshift.io/GPU': '2',
    });
    expect(await annotationsOf('n4-standard-16')).to.include({
      'machine.openshift.io/vCPU': '16',
      'machine.openshift.io/memoryMb': '65536',
      'machine.openshift.io/GPU': '0',
    });
  });
});
