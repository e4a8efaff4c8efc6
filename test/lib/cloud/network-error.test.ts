// One list of the codes that mean "no reply from the cloud", read by every cloud's classifier.
import { expect } from 'chai';
import { isNetworkErrorCode } from '../../../lib/cloud/network-error.js';
import { classifyEc2Error } from '../../../providers/aws/errors.js';
import { classifyGceError } from '../../../providers/gcp/errors.js';
import { classifyVpcError } from '../../../providers/ibmcloud/errors.js';

describe('network error codes', () => {
  it('knows the codes of a refused, reset, cut or unresolved connection, and nothing else', () => {
    for (const code of [
      'ECONNRESET',
      'ECONNREFUSED',
      'ECONNABORTED',
      'EPIPE',
      'ETIMEDOUT',
      'ENOTFOUND',
      'UND_ERR_SOCKET',
    ])
      expect(isNetworkErrorCode(code), code).to.equal(true);
    for (const code of ['EACCES', 'InvalidParameterValue', '', undefined, 42])
      expect(isNetworkErrorCode(code)).to.equal(false);
  });

  it('makes every cloud count an aborted connection as transient, the code AWS once missed', () => {
    const aborted = Object.assign(new Error('aborted'), { code: 'ECONNABORTED' });
    expect(classifyEc2Error(aborted)).to.equal('transient');
    expect(classifyGceError(aborted)).to.equal('transient');
    expect(classifyVpcError(aborted)).to.equal('transient');
  });
});
