import { expect } from 'chai';
import { checkUserDataSize, checkUserDataTotal } from '../../../lib/cloud/user-data-limit.js';
import { InvalidMachineConfigurationError } from '../../../lib/apis/errors.js';

const source = { namespace: 'openshift-machine-api', name: 'worker-user-data', key: 'userData' };
const limit = { maxBytes: 16_384, what: 'EC2 user data (counted before base64 encoding)' };
const thrown = (fn: () => void): unknown => {
  try {
    fn();
  } catch (err) {
    return err;
  }
  return undefined;
};

describe('checkUserDataSize', () => {
  it('accepts user data up to and including the limit', () => {
    expect(thrown(() => checkUserDataSize(source, 0, limit))).to.equal(undefined);
    expect(thrown(() => checkUserDataSize(source, 16_384, limit))).to.equal(undefined);
  });

  it('fails one byte over as InvalidConfiguration at userDataSecret, naming the Secret, its key, the size and the limit', () => {
    const err = thrown(() => checkUserDataSize(source, 16_385, limit));
    expect(err).to.be.instanceOf(InvalidMachineConfigurationError);
    expect(err).to.include({
      reason: 'InvalidConfiguration',
      field: 'spec.providerSpec.value.userDataSecret',
      message:
        'user data in Secret openshift-machine-api/worker-user-data (key "userData") is 16385 bytes, over the limit ' +
        'of 16384 bytes for EC2 user data (counted before base64 encoding)',
    });
  });
});

describe('checkUserDataTotal', () => {
  const total = { maxBytes: 524_288, what: 'GCE instance metadata in all (every key and value)' };

  it('accepts a total up to and including the limit, whatever the user data share', () => {
    expect(thrown(() => checkUserDataTotal(source, 200_000, 524_288, total))).to.equal(undefined);
  });

  it('fails a total over the limit, naming the Secret, its share, the total and the limit', () => {
    const err = thrown(() => checkUserDataTotal(source, 262_144, 600_000, total));
    expect(err).to.be.instanceOf(InvalidMachineConfigurationError);
    expect(err).to.include({
      field: 'spec.providerSpec.value.userDataSecret',
      message:
        'user data in Secret openshift-machine-api/worker-user-data (key "userData") is 262144 bytes, which makes ' +
        '600000 bytes of GCE instance metadata in all (every key and value), over the limit of 524288 bytes',
    });
  });
});
