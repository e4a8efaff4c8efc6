// The one list of clouds the binaries serve, and what the termination handler and the webhooks read from it.
import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { COMPONENT as AWS_COMPONENT } from '../../../cmd/machine-api-provider-aws.js';
import { COMPONENT as GCP_COMPONENT } from '../../../cmd/machine-api-provider-gcp.js';
import { COMPONENT as IBM_COMPONENT } from '../../../cmd/machine-api-provider-ibmcloud.js';
import {
  cloudProvider,
  cloudProviders,
  machineAdmissionPlugins,
  metadataEndpointsFromEnv,
  noticeSources,
  UnknownCloudProviderError,
} from '../../../cmd/internal/index.js';
import { repo } from '../../manifests/manifest-files.js';

const SDKS = ['@aws-sdk/', '@smithy/', '@google-cloud/', 'google-auth-library', 'ibm-cloud-sdk-core'];

/** Every package a module loads, following its relative imports through the tree. */
function packagesLoadedBy(entry: string): Set<string> {
  const seen = new Set<string>();
  const packages = new Set<string>();
  const visit = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    for (const m of readFileSync(file, 'utf8').matchAll(/^(?:import|export)\s[^;]*?from '([^']+)'/gms)) {
      const spec = m[1] ?? '';
      if (spec.startsWith('.')) visit(resolve(dirname(file), spec).replace(/\.js$/, '.ts'));
      else packages.add(spec);
    }
  };
  visit(entry);
  return packages;
}

describe('cloud providers', () => {
  it('names each cloud once, by its binary, platform and providerID scheme', () => {
    expect(cloudProviders.map((p) => p.name)).to.deep.equal(['aws', 'gcp', 'ibmcloud']);
    expect(cloudProviders.map((p) => p.component)).to.deep.equal([AWS_COMPONENT, GCP_COMPONENT, IBM_COMPONENT]);
    expect(cloudProviders.map((p) => p.platformType)).to.deep.equal(['AWS', 'GCP', 'IBMCloud']);
    expect(cloudProviders.map((p) => p.providerIdScheme)).to.deep.equal(['aws', 'gce', 'ibm']);
    for (const p of cloudProviders) expect(p.admission.platform, p.name).to.equal(p.platformType);
    expect(machineAdmissionPlugins).to.deep.equal(cloudProviders.map((p) => p.admission));
  });

  it('finds a cloud by name, and names the known ones for any other', () => {
    expect(cloudProvider('gcp').platformType).to.equal('GCP');
    expect(() => cloudProvider('azure')).to.throw(
      UnknownCloudProviderError,
      '--provider must be one of aws, gcp, ibmcloud',
    );
  });

  it('loads no cloud SDK: the webhook and termination-handler binaries read every descriptor and call no cloud', () => {
    for (const p of cloudProviders) {
      const loaded = [...packagesLoadedBy(join(repo, 'providers', p.name, 'descriptor.ts'))];
      expect(
        loaded.filter((pkg) => SDKS.some((sdk) => pkg.startsWith(sdk))),
        p.name,
      ).to.deep.equal([]);
    }
  });

  describe('metadata endpoints of the termination handler', () => {
    it("defaults to each cloud's link-local metadata service, for the clouds that announce reclaims", () => {
      expect(metadataEndpointsFromEnv({}, cloudProviders)).to.deep.equal({
        aws: 'http://169.254.169.254',
        gce: '169.254.169.254',
      });
    });

    it("takes the overrides the clouds' own libraries read", () => {
      const env = { AWS_EC2_METADATA_SERVICE_ENDPOINT: 'http://127.0.0.1:9001', GCE_METADATA_HOST: '127.0.0.1:9002' };
      expect(metadataEndpointsFromEnv(env, cloudProviders)).to.deep.equal({
        aws: 'http://127.0.0.1:9001',
        gce: '127.0.0.1:9002',
      });
    });

    it('refuses a malformed override, naming the variable and the form it needs', () => {
      expect(() => metadataEndpointsFromEnv({ AWS_EC2_METADATA_SERVICE_ENDPOINT: 'imds' }, cloudProviders)).to.throw(
        'AWS_EC2_METADATA_SERVICE_ENDPOINT must be an http(s) URL',
      );
      expect(() => metadataEndpointsFromEnv({ GCE_METADATA_HOST: 'http://x/y' }, cloudProviders)).to.throw(
        /^GCE_METADATA_HOST the GCE metadata host must be "host" or "host:port"/,
      );
    });

    it('gives one notice source per announcing cloud, each reading its own endpoint, and none for IBM Cloud', () => {
      const sources = noticeSources(cloudProviders, metadataEndpointsFromEnv({}, cloudProviders), 5);
      expect(Object.keys(sources).sort()).to.deep.equal(['aws', 'gce']);
      expect(sources.aws?.().cloud).to.equal('aws');
      expect(sources.gce?.().cloud).to.equal('gcp');
    });
  });
});
