// The GCP samples and provider manifests agree with the provider and with the emulator's default world.
import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import { parseAllDocuments } from 'yaml';
import type { MachineSet, Secret } from '../../../lib/index.js';
import { credentialsFromSecret, decodeProviderSpec, SdkComputeApi } from '../../../providers/gcp/index.js';
import {
  DEFAULT_CLUSTER_ID,
  DEFAULT_IMAGES,
  DEFAULT_PROJECT,
  DEFAULT_ZONES,
  DEFAULT_MACHINE_TYPES,
  EMULATOR_SERVICE_ACCOUNT_KEY,
} from '../../../sim/gcp/index.js';

const repo = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');

function docs(dir: string): Array<Record<string, unknown>> {
  return readdirSync(dir)
    .filter((f) => f.endsWith('.yaml'))
    .sort()
    .flatMap((f) =>
      parseAllDocuments(readFileSync(join(dir, f), 'utf8')).map((d) => d.toJS() as Record<string, unknown>),
    );
}

const samples = docs(join(repo, 'manifests', 'samples', 'gcp'));
const kind = (k: string) => samples.filter((d) => d.kind === k);

describe('GCP samples (manifests/samples/gcp)', () => {
  it('hold a MachineSet of 3 whose providerSpec decodes cleanly and matches the emulator world', () => {
    const [ms] = kind('MachineSet') as unknown as MachineSet[];
    expect(ms?.spec?.replicas).to.equal(3);
    const { spec, unknownFields } = decodeProviderSpec(ms?.spec?.template?.spec?.providerSpec?.value);
    expect(unknownFields).to.deep.equal([]);
    expect(spec.projectID).to.equal(DEFAULT_PROJECT);
    expect(DEFAULT_ZONES).to.include(spec.zone);
    expect(DEFAULT_MACHINE_TYPES.map((t) => t.name)).to.include(spec.machineType);
    expect(DEFAULT_IMAGES.map((i) => `projects/${i.project}/global/images/${i.name}`)).to.include(spec.disks[0]?.image);
    expect(spec.networkInterfaces[0]).to.deep.include({
      network: `${DEFAULT_CLUSTER_ID}-network`,
      subnetwork: `${DEFAULT_CLUSTER_ID}-worker-subnet`,
    });
    expect(ms?.metadata.labels?.['machine.openshift.io/cluster-api-cluster']).to.equal(DEFAULT_CLUSTER_ID);
  });

  it('hold a credentials Secret whose service_account.json is the key the emulator knows, in its project', () => {
    const secret = kind('Secret').find(
      (s) => (s.metadata as { name: string }).name === 'gcp-cloud-credentials',
    ) as unknown as Secret;
    const creds = credentialsFromSecret(secret);
    expect(creds.projectId).to.equal(DEFAULT_PROJECT);
    expect(creds.json).to.deep.equal(EMULATOR_SERVICE_ACCOUNT_KEY);
  });

  it('hold the user-data Secret and a MachineHealthCheck selecting the MachineSet', () => {
    expect(kind('Secret').map((s) => (s.metadata as { name: string }).name)).to.include('worker-user-data');
    const [mhc] = kind('MachineHealthCheck') as Array<{ spec: { selector: { matchLabels: Record<string, string> } } }>;
    expect(mhc?.spec.selector.matchLabels['machine.openshift.io/cluster-api-machineset']).to.equal(
      'test-cluster-worker-a',
    );
  });
});

describe('GCP provider manifests (manifests/providers/gcp)', () => {
  const provider = docs(join(repo, 'manifests', 'providers', 'gcp'));

  it("run the GCP provider binary in the machine-api Deployment (the gcp image's /machine-controller-manager)", () => {
    const dep = provider.find((d) => d.kind === 'Deployment') as {
      spec: { template: { spec: { containers: Array<{ name: string; image: string; command: string[] }> } } };
    };
    const machine = dep.spec.template.spec.containers.find((c) => c.name === 'machine-controller');
    expect(machine?.command).to.deep.equal(['/machine-controller-manager']);
    expect(machine?.image).to.equal('machine-api-ts-gcp:latest');
  });

  it('request a permission for every Compute call the provider makes', () => {
    const cr = provider.find((d) => d.kind === 'CredentialsRequest') as {
      spec: { secretRef: { name: string }; providerSpec: { kind: string; permissions: string[] } };
    };
    expect(cr.spec.secretRef.name).to.equal('gcp-cloud-credentials');
    expect(cr.spec.providerSpec.kind).to.equal('GCPProviderSpec');
    const needs: Record<string, string> = {
      insertInstance: 'compute.instances.create',
      getInstance: 'compute.instances.get',
      listInstances: 'compute.instances.list',
      deleteInstance: 'compute.instances.delete',
      getZoneOperation: 'compute.zoneOperations.get',
      getMachineType: 'compute.machineTypes.get',
      getRegion: 'compute.regions.get',
      getImage: 'compute.images.get',
      getImageFamilyView: 'compute.images.getFromFamily',
      getTargetPool: 'compute.targetPools.get',
      addTargetPoolInstance: 'compute.targetPools.addInstance',
      removeTargetPoolInstance: 'compute.targetPools.removeInstance',
      getInstanceGroup: 'compute.instanceGroups.get',
      insertInstanceGroup: 'compute.instanceGroups.create',
      listInstanceGroupInstances: 'compute.instanceGroups.list',
      addInstanceGroupInstances: 'compute.instanceGroups.update',
      removeInstanceGroupInstances: 'compute.instanceGroups.update',
      getRegionBackendService: 'compute.regionBackendServices.get',
      updateRegionBackendService: 'compute.regionBackendServices.update',
    };
    const methods = Object.getOwnPropertyNames(SdkComputeApi.prototype).filter(
      (m) => m !== 'constructor' && m !== 'close' && m !== 'client' && m !== 'call',
    );
    expect(methods.sort()).to.deep.equal(Object.keys(needs).sort());
    for (const perm of Object.values(needs)) expect(cr.spec.providerSpec.permissions).to.include(perm);
  });
});
