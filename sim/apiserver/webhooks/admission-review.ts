// The AdmissionReview v1 wire format: the request kube-apiserver sends a webhook, and the checks it
// makes on the reply before trusting it (kind and apiVersion, the request's uid echoed, patch and
// patchType together and only from mutating webhooks, a patch that decodes to a JSON Patch).
import { randomUUID } from 'node:crypto';
import { checkJsonTextDepth } from '../json-depth.js';
import { isPlainObject } from '../json.js';
import { apiVersionFor } from '../resource-type.js';
import { localUser, type AdmissionAttributes } from './attributes.js';
import type { Invocation } from './matcher.js';

export const AdmissionReviewApiVersion = 'admission.k8s.io/v1';

export interface ReviewRequest {
  uid: string;
  body: string;
}

/** The object as the webhook's rule version sees it (custom resources convert with strategy None). */
function inVersion(obj: Record<string, unknown> | undefined, invocation: Invocation): Record<string, unknown> | null {
  if (!obj) return null;
  const apiVersion = apiVersionFor(invocation.kind.group, invocation.kind.version);
  return obj.apiVersion === apiVersion ? obj : { ...obj, apiVersion };
}

export function buildReview(attrs: AdmissionAttributes, invocation: Invocation): ReviewRequest {
  const uid = randomUUID();
  const request: Record<string, unknown> = {
    uid,
    kind: invocation.kind,
    resource: invocation.resource,
    ...(attrs.subresource ? { subResource: attrs.subresource } : {}),
    requestKind: attrs.kind,
    requestResource: { group: attrs.type.group, version: attrs.version, resource: attrs.type.plural },
    ...(attrs.subresource ? { requestSubResource: attrs.subresource } : {}),
    ...(attrs.name ? { name: attrs.name } : {}),
    ...(attrs.namespace ? { namespace: attrs.namespace } : {}),
    operation: attrs.operation,
    userInfo: localUser,
    object: inVersion(attrs.object, invocation),
    oldObject: inVersion(attrs.oldObject, invocation),
    dryRun: attrs.dryRun,
    options: attrs.options,
  };
  return { uid, body: JSON.stringify({ apiVersion: AdmissionReviewApiVersion, kind: 'AdmissionReview', request }) };
}

export interface ReviewResult {
  allowed: boolean;
  /** JSON Patch operations, from a mutating webhook. */
  patch?: unknown[];
  /** The metav1.Status of a denial. */
  result?: Record<string, unknown>;
  warnings: string[];
}

/** Why a reply cannot be used; becomes "received invalid webhook response: <reason>". */
export class InvalidReviewError extends Error {
  override readonly name = 'InvalidReviewError';
}

function parse(text: string): unknown {
  try {
    checkJsonTextDepth(text);
    return JSON.parse(text);
  } catch (err) {
    throw new InvalidReviewError(`the reply is not an AdmissionReview: ${(err as Error).message}`);
  }
}

function decodePatch(raw: unknown): unknown[] {
  const text = typeof raw === 'string' ? Buffer.from(raw, 'base64').toString('utf8') : '';
  let ops: unknown;
  try {
    checkJsonTextDepth(text);
    ops = JSON.parse(text);
  } catch (err) {
    throw new InvalidReviewError(`received undecodable patch in webhook response: ${(err as Error).message}`);
  }
  if (!Array.isArray(ops))
    throw new InvalidReviewError(
      'received undecodable patch in webhook response: a JSON patch must be an array of operations',
    );
  return ops;
}

export function parseReview(text: string, uid: string, mutating: boolean): ReviewResult {
  const review = parse(text);
  if (!isPlainObject(review)) throw new InvalidReviewError('the reply is not an AdmissionReview object');
  const response = review.response;
  if (!isPlainObject(response)) throw new InvalidReviewError('webhook response was absent');
  if (response.uid !== uid)
    throw new InvalidReviewError(
      `expected response.uid=${JSON.stringify(uid)}, got ${JSON.stringify(response.uid ?? '')}`,
    );
  if (review.apiVersion !== AdmissionReviewApiVersion || review.kind !== 'AdmissionReview') {
    const got = (v: unknown) => (typeof v === 'string' ? v : JSON.stringify(v ?? ''));
    throw new InvalidReviewError(
      `expected webhook response of admission.k8s.io/v1, Kind=AdmissionReview, got ${got(review.apiVersion)}, Kind=${got(review.kind)}`,
    );
  }
  const hasPatch = typeof response.patch === 'string' && response.patch !== '';
  const hasPatchType = response.patchType !== undefined && response.patchType !== null;
  let patch: unknown[] | undefined;
  if (mutating) {
    if (hasPatch && !hasPatchType)
      throw new InvalidReviewError('webhook returned response.patch but not response.patchType');
    if (!hasPatch && hasPatchType)
      throw new InvalidReviewError('webhook returned response.patchType but not response.patch');
    if (hasPatch) {
      if (response.patchType !== 'JSONPatch')
        throw new InvalidReviewError(`unsupported patch type ${JSON.stringify(response.patchType)}`);
      patch = decodePatch(response.patch);
    }
  } else {
    if (hasPatch) throw new InvalidReviewError('validating webhook may not return response.patch');
    if (hasPatchType) throw new InvalidReviewError('validating webhook may not return response.patchType');
  }
  const warnings = Array.isArray(response.warnings)
    ? response.warnings.filter((w): w is string => typeof w === 'string')
    : [];
  return {
    allowed: response.allowed === true,
    patch,
    result: isPlainObject(response.status) ? response.status : undefined,
    warnings,
  };
}
