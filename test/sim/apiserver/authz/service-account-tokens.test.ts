// ServiceAccount tokens: what is minted verifies under the same key only, and any change to it is refused.
import { expect } from 'chai';
import { ServiceAccountTokens } from '../../../../sim/apiserver/authz/service-account-tokens.js';

const sa = { namespace: 'openshift-machine-api', name: 'machine-api-controllers', uid: 'u-1' };

describe('ServiceAccount tokens', () => {
  it('verifies a token it minted, naming the account and uid', () => {
    const tokens = new ServiceAccountTokens('admin-token');
    expect(new ServiceAccountTokens('admin-token').verify(tokens.mint(sa, 0))).to.deep.equal(sa);
  });

  it('refuses a token signed under another key, a changed payload and anything that is not a token', () => {
    const token = new ServiceAccountTokens('admin-token').mint(sa, 0);
    const verifier = new ServiceAccountTokens('admin-token');
    expect(new ServiceAccountTokens('other').verify(token)).to.equal(undefined);
    const [h, , s] = token.split('.');
    const forged = Buffer.from(
      JSON.stringify({ 'kubernetes.io': { namespace: 'kube-system', serviceaccount: { name: 'x', uid: 'u-1' } } }),
    ).toString('base64url');
    expect(verifier.verify(`${h}.${forged}.${s}`)).to.equal(undefined);
    expect(verifier.verify('admin-token')).to.equal(undefined);
    expect(verifier.verify('a.b.c')).to.equal(undefined);
  });
});
