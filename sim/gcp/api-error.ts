// An error answer in GCE's own terms: HTTP status, the `errors[].reason` GCE puts in its JSON, and its message.

export class GceApiError extends Error {
  override readonly name = 'GceApiError';
  constructor(
    readonly status: number,
    readonly reason: string,
    message: string,
    readonly domain = 'global',
  ) {
    super(message);
  }
}

/** GCE's 404 for any missing resource; `path` is the resource path without the API prefix. */
export const notFound = (path: string): GceApiError =>
  new GceApiError(404, 'notFound', `The resource '${path}' was not found`);

export const alreadyExists = (path: string): GceApiError =>
  new GceApiError(409, 'alreadyExists', `The resource '${path}' already exists`);

/** GCE's wording for a bad field value: "Invalid value for field 'resource.x': 'v'. <why>". */
export const invalidField = (field: string, value: unknown, why: string): GceApiError =>
  new GceApiError(400, 'invalid', `Invalid value for field '${field}': '${fieldText(value)}'. ${why}`);

export const requiredField = (field: string): GceApiError =>
  new GceApiError(400, 'required', `Required field '${field}' not specified`);

export const invalidResourceUsage = (why: string): GceApiError =>
  new GceApiError(400, 'invalidResourceUsage', `Invalid resource usage: '${why}'.`);

export const badRequest = (message: string): GceApiError => new GceApiError(400, 'badRequest', message);

export const conditionNotMet = (message: string): GceApiError => new GceApiError(412, 'conditionNotMet', message);

export const resourceNotReady = (path: string): GceApiError =>
  new GceApiError(400, 'resourceNotReady', `The resource '${path}' is not ready`);

function fieldText(value: unknown): string {
  if (value === undefined || value === null) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return JSON.stringify(value);
}
