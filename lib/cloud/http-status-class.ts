// What the HTTP status of a cloud's error reply says on its own, written once for every cloud. A cloud's errors.ts
// reads its own codes first (a throttling code sent with 400, a quota code sent with 403, a name already taken
// under 409) and falls back to this for a status whose code it does not know:
// - 429 is throttling: the request was turned away unread; it is sent again after a pause.
// - 408, 425 and every 5xx are transient: nothing about the request is wrong, the cloud could not answer now.
// - 401, 403 and 407 are refused credentials: a changed credentials Secret, a proxy fixed or IAM catching up makes
//   the same request succeed, so they are retried and never fail a Machine.
// - 400, 405, 406, 411, 413, 414, 415, 422 and 431 are deterministic: the request itself (its parameters, its
//   method or media type, its size) is what is refused, and the same request gets the same answer however often
//   it is sent. Retrying them would keep a Machine Provisioning for ever; they are terminal, as the reference
//   makes every 4xx of a launch.
// - 404, 409 and the rest of 4xx (402, 410, 412, 416, 417, 421, 423, 424, 426, 428, 451, ...) mean different
//   things per call (gone, taken, busy, a stale fingerprint): this says nothing, and the cloud decides.

/** A status's meaning when it does not depend on the call or the cloud's code. */
export type HttpStatusClass = 'throttled' | 'transient' | 'unauthorized' | 'invalid';

const TRANSIENT_4XX = new Set([408, 425]);
const UNAUTHORIZED = new Set([401, 403, 407]);
const DETERMINISTIC_4XX = new Set([400, 405, 406, 411, 413, 414, 415, 422, 431]);

/** What `status` alone says of a failed call; undefined when its meaning is the cloud's to tell (404, 409, ...). */
export function classifyHttpStatus(status: number | undefined): HttpStatusClass | undefined {
  if (status === undefined) return undefined;
  if (status === 429) return 'throttled';
  if (status >= 500 || TRANSIENT_4XX.has(status)) return 'transient';
  if (UNAUTHORIZED.has(status)) return 'unauthorized';
  if (DETERMINISTIC_4XX.has(status)) return 'invalid';
  return undefined;
}
