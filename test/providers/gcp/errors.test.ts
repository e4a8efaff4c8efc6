import { expect } from 'chai';
import { PassThroughClient } from 'google-auth-library';
import {
  GceOperationError,
  SdkComputeApi,
  classifyGceError,
  describeGceError,
  gceHttpStatus,
  isRetryableGceError,
} from '../../../providers/gcp/index.js';
import { REQUEST_TOO_LARGE_ACTION } from '../../../sim/kit/index.js';
import { startGceEmulator, type GceEmulator } from '../../../sim/gcp/index.js';
import { PROJECT, ZONE } from './fixtures.js';

/** compute 7.x (google-gax 6): gRPC code + httpStatusCode, no reasons. */
const gax6 = (code: number, httpStatusCode: number, message: string) =>
  Object.assign(new Error(message), { name: 'GoogleError', code, httpStatusCode });
/** compute 6.x (google-gax 5): HTTP status as code and status, the raw JSON body as message. */
const gax5 = (status: number, reason: string, message: string) =>
  Object.assign(
    new Error(JSON.stringify({ error: { code: status, message, errors: [{ reason, message, domain: 'global' }] } })),
    { name: 'GaxiosError', code: status, status },
  );

describe('GCE error classification', () => {
  const cases: Array<[string, unknown, string]> = [
    ['7.x 404', gax6(5, 404, "The resource 'projects/p/zones/z/instances/x' was not found"), 'notFound'],
    ['6.x 404', gax5(404, 'notFound', 'not found'), 'notFound'],
    ['7.x 409', gax6(10, 409, 'already exists'), 'alreadyExists'],
    ['6.x 409', gax5(409, 'alreadyExists', 'already exists'), 'alreadyExists'],
    ['7.x 403 rate limit', gax6(7, 403, 'Rate Limit Exceeded'), 'throttled'],
    ['6.x 403 rateLimitExceeded', gax5(403, 'rateLimitExceeded', 'Rate Limit Exceeded'), 'throttled'],
    ['7.x 429', gax6(8, 429, "Quota exceeded for quota metric 'Queries'"), 'throttled'],
    ['6.x 429', gax5(429, 'rateLimitExceeded', 'Quota exceeded'), 'throttled'],
    ['7.x 503', gax6(14, 503, 'backend error'), 'transient'],
    ['6.x 500', gax5(500, 'backendError', 'Internal error'), 'transient'],
    ['7.x 403 permission', gax6(7, 403, "Required 'compute.instances.create' permission"), 'unauthorized'],
    ['7.x 400', gax6(3, 400, "Invalid value for field 'resource.machineType'"), 'invalid'],
    ['6.x 400 invalid', gax5(400, 'invalid', 'Invalid value'), 'invalid'],
    // A body too large for GCE to read, and the other deterministic 4xx: the same answer on every retry.
    ['7.x 413', gax6(9, 413, 'The request body exceeds 1048576 bytes'), 'invalid'],
    ['6.x 413 requestTooLarge', gax5(413, 'requestTooLarge', 'Request Entity Too Large'), 'invalid'],
    ['7.x 415', gax6(9, 415, 'Unsupported media type'), 'invalid'],
    ['7.x 422', gax6(9, 422, 'Unprocessable'), 'invalid'],
    ['7.x 412 (a stale fingerprint)', gax6(9, 412, 'Supplied fingerprint does not match'), 'transient'],
    ['7.x 410', gax6(9, 410, 'gone'), 'other'],
    // The OAuth token endpoint refusing the credentials Secret's key: a Secret change fixes it, never terminal.
    [
      'a token refusal (400 invalid_grant)',
      Object.assign(new Error('invalid_grant: Invalid JWT Signature.'), {
        name: 'GaxiosError',
        status: 400,
        response: { status: 400, data: { error: 'invalid_grant', error_description: 'Invalid JWT Signature.' } },
      }),
      'unauthorized',
    ],
    [
      'a gRPC-only GoogleError',
      Object.assign(new Error('unavailable'), { name: 'GoogleError', code: 14 }),
      'transient',
    ],
    ['a reset connection', Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }), 'transient'],
    [
      'a quota failure inside an operation',
      new GceOperationError('op-1', 403, [{ code: 'QUOTA_EXCEEDED', message: "Quota 'CPUS' exceeded" }]),
      'capacity',
    ],
    [
      'a stock-out inside an operation',
      new GceOperationError('op-2', 503, [{ code: 'ZONE_RESOURCE_POOL_EXHAUSTED', message: 'no capacity' }]),
      'capacity',
    ],
    [
      'a stock-out with details',
      new GceOperationError('op-3', 503, [
        { code: 'ZONE_RESOURCE_POOL_EXHAUSTED_WITH_DETAILS', message: 'no capacity' },
      ]),
      'capacity',
    ],
    [
      'a bad image inside an operation',
      new GceOperationError('op-3', 400, [{ code: 'INVALID_FIELD_VALUE', message: 'bad image' }]),
      'invalid',
    ],
  ];
  for (const [what, err, want] of cases) {
    it(`classifies ${what} as ${want}`, () => {
      expect(classifyGceError(err)).to.equal(want);
      expect(isRetryableGceError(err)).to.equal(want !== 'invalid');
    });
  }

  it('reads the HTTP status of both shapes', () => {
    expect(gceHttpStatus(gax6(5, 404, 'x'))).to.equal(404);
    expect(gceHttpStatus(gax5(404, 'notFound', 'x'))).to.equal(404);
  });

  it('describes a 6.x error by its GCE message, not the raw JSON body', () => {
    expect(describeGceError(gax5(400, 'invalid', 'Invalid value for field'))).to.equal('400: Invalid value for field');
  });

  describe('against the real client and the emulator', function () {
    this.timeout(30_000);
    let emu: GceEmulator;
    let api: SdkComputeApi;
    before(async () => {
      emu = await startGceEmulator();
      api = new SdkComputeApi({ apiEndpoint: emu.endpoint, auth: { authClient: new PassThroughClient() } });
    });
    after(async () => {
      await api.close();
      await emu.stop();
    });
    afterEach(() => void emu.knobs.reset());

    it('a missing instance is notFound', async () => {
      const err = await api.getInstance(PROJECT, ZONE, 'nope').then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(classifyGceError(err)).to.equal('notFound');
    });

    it('403 rateLimitExceeded and 429 are throttled', async () => {
      emu.knobs.throttleNext('instances.get', 1);
      expect(
        classifyGceError(
          await api.getInstance(PROJECT, ZONE, 'x').then(
            () => undefined,
            (e: unknown) => e,
          ),
        ),
      ).to.equal('throttled');
      emu.setThrottleStatus(429);
      emu.knobs.throttleNext('instances.get', 1);
      expect(
        classifyGceError(
          await api.getInstance(PROJECT, ZONE, 'x').then(
            () => undefined,
            (e: unknown) => e,
          ),
        ),
      ).to.equal('throttled');
      emu.setThrottleStatus(403);
    });

    it('a body too large for GCE is a 413 the client sends once, classified as terminal', async () => {
      const small = await startGceEmulator({ maxBodyBytes: 64 * 1024 });
      const client = new SdkComputeApi({ apiEndpoint: small.endpoint, auth: { authClient: new PassThroughClient() } });
      try {
        const body = { name: 'x', metadata: { items: [{ key: 'user-data', value: 'x'.repeat(96 * 1024) }] } };
        const err = await client.insertInstance(PROJECT, ZONE, body, '00000000-0000-4000-8000-000000000002').then(
          () => undefined,
          (e: unknown) => e,
        );
        expect(gceHttpStatus(err)).to.equal(413);
        expect(classifyGceError(err)).to.equal('invalid');
        expect(small.knobs.counts(REQUEST_TOO_LARGE_ACTION).total, 'no retry').to.equal(1);
        expect(small.knobs.counts('instances.insert').total).to.equal(0);
      } finally {
        await client.close();
        await small.stop();
      }
    });

    it('a 5xx that outlasts the client retries is transient', async () => {
      emu.knobs.failNext('instances.insert', 1);
      const err = await api.insertInstance(PROJECT, ZONE, { name: 'x' }, '00000000-0000-4000-8000-000000000001').then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(classifyGceError(err)).to.equal('transient');
    });
  });
});
