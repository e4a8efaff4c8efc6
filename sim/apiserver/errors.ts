// API errors as kube-apiserver sends them: a metav1.Status body with the same code, reason and
// message wording, so clients (and kubectl's error printing) cannot tell the difference.

export interface StatusCause {
  reason: string;
  message: string;
  field?: string;
}

export interface StatusDetails {
  name?: string;
  group?: string;
  kind?: string;
  uid?: string;
  causes?: StatusCause[];
  retryAfterSeconds?: number;
}

/** A qualified resource as kube names it in messages: "machines.machine.openshift.io", or "pods" for core. */
export interface GroupResource {
  group: string;
  resource: string;
}

export function qualifiedName(gr: GroupResource): string {
  return gr.group === '' ? gr.resource : `${gr.resource}.${gr.group}`;
}

export class StatusError extends Error {
  override readonly name = 'StatusError';
  constructor(
    readonly code: number,
    readonly reason: string,
    message: string,
    readonly details?: StatusDetails,
  ) {
    super(message);
  }

  toStatus(): Record<string, unknown> {
    const status: Record<string, unknown> = {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: this.message,
      reason: this.reason,
    };
    if (this.details) status.details = this.details;
    status.code = this.code;
    return status;
  }
}

export function notFound(gr: GroupResource, name: string): StatusError {
  return new StatusError(404, 'NotFound', `${qualifiedName(gr)} "${name}" not found`, {
    name,
    group: gr.group || undefined,
    kind: gr.resource,
  });
}

export function alreadyExists(gr: GroupResource, name: string): StatusError {
  return new StatusError(409, 'AlreadyExists', `${qualifiedName(gr)} "${name}" already exists`, {
    name,
    group: gr.group || undefined,
    kind: gr.resource,
  });
}

export function conflict(gr: GroupResource, name: string, why: string): StatusError {
  return new StatusError(409, 'Conflict', `Operation cannot be fulfilled on ${qualifiedName(gr)} "${name}": ${why}`, {
    name,
    group: gr.group || undefined,
    kind: gr.resource,
  });
}

export const staleObjectMessage =
  'the object has been modified; please apply your changes to the latest version and try again';

/** 422 with one cause per field, worded like field.ErrorList.ToAggregate(). */
export function invalid(kind: string, group: string, name: string, causes: StatusCause[]): StatusError {
  const qualifiedKind = group === '' ? kind : `${kind}.${group}`;
  const parts = causes.map((c) => (c.field ? `${c.field}: ${c.message}` : c.message));
  const joined = parts.length === 1 ? (parts[0] ?? '') : `[${parts.join(', ')}]`;
  return new StatusError(422, 'Invalid', `${qualifiedKind} "${name}" is invalid: ${joined}`, {
    name,
    group: group || undefined,
    kind,
    causes,
  });
}

export function badRequest(message: string): StatusError {
  return new StatusError(400, 'BadRequest', message);
}

export function unauthorized(): StatusError {
  return new StatusError(401, 'Unauthorized', 'Unauthorized');
}

export function forbidden(gr: GroupResource, name: string, why: string): StatusError {
  return new StatusError(403, 'Forbidden', `${qualifiedName(gr)} "${name}" is forbidden: ${why}`, {
    name,
    group: gr.group || undefined,
    kind: gr.resource,
  });
}

export function notFoundPath(): StatusError {
  return new StatusError(404, 'NotFound', 'the server could not find the requested resource', {});
}

export function methodNotAllowed(): StatusError {
  return new StatusError(
    405,
    'MethodNotAllowed',
    'the server does not allow this method on the requested resource',
    {},
  );
}

export function notAcceptable(): StatusError {
  return new StatusError(
    406,
    'NotAcceptable',
    'only the following media types are accepted: application/json, application/yaml, application/json;as=Table;v=v1;g=meta.k8s.io',
  );
}

export function gone(message: string): StatusError {
  return new StatusError(410, 'Expired', message);
}

export function tooLarge(limit: number): StatusError {
  return new StatusError(413, 'RequestEntityTooLarge', `Request entity too large: limit is ${limit}`);
}

export function unsupportedMediaType(contentType: string, accepted: string[]): StatusError {
  return new StatusError(
    415,
    'UnsupportedMediaType',
    `the body of the request was in an unknown format - accepted media types include: ${accepted.join(', ')}`,
    { causes: [{ reason: 'UnsupportedMediaType', message: contentType }] },
  );
}

export function tooManyRequests(message: string, causes?: StatusCause[]): StatusError {
  return new StatusError(429, 'TooManyRequests', message, causes ? { causes } : {});
}

export function internalError(message: string): StatusError {
  return new StatusError(500, 'InternalError', `Internal error occurred: ${message}`, {
    causes: [{ reason: '', message }],
  });
}
