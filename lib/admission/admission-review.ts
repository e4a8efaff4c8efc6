// AdmissionReview v1 (admission.k8s.io/v1) as kube-apiserver sends it to a webhook, and its bounded decoding:
// a body that is too large, nested too deeply, not JSON, not an AdmissionReview v1 or carrying the wrong kind
// of object is refused with an AdmissionDecodeError saying which, never a crash.
import type { KubeObject } from '../apis/meta.js';
import { jsonNestingExceeds } from '../apis/json-nesting.js';

// Everything after decoding (the rules, the defaults merge, the patch diff) walks objects recursively. Real
// Machines nest about 15 levels; 512 leaves a wide margin.
export const MaxAdmissionJsonDepth = 512;

/** controller-runtime's limit on an admission request body: an object and its old copy, each up to kube-apiserver's 3 MiB. */
export const MaxAdmissionRequestBytes = 7 * 1024 * 1024;

export type AdmissionOperation = 'CREATE' | 'UPDATE' | 'DELETE' | 'CONNECT';

export interface GroupVersionKind {
  group: string;
  version: string;
  kind: string;
}

export interface AdmissionRequest {
  uid: string;
  kind: GroupVersionKind;
  resource?: { group: string; version: string; resource: string };
  subResource?: string;
  name?: string;
  namespace?: string;
  operation: AdmissionOperation;
  userInfo?: { username?: string; uid?: string; groups?: string[] };
  object?: KubeObject | null;
  oldObject?: KubeObject | null;
  dryRun?: boolean;
}

export interface AdmissionStatus {
  code: number;
  message: string;
  reason?: string;
}

export interface AdmissionResponse {
  uid: string;
  allowed: boolean;
  status?: AdmissionStatus;
  patchType?: 'JSONPatch';
  /** base64 of the JSON Patch text. */
  patch?: string;
  warnings?: string[];
}

export interface AdmissionReview {
  apiVersion: 'admission.k8s.io/v1';
  kind: 'AdmissionReview';
  request?: AdmissionRequest;
  response?: AdmissionResponse;
}

/** Why a request could not be decoded; `code` is the HTTP status the errored response carries. */
export class AdmissionDecodeError extends Error {
  override readonly name = 'AdmissionDecodeError';
  constructor(
    readonly code: number,
    message: string,
    /** The request's uid when it was readable, so the response still matches it. */
    readonly uid = '',
  ) {
    super(message);
  }
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const operations: ReadonlySet<string> = new Set(['CREATE', 'UPDATE', 'DELETE', 'CONNECT']);

/** Checks the content type as controller-runtime does: exactly application/json (parameters allowed). */
export function checkContentType(contentType: string | undefined): void {
  const base = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
  if (base !== 'application/json')
    throw new AdmissionDecodeError(400, `contentType=${contentType ?? ''}, expected application/json`);
}

/** Decodes an AdmissionReview v1 body; throws AdmissionDecodeError. */
export function decodeAdmissionReview(body: string): AdmissionRequest {
  if (body.length === 0) throw new AdmissionDecodeError(400, 'request body is empty');
  if (body.length > MaxAdmissionRequestBytes)
    throw new AdmissionDecodeError(413, `request entity is too large; limit is ${MaxAdmissionRequestBytes} bytes`);
  if (jsonNestingExceeds(body, MaxAdmissionJsonDepth))
    throw new AdmissionDecodeError(
      400,
      `request body nests objects and arrays more than ${MaxAdmissionJsonDepth} levels deep`,
    );
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch (err) {
    throw new AdmissionDecodeError(400, `request body is not valid JSON: ${(err as Error).message.slice(0, 200)}`);
  }
  if (!isObject(parsed)) throw new AdmissionDecodeError(400, 'request body must be an AdmissionReview object');
  if (parsed.apiVersion !== 'admission.k8s.io/v1' || parsed.kind !== 'AdmissionReview') {
    throw new AdmissionDecodeError(
      400,
      `expected admission.k8s.io/v1 AdmissionReview, got ${String(parsed.apiVersion).slice(0, 100)} ${String(parsed.kind).slice(0, 100)}`,
    );
  }
  const req = parsed.request;
  if (!isObject(req)) throw new AdmissionDecodeError(400, 'AdmissionReview has no request');
  const uid = typeof req.uid === 'string' ? req.uid.slice(0, 128) : '';
  if (!uid) throw new AdmissionDecodeError(400, 'request.uid: Required value');
  if (typeof req.operation !== 'string' || !operations.has(req.operation)) {
    throw new AdmissionDecodeError(400, 'request.operation: must be one of CREATE, UPDATE, DELETE, CONNECT', uid);
  }
  const kind = req.kind;
  if (
    !isObject(kind) ||
    typeof kind.kind !== 'string' ||
    typeof kind.group !== 'string' ||
    typeof kind.version !== 'string'
  ) {
    throw new AdmissionDecodeError(400, 'request.kind: must name group, version and kind', uid);
  }
  for (const key of ['object', 'oldObject'] as const) {
    const o = req[key];
    if (o !== undefined && o !== null && !isObject(o))
      throw new AdmissionDecodeError(400, `request.${key}: must be an object`, uid);
  }
  return req as unknown as AdmissionRequest;
}
