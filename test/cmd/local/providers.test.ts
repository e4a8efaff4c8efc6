// The clouds npm start can emulate are the registry's: each descriptor joined with its simulation and its binary.
import { expect } from 'chai';
import { cloudProviders, UnknownCloudProviderError } from '../../../cmd/internal/index.js';
import { localProvider, localProviders } from '../../../cmd/local/providers.js';

describe('local providers', () => {
  it('has one entry per registered cloud, named as its descriptor and running the binary the descriptor names', () => {
    expect(Object.keys(localProviders)).to.deep.equal(cloudProviders.map((d) => d.name));
    for (const d of cloudProviders) {
      const p = localProvider(d.name);
      expect(p.name).to.equal(d.name);
      expect(p.binary.name).to.equal(d.component);
      expect(p.binary.script).to.equal(`cmd/${d.component}.ts`);
      expect(p.samplesDir).to.equal(d.name);
    }
  });

  it('rejects an unknown cloud, naming the flag and the choices', () => {
    expect(() => localProvider('azure'))
      .to.throw(UnknownCloudProviderError)
      .with.property('message', '--provider must be one of aws, gcp, ibmcloud, got "azure"');
  });
});
