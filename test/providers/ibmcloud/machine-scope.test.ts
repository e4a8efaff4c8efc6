import { expect } from 'chai';
import { secretsReferencedBy } from '../../../providers/ibmcloud/machine-scope.js';
import { machine, ibmSpec } from './fixtures.js';

describe('the Secrets an IBM Cloud Machine names (what the machine controller watches for it)', () => {
  it('are its credentialsSecret and userDataSecret', () => {
    const m = machine('m', ibmSpec({ credentialsSecret: { name: 'team-credentials' }, userDataSecret: { name: 'team-user-data' } }));
    expect(secretsReferencedBy(m)).to.deep.equal(['team-credentials', 'team-user-data']);
  });

  it('names only what the spec names: IBM Cloud has no default Secrets', () => {
    const { credentialsSecret: _c, userDataSecret: _u, ...bare } = ibmSpec();
    expect(secretsReferencedBy(machine('m', bare))).to.deep.equal([]);
  });
});
