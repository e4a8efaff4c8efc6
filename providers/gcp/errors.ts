// The one place that decides what a Compute Engine error means, for both error shapes the client can throw:
// compute 7.x (google-gax 6) throws a GoogleError whose `code` is the gRPC code and `httpStatusCode` the HTTP
// status; compute 6.x (gax 5) throws a GaxiosError whose `code`/`status` are the HTTP status and whose
// message is the raw JSON body. Operation errors (`operation.error.errors[]`) are classified too.
// Throttling (403 rateLimitExceeded, 429), 5xx and network failures are always retryable; only errors that
// say the request itself can never succeed are terminal: a known reason, else a deterministic status (400, 413
// requestTooLarge, 415, 422...; see classifyHttpStatus), as the reference makes every 4xx of an insert. A refused
// token (the OAuth endpoint's 400 invalid_grant for a revoked key, 401, 403) is credentials a Secret change
// fixes, retried. Resource quota and stock-outs are a class of their own: the machine controller retries them
// for a bounded window, then fails the Machine.
import {
  classifyHttpStatus,
  isCloudCallDeferred,
  InvalidMachineConfigurationError,
  RequeueAfterError,
  type LaunchFailure,
  type TerminateFailure,
  isNetworkErrorCode,
} from '../../lib/index.js';

export type GceErrorClass =
  'notFound' | 'alreadyExists' | 'throttled' | 'invalid' | 'capacity' | 'transient' | 'unauthorized' | 'other';

interface GceLikeError {
  name?: string;
  code?: number | string;
  status?: number | string;
  httpStatusCode?: number;
  message?: string;
  reason?: string;
  errors?: Array<{ reason?: string; message?: string }>;
  response?: { status?: number; data?: unknown };
  statusDetails?: unknown;
}

/** gRPC code → HTTP status, for errors that carry only the gRPC code (gax 6 without httpStatusCode). */
const GRPC_TO_HTTP: Record<number, number> = {
  3: 400,
  4: 504,
  5: 404,
  6: 409,
  7: 403,
  8: 429,
  9: 400,
  10: 409,
  13: 500,
  14: 503,
  16: 401,
};

const THROTTLING_REASONS = new Set([
  'rateLimitExceeded',
  'userRateLimitExceeded',
  'RATE_LIMIT_EXCEEDED',
  'dailyLimitExceeded',
]);
// The zone is out of the machine type, or a regional resource quota (CPUS, GPUs, INSTANCES) is spent; GCE
// says so in the insert operation. Not 'quotaExceeded' (lower case): that is the API's per-minute request
// quota, i.e. throttling, which stays retryable for ever.
const CAPACITY_REASONS = new Set([
  'QUOTA_EXCEEDED',
  'ZONE_RESOURCE_POOL_EXHAUSTED',
  'ZONE_RESOURCE_POOL_EXHAUSTED_WITH_DETAILS',
]);
// Nothing wrong with the request: the zone or project just can't take it now.
const TRANSIENT_REASONS = new Set([
  'quotaExceeded',
  'RESOURCE_OPERATION_RATE_EXCEEDED',
  'resourceNotReady',
  'RESOURCE_NOT_READY',
  'backendError',
  'internalError',
  'INTERNAL_ERROR',
  'SERVICE_UNAVAILABLE',
  'resourceInUseByAnotherResource',
  'RESOURCE_IN_USE_BY_ANOTHER_RESOURCE',
  'conditionNotMet',
]);
const NOT_FOUND_REASONS = new Set(['notFound', 'RESOURCE_NOT_FOUND']);
const ALREADY_EXISTS_REASONS = new Set(['alreadyExists', 'RESOURCE_ALREADY_EXISTS']);
const INVALID_REASONS = new Set([
  'invalid',
  'badRequest',
  'required',
  'invalidParameter',
  'INVALID_FIELD_VALUE',
  'INVALID_USAGE',
  'UNSUPPORTED_OPERATION',
  'invalidResourceUsage',
]);
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null;

/** The `error` object of a GCE JSON error body, wherever the client put it. */
function bodyError(
  e: GceLikeError,
): { code?: number; message?: string; errors?: Array<{ reason?: string; message?: string }> } | undefined {
  const fromData = e.response?.data;
  if (isObject(fromData) && isObject(fromData.error)) return fromData.error;
  // gax 5 puts the raw body in the message.
  if (typeof e.message === 'string' && e.message.trimStart().startsWith('{')) {
    try {
      const parsed: unknown = JSON.parse(e.message);
      if (isObject(parsed) && isObject(parsed.error)) return parsed.error;
    } catch {
      // Not JSON after all.
    }
  }
  return undefined;
}

/**
 * An OAuth 2.0 token endpoint's refusal (`{"error": "invalid_grant", "error_description": ...}`): the key or token
 * of the credentials Secret is not accepted, whatever the status. GCE's own errors carry an object there.
 */
function isTokenRefusal(e: GceLikeError): boolean {
  const data = e.response?.data;
  return isObject(data) && typeof data.error === 'string';
}

/** The HTTP status of a compute error in either client generation. */
export function gceHttpStatus(err: unknown): number | undefined {
  if (!isObject(err)) return undefined;
  const e = err as GceLikeError;
  if (typeof e.httpStatusCode === 'number') return e.httpStatusCode;
  if (typeof e.status === 'number') return e.status;
  if (typeof e.response?.status === 'number') return e.response.status;
  const body = bodyError(e);
  if (typeof body?.code === 'number') return body.code;
  // A GoogleError with only a gRPC code (e.g. from a retry wrapper).
  if (e.name === 'GoogleError' && typeof e.code === 'number') return GRPC_TO_HTTP[e.code];
  if (typeof e.code === 'number' && e.code >= 100) return e.code;
  return undefined;
}

/** GCE's error reasons (`errors[].reason`), when the client kept them. */
export function gceErrorReasons(err: unknown): string[] {
  if (!isObject(err)) return [];
  const e = err as GceLikeError;
  const out: string[] = [];
  if (typeof e.reason === 'string') out.push(e.reason);
  for (const x of e.errors ?? []) if (typeof x?.reason === 'string') out.push(x.reason);
  for (const x of bodyError(e)?.errors ?? []) if (typeof x?.reason === 'string') out.push(x.reason);
  return out;
}

function classifyReasons(reasons: string[]): GceErrorClass | undefined {
  if (reasons.some((r) => THROTTLING_REASONS.has(r))) return 'throttled';
  if (reasons.some((r) => CAPACITY_REASONS.has(r))) return 'capacity';
  if (reasons.some((r) => TRANSIENT_REASONS.has(r))) return 'transient';
  if (reasons.some((r) => NOT_FOUND_REASONS.has(r))) return 'notFound';
  if (reasons.some((r) => ALREADY_EXISTS_REASONS.has(r))) return 'alreadyExists';
  if (reasons.some((r) => INVALID_REASONS.has(r))) return 'invalid';
  return undefined;
}

export function classifyGceError(err: unknown): GceErrorClass {
  if (!isObject(err)) return 'other';
  const e = err as GceLikeError;
  if (e.name === 'AbortError') return 'other';
  const byReason = classifyReasons(gceErrorReasons(err));
  if (byReason) return byReason;
  const status = gceHttpStatus(err);
  const text = typeof e.message === 'string' ? e.message : '';
  if (status === 429) return 'throttled';
  // 403 is both "rate limit exceeded" and "permission denied"; gax 6 drops the reason, so read the text.
  if (status === 403) return /rate ?limit|quota/i.test(text) ? 'throttled' : 'unauthorized';
  if (status === 401) return 'unauthorized';
  if (status === 404) return 'notFound';
  if (status === 409) return 'alreadyExists';
  if (status === 412) return 'transient';
  if (status !== undefined && status >= 500) return 'transient';
  if (status === 408) return 'transient';
  if (isNetworkErrorCode(e.code) || isNetworkErrorCode(e.name)) return 'transient';
  if (/socket hang up|ECONNRESET|network|fetch failed|timed? ?out/i.test(text)) return 'transient';
  if (isTokenRefusal(e)) return 'unauthorized';
  return classifyHttpStatus(status) ?? 'other';
}

/** Whether retrying later can help. Only 'invalid' is terminal. */
export const isRetryableGceError = (err: unknown): boolean => classifyGceError(err) !== 'invalid';

/** The error of a finished zone operation, as an Error that classifyGceError understands. */
export class GceOperationError extends Error {
  override readonly name = 'GceOperationError';
  readonly httpStatusCode?: number;
  readonly errors: Array<{ reason: string; message: string }>;
  constructor(
    operation: string,
    httpStatusCode: number | undefined,
    errors: Array<{ code?: string | null; message?: string | null }>,
  ) {
    const list = errors.map((x) => ({ reason: x.code ?? '', message: x.message ?? '' }));
    super(`operation ${operation} failed: ${list.map((x) => `${x.reason}: ${x.message}`).join('; ')}`);
    this.httpStatusCode = httpStatusCode;
    this.errors = list;
  }
}

/** A compute error as it may be shown: status, reasons and GCE's text; never request bodies or credentials. */
export function describeGceError(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  const body = bodyError(err);
  const message = body?.message ?? err.message;
  const status = gceHttpStatus(err);
  return status !== undefined && !message.startsWith(String(status)) ? `${status}: ${message}` : message;
}

/** The capacity or quota code of a compute error (QUOTA_EXCEEDED, ZONE_RESOURCE_POOL_EXHAUSTED...), if it is one. */
export function gceCapacityCode(err: unknown): string | undefined {
  return gceErrorReasons(err).find((r) => CAPACITY_REASONS.has(r));
}

/**
 * GCE refused the request itself (bad request, throttled, forbidden, unknown project or zone), or it was never
 * sent (deferred for the rate): nothing was done.
 */
export function refusedOutright(err: unknown): boolean {
  if (isCloudCallDeferred(err)) return true;
  const cls = classifyGceError(err);
  return cls === 'invalid' || cls === 'throttled' || cls === 'unauthorized' || cls === 'notFound';
}

/** A failure as the Machine shows it: our own errors in their own words, GCE's with its HTTP status and text. */
export function describeFailure(err: unknown): string {
  if (err instanceof InvalidMachineConfigurationError || err instanceof RequeueAfterError) return err.message;
  return describeGceError(err);
}

/** GCE's own words of a failed operation, without the operation name and codes (the error carries the code). */
function operationMessages(err: unknown): string {
  if (err instanceof GceOperationError) return err.errors.map((e) => e.message).join('; ');
  return describeGceError(err);
}

/** How a failed insert reads, refused at once or in its operation (the template types the error, see LaunchFailure). */
export function gceLaunchFailure(err: unknown, where: { zone: string; machineType: string }): LaunchFailure {
  return {
    kind: classifyGceError(err),
    message: describeGceError(err),
    reason: 'failed to create instance via compute service',
    capacity: {
      code: gceCapacityCode(err) ?? 'ZONE_RESOURCE_POOL_EXHAUSTED',
      zone: where.zone,
      instanceType: where.machineType,
      detail: operationMessages(err),
    },
  };
}

/** How a failed instances.delete reads: a 404 says the instance is gone; deletion protection is named, as users must turn it off. */
export const gceDeleteFailure = (
  instance: { deletionProtection?: boolean | null },
  fields: Record<string, unknown>,
): TerminateFailure => ({
  reason: 'failed to delete instance via compute service',
  isGone: (err) => classifyGceError(err) === 'notFound',
  hint: instance.deletionProtection
    ? ' (deletionProtection is enabled on the instance: turn it off to let the Machine go)'
    : '',
  fields,
});
