import { EC2ServiceException } from '@aws-sdk/client-ec2';
import { ElasticLoadBalancingV2ServiceException } from '@aws-sdk/client-elastic-load-balancing-v2';
import { expect } from 'chai';
import { RealClock } from '../../../lib/index.js';
import { REQUEST_TOO_LARGE_ACTION } from '../../../sim/kit/index.js';
import { EMULATOR_ACCESS_KEY, startEc2Emulator } from '../../../sim/aws/index.js';
import {
  classifyEc2Error,
  describeEc2Error,
  isRetryableEc2Error,
  mayHaveLaunched,
} from '../../../providers/aws/errors.js';
import { AwsClientFactory } from '../../../providers/aws/index.js';
import './fixtures.js';

const elbv2Error = (name: string) =>
  new ElasticLoadBalancingV2ServiceException({
    name,
    message: 'msg',
    $fault: 'client',
    $metadata: { httpStatusCode: 400 },
  });

const awsError = (name: string, status: number, message = 'msg') =>
  new EC2ServiceException({
    name,
    message,
    $fault: status >= 500 ? 'server' : 'client',
    $metadata: { httpStatusCode: status },
  });

describe('classifyEc2Error', () => {
  const cases: Array<[string, unknown, string]> = [
    ['RequestLimitExceeded (503)', awsError('RequestLimitExceeded', 503), 'throttled'],
    ['any HTTP 429', awsError('SomethingNew', 429), 'throttled'],
    ['Throttling (400)', awsError('Throttling', 400), 'throttled'],
    ['InsufficientInstanceCapacity (500)', awsError('InsufficientInstanceCapacity', 500), 'capacity'],
    ['InstanceLimitExceeded (400)', awsError('InstanceLimitExceeded', 400), 'capacity'],
    ['an unknown 5xx', awsError('Whatever', 502), 'transient'],
    ['a vCPU quota (400)', awsError('VcpuLimitExceeded', 400), 'capacity'],
    ['a 503 that is throttling, not capacity', awsError('RequestLimitExceeded', 503), 'throttled'],
    ['a connection reset', Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }), 'transient'],
    ['an SDK timeout', Object.assign(new Error('timed out'), { name: 'TimeoutError' }), 'transient'],
    ['UnauthorizedOperation (IAM still propagating)', awsError('UnauthorizedOperation', 403), 'unauthorized'],
    ['AuthFailure', awsError('AuthFailure', 401), 'unauthorized'],
    ['InvalidInstanceID.NotFound', awsError('InvalidInstanceID.NotFound', 400), 'notFound'],
    ['ELBv2 TargetGroupNotFound', awsError('TargetGroupNotFound', 400), 'notFound'],
    // As the ELBv2 SDK names them: a target that is not (or no longer) registered is not a reason to fail a delete.
    ['ELBv2 InvalidTargetException (target not registered)', elbv2Error('InvalidTargetException'), 'notFound'],
    ['ELBv2 TargetGroupNotFoundException', elbv2Error('TargetGroupNotFoundException'), 'notFound'],
    ['ELBv2 LoadBalancerNotFoundException', elbv2Error('LoadBalancerNotFoundException'), 'notFound'],
    ['InvalidParameterValue', awsError('InvalidParameterValue', 400), 'invalid'],
    [
      'InvalidAMIID.NotFound (a wrong AMI, not eventual consistency)',
      awsError('InvalidAMIID.NotFound', 400),
      'invalid',
    ],
    ['InvalidSubnetID.Malformed', awsError('InvalidSubnetID.Malformed', 400), 'invalid'],
    ['IdempotentParameterMismatch', awsError('IdempotentParameterMismatch', 400), 'invalid'],
    // A request too large for EC2 to read is refused the same way on every retry.
    ['RequestEntityTooLarge (413)', awsError('RequestEntityTooLarge', 413), 'invalid'],
    ['an unknown 415', awsError('UnsupportedMediaType', 415), 'invalid'],
    // EC2 sends request errors with 400 and the codes that mean "not now" are known: any other 400 is terminal,
    // as the reference makes every 4xx of RunInstances.
    ['an unknown 400 code', awsError('SomethingNewAndWrong', 400), 'invalid'],
    ['TagLimitExceeded (too many tags in the request)', awsError('TagLimitExceeded', 400), 'invalid'],
    ['MissingAuthenticationToken (403)', awsError('MissingAuthenticationToken', 403), 'unauthorized'],
    ['an unknown 403', awsError('SomethingForbidden', 403), 'unauthorized'],
    ['IncompleteSignature (400)', awsError('IncompleteSignature', 400), 'unauthorized'],
    ['PendingVerification (a new account)', awsError('PendingVerification', 400), 'transient'],
    ['ConcurrentTagAccess', awsError('ConcurrentTagAccess', 400), 'transient'],
    ['InsufficientFreeAddressesInSubnet', awsError('InsufficientFreeAddressesInSubnet', 400), 'capacity'],
    ['VolumeLimitExceeded (an EBS quota)', awsError('VolumeLimitExceeded', 400), 'capacity'],
    ["an unknown 404 (what it means is the call's)", awsError('SomethingMissing', 404), 'other'],
    ['DryRunOperation (412)', awsError('DryRunOperation', 412), 'other'],
    ['a plain Error', new Error('boom'), 'other'],
    ['a non-error', 'boom', 'other'],
  ];
  for (const [name, err, expected] of cases) {
    it(`classifies ${name} as ${expected}`, () => expect(classifyEc2Error(err)).to.equal(expected));
  }

  it('never treats throttling, 5xx or IAM errors as terminal; only invalid requests are', () => {
    expect(isRetryableEc2Error(awsError('RequestLimitExceeded', 503))).to.equal(true);
    expect(isRetryableEc2Error(awsError('InternalError', 500))).to.equal(true);
    expect(isRetryableEc2Error(awsError('UnauthorizedOperation', 403))).to.equal(true);
    expect(isRetryableEc2Error(awsError('InvalidParameterValue', 400))).to.equal(false);
  });

  it('a launch refused with a deterministic 4xx made nothing; a 5xx or an unknown failure may have', () => {
    expect(mayHaveLaunched(awsError('RequestEntityTooLarge', 413))).to.equal(false);
    expect(mayHaveLaunched(awsError('SomethingNewAndWrong', 400))).to.equal(false);
    expect(mayHaveLaunched(awsError('InternalError', 500))).to.equal(true);
    expect(mayHaveLaunched(new Error('boom'))).to.equal(true);
  });

  it('describes an AWS error by code and message', () => {
    expect(describeEc2Error(awsError('InvalidParameterValue', 400, 'bad type'))).to.equal(
      'InvalidParameterValue: bad type',
    );
  });
});

describe('an oversize RunInstances through the real SDK and the EC2 emulator', function () {
  this.timeout(30_000);

  it('is a 413 RequestEntityTooLarge the SDK sends once, classified as terminal', async () => {
    const emu = await startEc2Emulator({ maxBodyBytes: 64 * 1024 });
    const factory = new AwsClientFactory({ clock: new RealClock(), endpoint: emu.endpoint, retryDelayMs: () => 1 });
    try {
      const { ec2 } = factory.get('us-east-1', { ...EMULATOR_ACCESS_KEY });
      const err = await ec2
        .runInstances({
          ImageId: 'ami-0a1b2c3d4e5f00001',
          InstanceType: 'm5.large',
          MinCount: 1,
          MaxCount: 1,
          UserData: Buffer.alloc(96 * 1024, 'x').toString('base64'),
        })
        .then(
          () => undefined,
          (e: unknown) => e,
        );
      expect(err).to.include({ name: 'RequestEntityTooLarge' });
      expect(classifyEc2Error(err)).to.equal('invalid');
      expect(mayHaveLaunched(err)).to.equal(false);
      expect(emu.knobs.counts(REQUEST_TOO_LARGE_ACTION).total, 'no retry of a refusal that will not change').to.equal(
        1,
      );
      expect(emu.instances()).to.have.length(0);
    } finally {
      factory.destroy();
      await emu.stop();
    }
  });
});
