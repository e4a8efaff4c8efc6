// The answers a webhook gives, shaped as controller-runtime shapes them: allowed (with an optional JSON
// Patch and warnings), denied (403 Forbidden with the message kube-apiserver shows after "denied the
// request: "), errored (the HTTP status of what went wrong with the request itself). Every answer goes
// back with HTTP 200, so kube-apiserver acts on it rather than on its failurePolicy.
import type { AdmissionResponse, AdmissionReview } from './admission-review.js';
import type { JsonPatchOperation } from '../client/kube-client.js';

/** kube-apiserver keeps warnings short; so does this server, so a hostile spec cannot bloat a reply. */
const MAX_WARNINGS = 50;
const MAX_WARNING_LENGTH = 512;

function boundedWarnings(warnings: readonly string[] | undefined): string[] | undefined {
  if (!warnings || warnings.length === 0) return undefined;
  const unique = [...new Set(warnings)].slice(0, MAX_WARNINGS);
  return unique.map((w) => (w.length > MAX_WARNING_LENGTH ? `${w.slice(0, MAX_WARNING_LENGTH - 3)}...` : w));
}

export function allowedResponse(
  uid: string,
  opts: { patch?: readonly JsonPatchOperation[]; warnings?: readonly string[] } = {},
): AdmissionResponse {
  const res: AdmissionResponse = { uid, allowed: true };
  if (opts.patch && opts.patch.length > 0) {
    res.patchType = 'JSONPatch';
    res.patch = Buffer.from(JSON.stringify(opts.patch)).toString('base64');
  }
  const warnings = boundedWarnings(opts.warnings);
  if (warnings) res.warnings = warnings;
  return res;
}

export function deniedResponse(uid: string, message: string, warnings?: readonly string[]): AdmissionResponse {
  const res: AdmissionResponse = { uid, allowed: false, status: { code: 403, reason: 'Forbidden', message } };
  const w = boundedWarnings(warnings);
  if (w) res.warnings = w;
  return res;
}

export function erroredResponse(uid: string, code: number, message: string): AdmissionResponse {
  return { uid, allowed: false, status: { code, message } };
}

export function reviewOf(response: AdmissionResponse): AdmissionReview {
  return { apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', response };
}
