import { expect } from 'chai';
import { secretsReferencedBy } from '../../../providers/aws/machine-scope.js';
import { machine, awsSpec } from './fixtures.js';

describe('the Secrets an AWS Machine names (what the machine controller watches for it)', () => {
  it('are its credentialsSecret and userDataSecret', () => {
    const m = machine('m', awsSpec({ credentialsSecret: { name: 'team-credentials' }, userDataSecret: { name: 'team-user-data' } }));
    expect(secretsReferencedBy(m)).to.deep.equal(['team-credentials', 'team-user-data']);
  });

  it('applies the defaults the webhook would: aws-cloud-credentials and worker-user-data when the spec names none', () => {
    const { credentialsSecret: _c, userDataSecret: _u, ...bare } = awsSpec();
    expect(secretsReferencedBy(machine('m', bare))).to.deep.equal(['aws-cloud-credentials', 'worker-user-data']);
  });
});
