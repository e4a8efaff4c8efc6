// How the emulator writes GCE answers: the error JSON, the throttling and internal-error faults, and the
// grouping of actions used by knob matchers.
import type { FaultSpec } from '../kit/index.js';

export interface GceErrorBody {
  error: {
    code: number;
    message: string;
    errors: { message: string; domain: string; reason: string }[];
    status?: string;
  };
}

/** The google.rpc status names GCE adds for some errors (a refused credential at 401, throttling at 429). */
const STATUS_BY_HTTP: Record<number, string> = { 401: 'UNAUTHENTICATED', 429: 'RESOURCE_EXHAUSTED' };

export function errorBody(status: number, reason: string, message: string, domain = 'global'): GceErrorBody {
  const body: GceErrorBody = { error: { code: status, message, errors: [{ message, domain, reason }] } };
  const rpcStatus = STATUS_BY_HTTP[status];
  if (rpcStatus) body.error.status = rpcStatus;
  return body;
}

export type ThrottleStatus = 403 | 429;

/**
 * GCE throttles API calls with 403 rateLimitExceeded (domain usageLimits); the per-minute API quota answers
 * 429 with the same reason. FaultSpec.code carries the reason.
 */
export function throttleFault(status: ThrottleStatus): FaultSpec {
  return status === 429
    ? {
        status: 429,
        code: 'rateLimitExceeded',
        message:
          "Quota exceeded for quota metric 'Queries' and limit 'Queries per minute' of service 'compute.googleapis.com'.",
      }
    : { status: 403, code: 'rateLimitExceeded', message: 'Rate Limit Exceeded' };
}

export function serverFault(): FaultSpec {
  return { status: 503, code: 'backendError', message: 'Internal error. Please try again or contact Google Support.' };
}

/** The errors[].domain GCE uses for a reason. */
export function domainOf(reason: string): string {
  return reason === 'rateLimitExceeded' || reason === 'quotaExceeded' ? 'usageLimits' : 'global';
}

/**
 * Knob action classes: "read" (get/list), "operations" (operation get/wait/list) and "mutate". Actions are named
 * like the API methods, e.g. "instances.insert", "zoneOperations.wait".
 */
export function classifyAction(action: string): string {
  const [resource = '', method = ''] = action.split('.');
  if (resource.endsWith('Operations')) return 'operations';
  if (/^(get|list|aggregatedList|getFromFamily|getNamespaced|listInstances)$/.test(method)) return 'read';
  return 'mutate';
}
