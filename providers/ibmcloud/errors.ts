// The one place that decides what an IBM Cloud error means. Throttling (429), 5xx, no response (status 0)
// and IAM failures are always retryable; only answers that say the request itself can never succeed are
// terminal: a deterministic status (400, 413 request_too_large, 415, 422...; see classifyHttpStatus) whose code
// says nothing else, as the reference makes every 4xx of a launch on the other clouds. Quota and capacity
// refusals are a class of their own: the machine controller retries them for a bounded window, then fails the
// Machine. (The reference never inspects VPC errors and maps nothing but a missing profile to
// InvalidConfiguration, while making every client-construction failure, IAM included, terminal.)
import {
  classifyHttpStatus,
  messageOf,
  type LaunchFailure,
  type TerminateFailure,
  isNetworkErrorCode,
} from '../../lib/index.js';
import { isVpcApiError } from './vpc-api-error.js';

export type VpcErrorClass =
  'notFound' | 'alreadyExists' | 'throttled' | 'invalid' | 'capacity' | 'transient' | 'unauthorized' | 'other';

/** VPC's answer to a second instance of the same name in a VPC. */
export const NAME_TAKEN_CODE = 'validation_unique_failed';

// The account's quota is spent or the zone has no capacity for the profile (over_quota, ...): the request
// is right, but nothing was created and it may not succeed for hours.
const CAPACITY_CODE = /quota|capacity/i;
// Nothing wrong with the request: the account or zone can't take it now.
const TRANSIENT_CODE = /limit_exceeded|not_ready|busy|in_progress|timeout|unavailable/i;

export function classifyVpcError(err: unknown): VpcErrorClass {
  if (typeof err !== 'object' || err === null) return 'other';
  if ((err as { name?: unknown }).name === 'AbortError') return 'other';
  if (!isVpcApiError(err)) {
    const code = (err as { code?: unknown }).code;
    return isNetworkErrorCode(code) ? 'transient' : 'other';
  }
  const { status, code, service } = err;
  if (status === 0) return 'transient';
  const byStatus = classifyHttpStatus(status);
  if (byStatus === 'throttled' || byStatus === 'transient') return byStatus;
  // A token that cannot be had or read: credentials may be rotated or IAM may be catching up.
  if (service === 'iam') return 'unauthorized';
  if (byStatus === 'unauthorized') return byStatus;
  if (CAPACITY_CODE.test(code)) return 'capacity';
  if (TRANSIENT_CODE.test(code)) return 'transient';
  if (status === 404) return 'notFound';
  if (status === 409) return code === NAME_TAKEN_CODE ? 'alreadyExists' : 'transient';
  // A 200 whose body could not be read (malformed page) is the server's problem, not the request's.
  if (status < 300) return 'transient';
  return byStatus ?? 'other';
}

/** Whether retrying later can help. Only 'invalid' is terminal. */
export const isRetryableVpcError = (err: unknown): boolean => classifyVpcError(err) !== 'invalid';

/** An error as it may be shown: VpcApiError's message carries service, operation, status, code and IBM's text, never a token or key. */
export function describeVpcError(err: unknown): string {
  if (isVpcApiError(err)) return err.trace ? `${err.message} (trace ${err.trace})` : err.message;
  return messageOf(err);
}

/**
 * Whether a failed POST /instances may have left this Machine an instance: no answer, a 5xx or a timeout (it may
 * have been made), or a 409 (the name is taken: most likely by what an earlier POST of ours made, which a
 * lagging list may not show yet).
 */
export const mayHaveLaunched = (err: unknown): boolean =>
  !(isVpcApiError(err) && err.status >= 400 && err.status < 500 && err.status !== 408 && err.status !== 409);

/** How a failed POST /instances reads (the template types the error, see LaunchFailure), with the reference's metric reason. */
export function vpcLaunchFailure(err: unknown, where: { zone: string; profile: string }): LaunchFailure {
  const reason = 'failed to create instance via ibm vpc client';
  const message = describeVpcError(err);
  // A capacity refusal is told apart only when the VPC said so itself (its error code is quoted).
  const capacity = isVpcApiError(err)
    ? { code: err.code, zone: where.zone, instanceType: where.profile, detail: message }
    : undefined;
  return { kind: classifyVpcError(err), message, invalidPrefix: reason, reason, capacity };
}

/** How a failed DELETE /instances/{id} reads: a 404 says the instance is gone; anything else fails the delete. */
export const vpcDeleteFailure = (fields: Record<string, unknown>): TerminateFailure => ({
  reason: 'failed to delete instance via ibmClient',
  isGone: (err) => classifyVpcError(err) === 'notFound',
  fields,
});
