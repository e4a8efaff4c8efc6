// The one place that decides what an AWS error means. Throttling, 5xx and network failures are always
// retryable; only errors that say the request itself can never succeed are terminal. (The reference turns
// every 4xx from RunInstances, including IAM propagation delays and quota errors, into a Failed Machine.)
// Capacity and quota refusals are a class of their own: retried by the machine controller for a bounded
// window only, so that a Machine the cloud cannot place ends Failed and the autoscaler tries elsewhere.
// EC2 sends nearly every client error with 400 and tells them apart by code: the codes that mean "not now"
// (throttling, capacity, quota, a state that will pass, credentials a Secret change fixes) are listed below;
// any other 4xx whose status is deterministic (400, 413 RequestEntityTooLarge, ...; see classifyHttpStatus)
// refuses the request itself and is terminal, as the reference makes every 4xx of RunInstances.
import { classifyHttpStatus, messageOf, type LaunchFailure, isNetworkErrorCode } from '../../lib/index.js';

export type Ec2ErrorClass = 'notFound' | 'throttled' | 'invalid' | 'capacity' | 'transient' | 'unauthorized' | 'other';

interface AwsLikeError {
  name?: string;
  code?: string;
  message?: string;
  $fault?: 'client' | 'server';
  $metadata?: { httpStatusCode?: number };
  $retryable?: { throttling?: boolean };
}

const THROTTLING_CODES = new Set([
  'RequestLimitExceeded',
  'Throttling',
  'ThrottlingException',
  'ThrottledException',
  'RequestThrottled',
  'RequestThrottledException',
  'EC2ThrottledException',
  'TooManyRequestsException',
  'SlowDown',
  'PriorRequestNotComplete',
  'BandwidthLimitExceeded',
  'LimitExceededException',
]);

// No capacity in the zone for the type, or an account limit reached: the request is right, and it launched
// nothing (EC2 refuses before placing), but it may not succeed for hours.
const CAPACITY_CODES = new Set([
  'InsufficientInstanceCapacity',
  'InsufficientHostCapacity',
  'InsufficientCapacity',
  'InsufficientReservedInstanceCapacity',
  'InstanceLimitExceeded',
  'VcpuLimitExceeded',
  'MaxSpotInstanceCountExceeded',
  'InsufficientVolumeCapacity',
  'InsufficientAddressCapacity',
  'InsufficientFreeAddressesInSubnet',
  'ReservationCapacityExceeded',
  'ResourceLimitExceeded',
  'VolumeLimitExceeded',
  'MaxIOPSLimitExceeded',
  'AddressLimitExceeded',
  'NetworkInterfaceLimitExceeded',
]);

// "Try again" answers: nothing about the request is wrong, the cloud just can't now.
const TRANSIENT_CODES = new Set([
  'SpotMaxPriceTooLow',
  'InternalError',
  'InternalFailure',
  'ServiceUnavailable',
  'Unavailable',
  'RequestTimeout',
  'RequestTimeoutException',
  'TimeoutError',
  'IdempotentInstanceTerminated',
  'IncorrectState',
  'IncorrectInstanceState',
  'DependencyViolation',
  'ConcurrentTagAccess',
  // A new account being verified: launches work once it is (hours at most).
  'PendingVerification',
]);

// The ELB SDKs name their modelled errors <Code>Exception: InvalidTarget arrives as InvalidTargetException.
const NOT_FOUND_CODES = new Set([
  'LoadBalancerNotFound',
  'LoadBalancerNotFoundException',
  'TargetGroupNotFound',
  'TargetGroupNotFoundException',
  'InvalidTarget',
  'InvalidTargetException',
  'AccessPointNotFoundException',
  'InvalidHostID.NotFound',
  'AccessPointNotFound',
]);

// Missing credentials or IAM not yet propagated: worth retrying, never a reason to fail a Machine.
const UNAUTHORIZED_CODES = new Set([
  'UnauthorizedOperation',
  'AuthFailure',
  'AccessDenied',
  'AccessDeniedException',
  'InvalidClientTokenId',
  'SignatureDoesNotMatch',
  'ExpiredToken',
  'RequestExpired',
  'CredentialsProviderError',
  'IncompleteSignature',
  'MissingAuthenticationToken',
  'OptInRequired',
  'Blocked',
]);

// Answers that mean the request is wrong in a way no retry fixes.
const INVALID_CODES = new Set([
  'InvalidParameterValue',
  'InvalidParameter',
  'InvalidParameterCombination',
  'MissingParameter',
  'Unsupported',
  'UnsupportedOperation',
  'InvalidAMIID.Malformed',
  'InvalidAMIID.NotFound',
  'InvalidAMIID.Unavailable',
  'InvalidSubnetID.Malformed',
  'InvalidSubnetID.NotFound',
  'InvalidGroup.NotFound',
  'InvalidGroupId.Malformed',
  'InvalidKeyPair.NotFound',
  'InvalidBlockDeviceMapping',
  'InvalidCapacityReservationId.NotFound',
  'InvalidCapacityReservationId.Malformed',
  'InvalidPlacementGroup.Unknown',
  'InvalidInstanceType',
  'InvalidIamInstanceProfile.NotFound',
  'IdempotentParameterMismatch',
  'ValidationError',
]);

export function ec2ErrorCode(err: unknown): string | undefined {
  if (typeof err !== 'object' || err === null) return undefined;
  const e = err as AwsLikeError;
  return e.code && e.code !== e.name && isNetworkErrorCode(e.code) ? e.code : (e.name ?? e.code);
}

export function classifyEc2Error(err: unknown): Ec2ErrorClass {
  if (typeof err !== 'object' || err === null) return 'other';
  const e = err as AwsLikeError;
  const name = e.name ?? '';
  const status = e.$metadata?.httpStatusCode;

  if (name.endsWith('.NotFound') && !INVALID_CODES.has(name)) return 'notFound';
  if (NOT_FOUND_CODES.has(name)) return 'notFound';
  if (THROTTLING_CODES.has(name) || e.$retryable?.throttling || status === 429) return 'throttled';
  if (UNAUTHORIZED_CODES.has(name)) return 'unauthorized';
  if (CAPACITY_CODES.has(name)) return 'capacity';
  if (TRANSIENT_CODES.has(name)) return 'transient';
  if (name === 'AbortError') return 'other';
  if (isNetworkErrorCode(e.code) || isNetworkErrorCode(name)) return 'transient';
  if (status !== undefined && status >= 500) return 'transient';
  if (e.$fault === 'server') return 'transient';
  if (INVALID_CODES.has(name) || name.startsWith('Invalid') || name.endsWith('.Malformed')) return 'invalid';
  // What the status alone says: 413 and the other deterministic 4xx are terminal, 401/403 are credentials, 429
  // throttling; anything else (404 and 409 without a known code, 412 DryRunOperation) is retried.
  return classifyHttpStatus(status) ?? 'other';
}

/** Whether a failed RunInstances may still have launched the instance: a refusal made nothing; a lost reply, a timeout or a 5xx may have. */
export const mayHaveLaunched = (err: unknown): boolean => ['transient', 'other'].includes(classifyEc2Error(err));

/** Whether retrying later can help. Only 'invalid' is terminal. */
export const isRetryableEc2Error = (err: unknown): boolean => classifyEc2Error(err) !== 'invalid';

/** The message an AWS error may be shown with: code and AWS's text, never request parameters. */
export function describeEc2Error(err: unknown): string {
  if (err instanceof Error) {
    const code = ec2ErrorCode(err);
    return code && code !== 'Error' && !err.message.startsWith(code) ? `${code}: ${err.message}` : err.message;
  }
  return String(err);
}

/**
 * How a failed RunInstances reads (the template types the error, see LaunchFailure): a request EC2 can never
 * accept, a capacity or quota refusal, or anything else, with the reference's metric reason.
 */
export function ec2LaunchFailure(err: unknown, where: { zone: string; instanceType: string }): LaunchFailure {
  return {
    kind: classifyEc2Error(err),
    message: describeEc2Error(err),
    reason: 'error creating EC2 instance',
    capacity: {
      code: ec2ErrorCode(err) ?? 'InsufficientInstanceCapacity',
      zone: where.zone,
      instanceType: where.instanceType,
      detail: messageOf(err),
    },
  };
}
