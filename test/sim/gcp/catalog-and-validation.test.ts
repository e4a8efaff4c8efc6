import { expect } from 'chai';
import { startGceEmulator, type GceEmulator } from '../../../sim/gcp/index.js';
import {
  clientsFor,
  closeClients,
  errorOf,
  insert,
  instanceBody,
  PROJECT,
  REGION,
  waitDone,
  ZONE,
  type Clients,
} from './fixtures.js';

const X86_IMAGE = 'projects/rhcos-cloud/global/images/rhcos-9-6-20251023-0-gcp-x86-64';
const LEGACY_IMAGE = 'projects/rhcos-cloud/global/images/rhcos-410-84-202201250002-0-gcp-x86-64';

function bootFrom(image: string) {
  const body = instanceBody('x');
  const disk = body.disks?.[0];
  if (disk?.initializeParams) disk.initializeParams.sourceImage = image;
  return body.disks;
}

describe('GCE emulator: catalog reads', () => {
  let emu: GceEmulator;
  let c: Clients;
  before(async () => {
    emu = await startGceEmulator();
    c = clientsFor(emu);
  });
  after(async () => {
    await closeClients(c);
    await emu.stop();
  });

  it('gets machine types with CPUs, memory and built-in accelerators, and 404s unknown ones', async () => {
    const [a2] = await c.machineTypes.get({ project: PROJECT, zone: ZONE, machineType: 'a2-highgpu-1g' });
    expect(a2).to.deep.include({ guestCpus: 12, memoryMb: 87040, isSharedCpu: false });
    expect(a2.accelerators?.[0]).to.deep.include({
      guestAcceleratorType: 'nvidia-tesla-a100',
      guestAcceleratorCount: 1,
    });
    const [t2a] = await c.machineTypes.get({ project: PROJECT, zone: ZONE, machineType: 't2a-standard-4' });
    expect(t2a.architecture).to.equal('ARM64');
    const err = await errorOf(c.machineTypes.get({ project: PROJECT, zone: ZONE, machineType: 'x9-huge' }));
    expect(err.httpStatusCode).to.equal(404);
    expect(err.message).to.equal(`The resource 'projects/${PROJECT}/zones/${ZONE}/machineTypes/x9-huge' was not found`);
  });

  it("offers today's series with the published vCPU, memory, architecture and built-in GPUs", async () => {
    const published: Record<
      string,
      [guestCpus: number, memoryMb: number, architecture: string, accelerator?: string, count?: number]
    > = {
      'n4-standard-2': [2, 8192, 'X86_64'],
      'n4-highmem-8': [8, 65536, 'X86_64'],
      'c4-standard-2': [2, 7168, 'X86_64'],
      'c4-standard-16': [16, 61440, 'X86_64'],
      'c4-highmem-4': [4, 31744, 'X86_64'],
      'c4a-standard-8': [8, 32768, 'ARM64'],
      'c4a-highcpu-4': [4, 8192, 'ARM64'],
      'n2d-standard-16': [16, 65536, 'X86_64'],
      't2a-standard-2': [2, 8192, 'ARM64'],
      'a3-highgpu-8g': [208, 1916928, 'X86_64', 'nvidia-h100-80gb', 8],
      'g2-standard-4': [4, 16384, 'X86_64', 'nvidia-l4', 1],
      'g2-standard-24': [24, 98304, 'X86_64', 'nvidia-l4', 2],
      'g2-standard-96': [96, 393216, 'X86_64', 'nvidia-l4', 8],
    };
    for (const [name, figures] of Object.entries(published)) {
      const [mt] = await c.machineTypes.get({ project: PROJECT, zone: ZONE, machineType: name });
      const gpu = mt.accelerators?.[0];
      const seen = [
        mt.guestCpus,
        mt.memoryMb,
        mt.architecture,
        ...(gpu ? [gpu.guestAcceleratorType, gpu.guestAcceleratorCount] : []),
      ];
      expect(seen, name).to.deep.equal(figures);
    }
    expect(emu.world.acceleratorTypes.find((a) => a.name === 'nvidia-h100-80gb')).to.deep.include({
      description: 'NVIDIA H100 80GB',
      maximumCardsPerInstance: 8,
    });
  });

  it('lists machine types across pages and aggregates them per zone', async () => {
    const [all] = await c.machineTypes.list({ project: PROJECT, zone: ZONE, maxResults: 4 });
    expect(all.map((m) => m.name)).to.include.members([
      'e2-standard-4',
      'n1-standard-4',
      'n2-standard-8',
      'c3-standard-4',
      't2a-standard-4',
      'a2-highgpu-1g',
      'g2-standard-4',
    ]);
    expect(all.find((m) => m.name === 'g2-standard-4')?.accelerators?.[0]?.guestAcceleratorType).to.equal('nvidia-l4');
    const [a2only] = await c.machineTypes.list({ project: PROJECT, zone: ZONE, filter: 'name = a2-*' });
    expect(a2only.map((m) => m.name)).to.deep.equal(['a2-highgpu-1g']);
    const scopes: string[] = [];
    for await (const [scope, list] of c.machineTypes.aggregatedListAsync(
      { project: PROJECT, filter: 'name = "e2-standard-4"' },
      { autoPaginate: false },
    )) {
      if (list.machineTypes?.length) scopes.push(scope);
    }
    expect(scopes).to.deep.equal(['zones/us-central1-a', 'zones/us-central1-b', 'zones/us-central1-c']);
  });

  it('gets images with guestOsFeatures, and the newest non-deprecated image of a family', async () => {
    const [img] = await c.images.get({ project: 'rhcos-cloud', image: 'rhcos-9-6-20251023-0-gcp-x86-64' });
    expect(img.guestOsFeatures?.map((f) => f.type)).to.include('UEFI_COMPATIBLE');
    const [legacy] = await c.images.get({ project: 'rhcos-cloud', image: 'rhcos-410-84-202201250002-0-gcp-x86-64' });
    expect(legacy.guestOsFeatures?.map((f) => f.type)).to.not.include('UEFI_COMPATIBLE');
    const [fam] = await c.images.getFromFamily({ project: 'debian-cloud', family: 'debian-12' });
    expect(fam.name).to.equal('debian-12-bookworm-v20251014');
    const [view] = await c.imageFamilyViews.get({ project: 'debian-cloud', zone: ZONE, family: 'debian-12-arm64' });
    expect(view.image?.architecture).to.equal('ARM64');
    expect(
      (await errorOf(c.images.getFromFamily({ project: 'debian-cloud', family: 'nope' }))).httpStatusCode,
    ).to.equal(404);
  });

  it('resolves Resource Manager tag values by namespaced name under /v3, and answers 403 for unknown ones', async () => {
    const { tagKey, tagValue } = emu.addTagValue('openshift', 'env', 'prod');
    const res = await fetch(`${emu.endpoint}/v3/tagValues/namespaced?name=${encodeURIComponent('openshift/env/prod')}`);
    expect(res.status).to.equal(200);
    expect(await res.json()).to.deep.include({
      name: tagValue,
      parent: tagKey,
      namespacedName: 'openshift/env/prod',
      shortName: 'prod',
    });
    expect(emu.addTagValue('openshift', 'env', 'dev').tagKey).to.equal(tagKey);
    const missing = await fetch(
      `${emu.endpoint}/v3/tagValues/namespaced?name=${encodeURIComponent('openshift/env/nope')}`,
    );
    expect(missing.status).to.equal(403);
  });

  it('gets regions (zones, quotas), zones and projects, and 404s a missing project naming it', async () => {
    const [region] = await c.regions.get({ project: PROJECT, region: REGION });
    expect(region.zones).to.have.length(3);
    expect(region.quotas?.map((q) => q.metric)).to.include.members([
      'CPUS',
      'NVIDIA_A100_GPUS',
      'PREEMPTIBLE_NVIDIA_A100_GPUS',
    ]);
    const [zone] = await c.zones.get({ project: PROJECT, zone: ZONE });
    expect(zone.region).to.equal(`https://www.googleapis.com/compute/v1/projects/${PROJECT}/regions/${REGION}`);
    const [project] = await c.projects.get({ project: PROJECT });
    expect(project.name).to.equal(PROJECT);
    const err = await errorOf(c.projects.get({ project: 'other-project' }));
    expect(err.httpStatusCode).to.equal(404);
    expect(err.message).to.contain("'projects/other-project'");
  });
});

describe('GCE emulator: insert validation as GCE answers it', () => {
  let emu: GceEmulator;
  let c: Clients;
  before(async () => {
    emu = await startGceEmulator({ bootDelayMs: 20, stopDelayMs: 20 });
    c = clientsFor(emu);
  });
  after(async () => {
    await closeClients(c);
    await emu.stop();
  });

  it('refuses an unknown machine type with 400 naming the type and zone', async () => {
    const err = await errorOf(insert(c, 'v-mt', { machineType: `zones/${ZONE}/machineTypes/x9-huge` }));
    expect(err.httpStatusCode).to.equal(400);
    expect(err.message).to.contain(`Machine type with name 'x9-huge' does not exist in zone '${ZONE}'`);
  });

  it('refuses an unknown image with 404 and an unknown zone with 400', async () => {
    const img = await errorOf(insert(c, 'v-img', { disks: bootFrom('projects/rhcos-cloud/global/images/nope') }));
    expect(img.httpStatusCode).to.equal(404);
    expect(img.message).to.equal("The resource 'projects/rhcos-cloud/global/images/nope' was not found");
    const zone = await errorOf(
      c.instances.insert({ project: PROJECT, zone: 'us-central1-z', instanceResource: instanceBody('v-zone') }),
    );
    expect(zone.httpStatusCode).to.equal(400);
    expect(zone.message).to.contain("'zone'");
  });

  it('refuses Shielded VM options on a non-UEFI image unless all are disabled', async () => {
    const err = await errorOf(insert(c, 'v-uefi', { disks: bootFrom(LEGACY_IMAGE) }));
    expect(err.httpStatusCode).to.equal(400);
    expect(err.message).to.contain('UEFI-compatible');
    await insert(c, 'v-uefi', {
      disks: bootFrom(LEGACY_IMAGE),
      shieldedInstanceConfig: { enableSecureBoot: false, enableVtpm: false, enableIntegrityMonitoring: false },
    });
    expect(emu.instance('v-uefi')?.shieldedInstanceConfig).to.equal(undefined);
  });

  it('refuses an x86 image on an Arm machine type', async () => {
    const err = await errorOf(
      insert(c, 'v-arch', { machineType: `zones/${ZONE}/machineTypes/t2a-standard-4`, disks: bootFrom(X86_IMAGE) }),
    );
    expect(err.httpStatusCode).to.equal(400);
    expect(err.message).to.contain('architecture');
  });

  it('requires onHostMaintenance TERMINATE for GPU machine types and reports their built-in accelerator', async () => {
    const err = await errorOf(insert(c, 'v-gpu', { machineType: `zones/${ZONE}/machineTypes/a2-highgpu-1g` }));
    expect(err.httpStatusCode).to.equal(400);
    expect(err.message).to.contain('live migration');
    await insert(c, 'v-gpu', {
      machineType: `zones/${ZONE}/machineTypes/a2-highgpu-1g`,
      scheduling: { onHostMaintenance: 'Terminate' },
    });
    const [inst] = await c.instances.get({ project: PROJECT, zone: ZONE, instance: 'v-gpu' });
    expect(inst.guestAccelerators?.[0]?.acceleratorType).to.match(/acceleratorTypes\/nvidia-tesla-a100$/);
    expect(inst.scheduling?.onHostMaintenance).to.equal('TERMINATE');
  });

  it('refuses a metadata value over 256 KB and metadata over 512 KB in all, without echoing the value', async () => {
    const value = (n: number) => 'v'.repeat(n);
    const one = await errorOf(
      insert(c, 'v-md', { metadata: { items: [{ key: 'user-data', value: value(262_145) }] } }),
    );
    expect(one.httpStatusCode).to.equal(400);
    expect(one.message).to.contain(
      "Value for field 'resource.metadata.items[0].value' is too large: maximum size 262144 character(s); actual size 262145.",
    );
    expect(one.message).not.to.contain('vvvv');
    const items = [0, 1].map((i) => ({ key: `k${i}`, value: value(262_144) }));
    const all = await errorOf(insert(c, 'v-md', { metadata: { items } }));
    expect(all.httpStatusCode).to.equal(400);
    expect(all.message).to.contain('maximum total size of 524288 bytes');
    await insert(c, 'v-md', { metadata: { items: [{ key: 'user-data', value: value(262_144) }] } });
  });

  it('refuses bad labels and a missing boot disk', async () => {
    const labels = await errorOf(insert(c, 'v-lab', { labels: { 'Bad Key': 'x' } }));
    expect(labels.httpStatusCode).to.equal(400);
    expect(labels.message).to.contain('resource.labels.key');
    const noDisk = await errorOf(insert(c, 'v-disk', { disks: [] }));
    expect(noDisk.httpStatusCode).to.equal(400);
  });

  it('defaults a Spot instance to TERMINATE without restart, and preemption stops it with GCE status message', async () => {
    await waitDone(c, await insert(c, 'spot-a', { scheduling: { provisioningModel: 'SPOT' } }));
    const [spot] = await c.instances.get({ project: PROJECT, zone: ZONE, instance: 'spot-a' });
    expect(spot.scheduling).to.deep.include({
      provisioningModel: 'SPOT',
      automaticRestart: false,
      onHostMaintenance: 'TERMINATE',
      instanceTerminationAction: 'STOP',
    });
    expect(() => emu.preempt('v-gpu')).to.throw(/neither Spot nor preemptible/);
    emu.setTimings({ preemptionNoticeMs: 0 }); // the notice period has its own test (instance-metadata)
    emu.preempt('spot-a');
    expect(emu.instance('spot-a')).to.deep.include({ status: 'STOPPING', statusMessage: 'Instance was preempted.' });
    const [ops] = await c.zoneOps.list({
      project: PROJECT,
      zone: ZONE,
      filter: 'operationType = compute.instances.preempted',
    });
    expect(ops).to.have.length(1);
    await waitDone(c, ops[0] ?? {});
    expect(emu.instance('spot-a')?.status).to.equal('TERMINATED');
    expect(
      emu
        .instanceView()
        .listInstances()
        .find((i) => i.nodeName === 'spot-a')?.state,
    ).to.equal('stopped');
  });
});
