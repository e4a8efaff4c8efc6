import { expect } from 'chai';
import { classifyVpcError, describeVpcError, isRetryableVpcError } from '../../../providers/ibmcloud/errors.js';
import { VpcApiError, type IbmService } from '../../../providers/ibmcloud/vpc-api-error.js';

const e = (status: number, code: string, service: IbmService = 'vpc') =>
  new VpcApiError({ service, operation: 'createInstance', status, code, message: 'm', trace: 't-1' });

describe('IBM Cloud error classification', () => {
  const cases: Array<[string, unknown, string]> = [
    ['429', e(429, 'rate_limit_exceeded'), 'throttled'],
    ['500', e(500, 'internal_error'), 'transient'],
    ['503', e(503, 'service_unavailable'), 'transient'],
    ['no response (status 0)', e(0, 'ECONNRESET'), 'transient'],
    ['a quota answer', e(400, 'over_quota'), 'capacity'],
    ['a capacity answer', e(400, 'insufficient_capacity'), 'capacity'],
    ['a 5xx that mentions capacity stays transient', e(503, 'insufficient_capacity'), 'transient'],
    ['an IAM failure, even a 400', e(400, 'BXNIM0415E', 'iam'), 'unauthorized'],
    ['a throttled IAM call', e(429, 'rate_limit_exceeded', 'iam'), 'throttled'],
    ['403', e(403, 'forbidden'), 'unauthorized'],
    ['404', e(404, 'not_found'), 'notFound'],
    ['409 name taken', e(409, 'validation_unique_failed'), 'alreadyExists'],
    ['another 409', e(409, 'conflict'), 'transient'],
    ['a malformed 200 page', e(200, 'malformed_response'), 'transient'],
    ['400 bad field', e(400, 'bad_field'), 'invalid'],
    ['a socket error', Object.assign(new Error('reset'), { code: 'ECONNRESET' }), 'transient'],
    ['an abort', Object.assign(new Error('aborted'), { name: 'AbortError' }), 'other'],
  ];
  for (const [what, err, cls] of cases) {
    it(`classifies ${what} as ${cls}`, () => expect(classifyVpcError(err)).to.equal(cls));
  }

  it('treats only invalid requests as terminal', () => {
    expect(isRetryableVpcError(e(400, 'bad_field'))).to.equal(false);
    for (const s of [0, 401, 403, 404, 409, 429, 500]) expect(isRetryableVpcError(e(s, 'x')), String(s)).to.equal(true);
  });

  it('describes an error with its trace id', () => {
    expect(describeVpcError(e(500, 'internal_error'))).to.equal(
      'vpc createInstance: HTTP 500 internal_error: m (trace t-1)',
    );
  });
});
