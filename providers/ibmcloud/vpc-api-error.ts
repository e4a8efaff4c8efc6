// The one error type every VpcApi call rejects with, so the provider's error classifier reads fields rather
// than parsing SDK error text. Built only from the response status and body: never from request headers,
// so neither the API key nor the bearer token can end up in a message.

export type IbmService = 'vpc' | 'iam' | 'resource-manager' | 'global-tagging';

export interface VpcApiErrorFields {
  service: IbmService;
  /** The call, e.g. "createInstance". */
  operation: string;
  /** HTTP status; 0 when no response arrived (connection refused or reset, timeout). */
  status: number;
  /** errors[0].code for VPC, errorCode for IAM; for network failures the socket code, e.g. "ECONNRESET". */
  code: string;
  message: string;
  /** The `trace` id IBM support asks for (VPC) or the transaction id (IAM). */
  trace?: string;
  /** errors[0].target.name, e.g. "name" or "profile.name". */
  target?: string;
  /** Seconds, from a Retry-After header. */
  retryAfterSeconds?: number;
}

export class VpcApiError extends Error {
  override readonly name = 'VpcApiError';
  readonly service: IbmService;
  readonly operation: string;
  readonly status: number;
  readonly code: string;
  readonly trace?: string;
  readonly target?: string;
  readonly retryAfterSeconds?: number;

  constructor(f: VpcApiErrorFields) {
    super(
      `${f.service} ${f.operation}: ${f.status === 0 ? 'no response' : `HTTP ${f.status}`} ${f.code}: ${f.message}`,
    );
    this.service = f.service;
    this.operation = f.operation;
    this.status = f.status;
    this.code = f.code;
    this.trace = f.trace;
    this.target = f.target;
    this.retryAfterSeconds = f.retryAfterSeconds;
  }

  /** No HTTP response: the call may or may not have taken effect. */
  get noResponse(): boolean {
    return this.status === 0;
  }
}

export function isVpcApiError(err: unknown): err is VpcApiError {
  return err instanceof VpcApiError;
}

interface SdkError {
  status?: unknown;
  statusText?: unknown;
  message?: unknown;
  result?: unknown;
  headers?: unknown;
}

function str(v: unknown): string | undefined {
  return typeof v === 'string' && v !== '' ? v : undefined;
}

function headerValue(headers: unknown, name: string): string | undefined {
  if (!headers || typeof headers !== 'object') return undefined;
  const h = headers as Record<string, unknown>;
  const v = h[name] ?? h[name.toLowerCase()];
  return typeof v === 'string' ? v : undefined;
}

function retryAfter(headers: unknown): number | undefined {
  const v = headerValue(headers, 'retry-after');
  if (v === undefined) return undefined;
  const n = Number(v);
  return Number.isFinite(n) && n >= 0 ? n : undefined;
}

/** Maps what ibm-cloud-sdk-core rejected with (or a failure before the request) onto a VpcApiError. */
export function toVpcApiError(err: unknown, service: IbmService, operation: string): VpcApiError {
  if (err instanceof VpcApiError) return err;
  const e = (err && typeof err === 'object' ? err : {}) as SdkError;
  const status = typeof e.status === 'number' ? e.status : 0;
  const body = (e.result && typeof e.result === 'object' ? e.result : {}) as Record<string, unknown>;
  const first = Array.isArray(body.errors) ? (body.errors[0] as Record<string, unknown> | undefined) : undefined;
  const target =
    first?.target && typeof first.target === 'object' ? str((first.target as Record<string, unknown>).name) : undefined;
  const fallbackMessage = err instanceof Error ? err.message : String(err);

  if (status === 0) {
    // The SDK puts the socket error code (ECONNRESET, ECONNREFUSED...) in statusText when nothing came back.
    return new VpcApiError({
      service,
      operation,
      status: 0,
      code: str(e.statusText) ?? 'network_error',
      message: str(e.message) ?? fallbackMessage,
    });
  }
  const code = str(first?.code) ?? str(body.errorCode) ?? str(body.code) ?? `http_${status}`;
  // The SDK rewrites 401/403 messages to a generic text; the service's own message is more useful.
  const message =
    str(first?.message) ?? str(body.errorMessage) ?? str(body.message) ?? str(e.message) ?? fallbackMessage;
  const context =
    body.context && typeof body.context === 'object' ? (body.context as Record<string, unknown>) : undefined;
  const trace = str(body.trace) ?? str(context?.transactionId) ?? headerValue(e.headers, 'x-request-id');
  return new VpcApiError({
    service,
    operation,
    status,
    code,
    message,
    trace,
    target,
    retryAfterSeconds: retryAfter(e.headers),
  });
}
