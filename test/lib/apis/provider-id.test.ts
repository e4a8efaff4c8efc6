import { expect } from 'chai';
import { normalizeProviderID } from '../../../lib/apis/provider-id.js';

describe('normalizeProviderID', () => {
  it('compares the scheme and the last path segment, case-insensitively', () => {
    expect(normalizeProviderID('aws:///us-east-1a/i-0ABC')).to.equal('aws:i-0abc');
    expect(normalizeProviderID('aws:///i-0abc')).to.equal('aws:i-0abc');
    expect(normalizeProviderID('AWS:///US-EAST-1A/I-0ABC')).to.equal('aws:i-0abc');
    expect(normalizeProviderID('gce://project/us-central1-a/vm-1')).to.equal('gce:vm-1');
    expect(normalizeProviderID('ibm://acct/eu-de/eu-de-1/0787_abc/')).to.equal('ibm:0787_abc');
  });

  it('keeps clouds apart', () => {
    expect(normalizeProviderID('aws:///i-1')).to.not.equal(normalizeProviderID('gce://p/z/i-1'));
  });

  it('gives nothing for an empty id', () => {
    expect(normalizeProviderID('')).to.equal(undefined);
    expect(normalizeProviderID(undefined)).to.equal(undefined);
    expect(normalizeProviderID('aws:///')).to.equal(undefined);
  });
});
