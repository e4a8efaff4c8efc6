// manifests/samples/ibmcloud: what `npm start -- --provider ibmcloud` applies. The providerSpec must decode
// cleanly with the provider's own reader, name only resources the VPC emulator seeds for the infrastructure
// "local", and refer to the Secrets the samples define, whose API key the emulator's IAM accepts.
import { join } from 'node:path';
import { expect } from 'chai';
import { labelSelectorMatches, type KubeObject, type LabelSelector, type Secret } from '../../../lib/index.js';
import { readSamples } from '../../../cmd/local/samples.js';
import { localProviders } from '../../../cmd/local/providers.js';
import { DEFAULT_API_KEY, defaultWorld } from '../../../sim/ibmcloud/index.js';
import { decodeProviderSpec, networkResourceGroupOf } from '../../../providers/ibmcloud/provider-spec.js';
import { repo } from '../../manifests/manifest-files.js';

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

describe('manifests/samples/ibmcloud', () => {
  const provider = localProviders.ibmcloud!;
  const samples = readSamples(join(repo, 'manifests', 'samples', provider.samplesDir)).map((s) => s.object);
  const byKind = (kind: string) => samples.filter((o) => o.kind === kind);
  const machineSet = byKind('MachineSet')[0] as MachineSetDoc;
  const decoded = () => decodeProviderSpec(machineSet.spec.template.spec.providerSpec.value);

  it('holds a MachineSet of 3, a MachineHealthCheck selecting it and the two Secrets, in openshift-machine-api', () => {
    expect(byKind('MachineSet')).to.have.length(1);
    expect(byKind('Secret')).to.have.length(2);
    expect(machineSet.spec.replicas).to.equal(3);
    for (const o of samples)
      expect(o.metadata.namespace, `${o.kind}/${o.metadata.name}`).to.equal('openshift-machine-api');
    const labels = machineSet.spec.template.metadata.labels;
    expect(labelSelectorMatches(machineSet.spec.selector, labels)).to.equal(true);
    const mhc = byKind('MachineHealthCheck')[0] as KubeObject & { spec: { selector: LabelSelector } };
    expect(labelSelectorMatches(mhc.spec.selector, labels)).to.equal(true);
  });

  it('has a providerSpec the provider decodes without warnings or unknown fields', () => {
    const { warnings, unknownFields } = decoded();
    expect(unknownFields).to.deep.equal([]);
    expect(warnings).to.deep.equal([]);
  });

  it('names only the VPC, subnet, security groups, image, resource group and profile the emulator seeds for "local"', () => {
    const { spec } = decoded();
    const w = defaultWorld({
      clusterId: machineSet.spec.template.metadata.labels['machine.openshift.io/cluster-api-cluster'],
      region: spec.region,
    });
    expect(w.vpcs.map((v) => v.name)).to.include(spec.vpc);
    expect(w.images.filter((i) => i.visibility === 'private').map((i) => i.name)).to.include(spec.image);
    expect(w.profiles.map((p) => p.name)).to.include(spec.profile);
    expect(w.zones).to.include(spec.zone);
    expect(w.resourceGroups.map((g) => g.name)).to.include.members([spec.resourceGroup, networkResourceGroupOf(spec)]);
    const subnet = w.subnets.find((s) => s.name === spec.primaryNetworkInterface.subnet);
    expect(subnet?.zone).to.equal(spec.zone);
    expect(w.securityGroups.map((g) => g.name)).to.include.members(spec.primaryNetworkInterface.securityGroups ?? []);
  });

  it('refers to the sample Secrets, and the credentials hold the API key the emulator accepts', () => {
    const { spec } = decoded();
    const secrets = byKind('Secret') as Secret[];
    const creds = secrets.find((s) => s.metadata.name === spec.credentialsSecret?.name);
    expect(creds?.stringData?.ibmcloud_api_key).to.equal(DEFAULT_API_KEY);
    expect(secrets.find((s) => s.metadata.name === spec.userDataSecret?.name)?.stringData?.userData).to.be.a('string');
  });
});
