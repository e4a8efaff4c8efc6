import { expect } from 'chai';
import { secretsReferencedBy } from '../../../providers/gcp/machine-scope.js';
import { machine, gcpSpec } from './fixtures.js';

describe('the Secrets a GCP Machine names (what the machine controller watches for it)', () => {
  it('are its credentialsSecret and userDataSecret', () => {
    const m = machine('m', gcpSpec({ credentialsSecret: { name: 'team-credentials' }, userDataSecret: { name: 'team-user-data' } }));
    expect(secretsReferencedBy(m)).to.deep.equal(['team-credentials', 'team-user-data']);
  });

  it('applies the defaults the webhook would: gcp-cloud-credentials and worker-user-data when the spec names none', () => {
    const { credentialsSecret: _c, userDataSecret: _u, ...bare } = gcpSpec();
    expect(secretsReferencedBy(machine('m', bare))).to.deep.equal(['gcp-cloud-credentials', 'worker-user-data']);
  });
});
