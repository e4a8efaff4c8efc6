// Which requests may be sent again after the connection they went out on failed before its
// reply arrived. The server may or may not have acted on such a request (it may have closed an idle connection as
// the request arrived, or applied the request and then lost the connection), so a request is replayed only
// when a second arrival provably cannot change what the first one did:
//  - a GET changes nothing;
//  - a write conditional on the object's resourceVersion (a PUT carrying metadata.resourceVersion, a patch
//    locked by withResourceVersionLock) is refused with 409 once the first one landed, since that moved the
//    resourceVersion;
//  - a DELETE with a uid or resourceVersion precondition can only ever delete the object it names; once the
//    first one landed the replay finds it gone (404) or already deleting.
// Everything else is not replayed, and its caller sees the connection error as before:
//  - a POST: a create with generateName would make a second object, and one with a name could bring back an
//    object someone deleted between the two attempts (AlreadyExists does not guard that); an eviction or a
//    review is rare enough not to need it;
//  - an unconditional PUT, PATCH or DELETE: between the two attempts another client may have read the first
//    one's result and written over it, and the replay would silently undo that acknowledged write (or delete
//    a new object that took the name).
// Go's net/http draws the same line for its own retries: only requests without side effects, unless nothing
// of the request was written.
import type { JsonPatchOperation } from './kube-client.js';
import type { RequestSpec } from './http-transport.js';

const ResourceVersionPath = '/metadata/resourceVersion';

function nonEmptyString(v: unknown): boolean {
  return typeof v === 'string' && v !== '';
}

function field(obj: unknown, key: string): unknown {
  return obj !== null && typeof obj === 'object' && !Array.isArray(obj)
    ? (obj as Record<string, unknown>)[key]
    : undefined;
}

/** The body carries metadata.resourceVersion (a PUT's object, a merge patch's lock). */
function hasResourceVersion(body: unknown): boolean {
  return nonEmptyString(field(field(body, 'metadata'), 'resourceVersion'));
}

/** A JSON patch that replaces or tests metadata.resourceVersion before anything else happens. */
function jsonPatchLocked(body: unknown): boolean {
  if (!Array.isArray(body) || body.length === 0) return false;
  const first = body[0] as Partial<JsonPatchOperation>;
  return (
    (first.op === 'replace' || first.op === 'test') && first.path === ResourceVersionPath && nonEmptyString(first.value)
  );
}

/** True when sending `spec` a second time cannot change what a first, possibly applied, attempt did. */
export function isReplaySafe(spec: Pick<RequestSpec, 'method' | 'body' | 'contentType'>): boolean {
  switch (spec.method) {
    case 'GET':
      return true;
    case 'PUT':
      return hasResourceVersion(spec.body);
    case 'PATCH':
      return spec.contentType === 'application/json-patch+json'
        ? jsonPatchLocked(spec.body)
        : hasResourceVersion(spec.body);
    case 'DELETE': {
      const pre = field(spec.body, 'preconditions');
      return nonEmptyString(field(pre, 'uid')) || nonEmptyString(field(pre, 'resourceVersion'));
    }
    case 'POST':
      return false;
  }
}
