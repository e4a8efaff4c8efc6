// The operation helpers of compute-api.ts, against the SDK's own enum (the provider does not load the SDK's
// static protos at run time, so the value it uses must stay what the SDK says).
import { expect } from 'chai';
import { protos } from '@google-cloud/compute';
import { OPERATION_STATUS_DONE, isOperationDone, throwIfOperationFailed } from '../../../providers/gcp/compute-api.js';
import { classifyGceError } from '../../../providers/gcp/errors.js';

describe('zone operations as the provider reads them', () => {
  it('knows DONE by the SDK enum number the REST transport sends', () => {
    expect(OPERATION_STATUS_DONE).to.equal(protos.google.cloud.compute.v1.Operation.Status.DONE);
  });

  it('calls an operation done by its name or its number, and nothing else done', () => {
    expect(isOperationDone({ status: 'DONE' })).to.equal(true);
    expect(isOperationDone({ status: OPERATION_STATUS_DONE })).to.equal(true);
    expect(isOperationDone({ status: 'RUNNING' })).to.equal(false);
    expect(isOperationDone({ status: protos.google.cloud.compute.v1.Operation.Status.PENDING })).to.equal(false);
  });

  it("throws a finished operation's own error, classified as GCE would (a stock-out is a capacity refusal)", () => {
    expect(() => throwIfOperationFailed({ name: 'op-1', status: 'DONE' })).to.not.throw();
    let thrown: unknown;
    try {
      throwIfOperationFailed({
        name: 'op-1',
        status: 'DONE',
        error: { errors: [{ code: 'ZONE_RESOURCE_POOL_EXHAUSTED', message: 'no capacity' }] },
      });
    } catch (err) {
      thrown = err;
    }
    expect(classifyGceError(thrown)).to.equal('capacity');
  });
});
