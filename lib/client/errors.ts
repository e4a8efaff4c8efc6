// Typed API errors: the HTTP status and the Status body the server sent.
import type { Status } from '../apis/meta.js';

export class ApiError extends Error {
  override readonly name = 'ApiError';
  constructor(
    readonly code: number,
    readonly status: Status,
    message?: string,
  ) {
    super(message ?? status.message ?? `Kubernetes API error ${code}`);
  }
  get reason(): string | undefined {
    return this.status.reason;
  }
}

function codeOf(err: unknown): number | undefined {
  return err instanceof ApiError ? err.code : undefined;
}

export const isNotFound = (err: unknown): boolean => codeOf(err) === 404;
export const isConflict = (err: unknown): boolean => codeOf(err) === 409;
export const isAlreadyExists = (err: unknown): boolean =>
  codeOf(err) === 409 && (err as ApiError).reason === 'AlreadyExists';
export const isGone = (err: unknown): boolean => codeOf(err) === 410;
export const isTooManyRequests = (err: unknown): boolean => codeOf(err) === 429;
export const isInvalid = (err: unknown): boolean => codeOf(err) === 422;
export const isForbidden = (err: unknown): boolean => codeOf(err) === 403;

/** Swallows NotFound, rethrows anything else: for deletes and reads where "gone" is the goal. */
export function ignoreNotFound(err: unknown): void {
  if (!isNotFound(err)) throw err;
}
