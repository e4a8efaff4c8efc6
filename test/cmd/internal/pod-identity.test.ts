import { expect } from 'chai';
import { podIdentity } from '../../../cmd/internal/pod-identity.js';

describe('podIdentity', () => {
  it('reads RELEASE_VERSION and NODE_NAME as the operator sets them on the provider container', () => {
    expect(podIdentity({ RELEASE_VERSION: '4.19.7', NODE_NAME: 'master-0' })).to.deep.equal({
      releaseVersion: '4.19.7',
      node: 'master-0',
    });
  });

  it('says "unknown" for a missing or empty RELEASE_VERSION, as the operator does, and that no Node is known outside a pod', () => {
    expect(podIdentity({})).to.deep.equal({ releaseVersion: 'unknown', node: '(unknown)' });
    expect(podIdentity({ RELEASE_VERSION: '', NODE_NAME: '' })).to.deep.equal({
      releaseVersion: 'unknown',
      node: '(unknown)',
    });
  });
});
