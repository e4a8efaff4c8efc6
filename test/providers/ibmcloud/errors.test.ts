import { expect } from 'chai';
import { RealClock, RegionalRateLimiter } from '../../../lib/index.js';
import {
  classifyVpcError,
  describeVpcError,
  isRetryableVpcError,
  mayHaveLaunched,
} from '../../../providers/ibmcloud/errors.js';
import { MeteredVpcApi } from '../../../providers/ibmcloud/metered-vpc-api.js';
import { VpcApiError, type IbmService } from '../../../providers/ibmcloud/vpc-api-error.js';
import { apiError, clientFor, startEmulator, workerPrototype } from './ibm-test-env.js';

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
    // A body too large for the VPC to read, and the other deterministic 4xx: the same answer on every retry.
    ['413 request_too_large', e(413, 'request_too_large'), 'invalid'],
    ['415', e(415, 'unsupported_media_type'), 'invalid'],
    ['405', e(405, 'method_not_allowed'), 'invalid'],
    ['422', e(422, 'unprocessable'), 'invalid'],
    ['407 (a proxy wanting credentials)', e(407, 'proxy_authentication_required'), 'unauthorized'],
    ["412 (what it means is the call's)", e(412, 'precondition_failed'), 'other'],
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

describe('an oversize POST /instances through the real SDK and the VPC emulator', function () {
  this.timeout(30_000);

  it('is a 413 request_too_large sent once (no retry by the SDK or the metered client), classified as terminal', async () => {
    const { emu } = await startEmulator({ clock: new RealClock(), maxBodyBytes: 16 * 1024 });
    try {
      const limiter = new RegionalRateLimiter(
        { describe: { qps: 100, burst: 100 }, mutate: { qps: 100, burst: 100 } },
        new RealClock(),
      );
      const api = new MeteredVpcApi(clientFor(emu), {
        limiter,
        scope: emu.region,
        retry: { retries: 3, minTimeoutMs: 1, maxTimeoutMs: 2 },
      });
      const prototype = workerPrototype(emu, 'worker-big', { user_data: 'x'.repeat(32 * 1024) });
      const err = await apiError(api.createInstance(prototype), 413, 'request_too_large');
      expect(classifyVpcError(err)).to.equal('invalid');
      expect(mayHaveLaunched(err)).to.equal(false);
      expect(emu.knobs.counts('CreateInstance').total, 'no retry of a refusal that will not change').to.equal(1);
      expect(emu.instances()).to.have.length(0);
    } finally {
      await emu.stop();
    }
  });
});
