// manifests/samples/aws: what `npm start` applies and what a cluster admin can `kubectl apply`. The providerSpec
// must decode cleanly with the AWS provider's own reader, name only resources the EC2 emulator seeds, and
// refer to the Secrets the samples define; every sample must be accepted by the local control plane.
import { expect } from 'chai';
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { labelSelectorMatches, type KubeObject, type LabelSelector, type Secret } from '../../lib/index.js';
import { readProviderConfig } from '../../providers/aws/provider-spec.js';
import { credentialsFromSecret } from '../../providers/aws/credentials.js';
import { defaultWorld, EMULATOR_ACCESS_KEY } from '../../sim/aws/index.js';
import { createIfAbsent, readSamples } from '../../cmd/local/samples.js';
import { localProviders } from '../../cmd/local/providers.js';
import { startTestEnv } from '../../sim/kit/index.js';
import { Namespaces, Secrets } from '../../lib/index.js';
import { readManifest, repo } from './manifest-files.js';

function yamlFiles(d: string): string[] {
  return readdirSync(d).flatMap((f) => {
    const p = join(d, f);
    if (statSync(p).isDirectory()) return yamlFiles(p);
    return f.endsWith('.yaml') || f.endsWith('.yml') ? [p] : [];
  });
}

describe('manifests/', () => {
  it('every YAML file parses, and every document has apiVersion, kind and metadata.name', () => {
    const files = yamlFiles(join(repo, 'manifests'));
    expect(files.length).to.be.greaterThan(10);
    for (const f of files) {
      for (const doc of readManifest(f)) {
        expect(doc.apiVersion, f).to.be.a('string');
        expect(doc.kind, f).to.be.a('string');
        expect(doc.metadata?.name, `${f}: ${doc.kind}`).to.be.a('string');
      }
    }
  });
});

const dir = join(repo, 'manifests', 'samples', 'aws');

interface MachineSetDoc extends KubeObject {
  spec: {
    replicas: number;
    selector: LabelSelector;
    template: {
      metadata: { labels: Record<string, string> };
      spec: { providerSpec: { value: Record<string, unknown> } };
    };
  };
}

describe('manifests/samples/aws', () => {
  const samples = readSamples(dir).map((s) => s.object);
  const byKind = (kind: string) => samples.filter((o) => o.kind === kind);
  const machineSet = byKind('MachineSet')[0] as MachineSetDoc;
  const spec = () => machineSet.spec.template.spec.providerSpec.value;

  it('holds a MachineSet of 3, a MachineHealthCheck and the credentials and user-data Secrets, all in openshift-machine-api', () => {
    expect(byKind('MachineSet')).to.have.length(1);
    expect(byKind('MachineHealthCheck')).to.have.length(1);
    expect(byKind('Secret')).to.have.length(2);
    expect(machineSet.spec.replicas).to.equal(3);
    for (const o of samples)
      expect(o.metadata.namespace, `${o.kind}/${o.metadata.name}`).to.equal('openshift-machine-api');
  });

  it('is the samples directory of the aws entry of the local environment', () => {
    expect(existsSync(join(repo, 'manifests', 'samples', localProviders.aws!.samplesDir))).to.equal(true);
    expect(join(repo, 'manifests', 'samples', localProviders.aws!.samplesDir)).to.equal(dir);
  });

  it('selects its own template with the MachineSet selector and with the MachineHealthCheck selector', () => {
    const labels = machineSet.spec.template.metadata.labels;
    expect(labelSelectorMatches(machineSet.spec.selector, labels)).to.equal(true);
    const mhc = byKind('MachineHealthCheck')[0] as KubeObject & { spec: { selector: LabelSelector } };
    expect(labelSelectorMatches(mhc.spec.selector, labels)).to.equal(true);
  });

  it('has a providerSpec the AWS provider decodes without errors, warnings or unknown fields', () => {
    const decoded = readProviderConfig(spec());
    expect(decoded.errors).to.deep.equal([]);
    expect(decoded.unknownFields).to.deep.equal([]);
    expect(decoded.warnings).to.deep.equal([]);
  });

  it('names only the AMI, subnet, security group, zone and instance type the EC2 emulator seeds', () => {
    const { config } = readProviderConfig(spec());
    const world = defaultWorld({ region: config.placement.region ?? '' });
    expect(world.images.map((i) => i.imageId)).to.include(config.ami.id);
    const subnet = world.subnets.find((s) => s.subnetId === config.subnet.id);
    expect(subnet, 'subnet').to.not.equal(undefined);
    expect(subnet!.availabilityZone).to.equal(config.placement.availabilityZone);
    for (const g of config.securityGroups ?? []) expect(world.securityGroups.map((x) => x.groupId)).to.include(g.id);
    expect(world.instanceTypes.map((t) => t.instanceType)).to.include(config.instanceType);
  });

  it('refers to Secrets the samples define, and the credentials Secret reads as AWS credentials', () => {
    const { config } = readProviderConfig(spec());
    const secrets = byKind('Secret') as Secret[];
    const credentials = secrets.find((s) => s.metadata.name === config.credentialsSecret?.name);
    expect(credentials, 'credentials secret').to.not.equal(undefined);
    expect(
      secrets.some((s) => s.metadata.name === config.userDataSecret?.name && s.stringData?.userData),
      'user-data secret',
    ).to.equal(true);
    expect(credentialsFromSecret(credentials!)).to.include(EMULATOR_ACCESS_KEY, 'the key the EC2 emulator knows');
  });

  it('is accepted by the local control plane, and applying it again changes nothing', async function () {
    this.timeout(30_000);
    const data = mkdtempSync(join(tmpdir(), 'samples-'));
    const env = await startTestEnv({ controlPlane: { dataDir: data } });
    try {
      await env.client.create(Namespaces, {
        apiVersion: 'v1',
        kind: 'Namespace',
        metadata: { name: 'openshift-machine-api' },
      });
      const all = readSamples(dir);
      expect(await createIfAbsent(env.client, all)).to.have.length(all.length);
      expect(await createIfAbsent(env.client, all)).to.deep.equal([]);
      const stored = await env.client.get(Secrets, {
        namespace: 'openshift-machine-api',
        name: 'aws-cloud-credentials',
      });
      expect(stored.stringData, 'stringData is moved into data on write').to.equal(undefined);
      expect(Buffer.from(stored.data?.aws_access_key_id ?? '', 'base64').toString()).to.match(/^AKIA/);
    } finally {
      await env.stop();
      rmSync(data, { recursive: true, force: true });
    }
  });
});
