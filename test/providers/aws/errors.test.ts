import { EC2ServiceException } from '@aws-sdk/client-ec2';
import { ElasticLoadBalancingV2ServiceException } from '@aws-sdk/client-elastic-load-balancing-v2';
import { expect } from 'chai';
import { classifyEc2Error, describeEc2Error, isRetryableEc2Error } from '../../../providers/aws/errors.js';

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

  it('describes an AWS error by code and message', () => {
    expect(describeEc2Error(awsError('InvalidParameterValue', 400, 'bad type'))).to.equal(
      'InvalidParameterValue: bad type',
    );
  });
});
