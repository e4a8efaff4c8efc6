// Input checks shared by several actions, with EC2's error codes and wording.
import { Ec2ApiError, invalidParameterValue } from './api-error.js';
import type { Tag } from './model.js';
import type { QueryParams } from './query-params.js';

export const MAX_TAGS_PER_RESOURCE = 50;
/** What follows `<prefix>-` in an EC2 resource id: 8 (old style) or 17 lower-case hex digits. */
const RESOURCE_ID_SUFFIX = /^([0-9a-f]{8}|[0-9a-f]{17})$/;

export function oneOf<T extends string>(
  value: string | undefined,
  allowed: readonly T[],
  field: string,
): T | undefined {
  if (value === undefined) return undefined;
  if (!(allowed as readonly string[]).includes(value)) {
    throw invalidParameterValue(
      `Value (${value}) for parameter ${field} is invalid. Valid values: ${allowed.join(', ')}`,
    );
  }
  return value as T;
}

export function checkIdFormat(id: string, prefix: string, malformedCode: string): void {
  if (!id.startsWith(`${prefix}-`) || !RESOURCE_ID_SUFFIX.test(id.slice(prefix.length + 1))) {
    throw new Ec2ApiError(400, malformedCode, `Invalid id: "${id}" (expecting "${prefix}-...")`);
  }
}

/** `Tag.N.Key` / `Tag.N.Value` under the given params; `allowDuplicates` for CreateTags (the last value wins). */
export function readTags(params: QueryParams, prefix: string, allowDuplicates: boolean): Tag[] {
  const tags: Tag[] = [];
  for (const t of params.structList(prefix)) {
    const key = t.get('Key');
    const value = t.get('Value') ?? '';
    if (key === undefined || key === '') throw invalidParameterValue('Tag key must not be empty');
    if ([...key].length > 128)
      throw invalidParameterValue(`Tag key exceeds the maximum length of 128 characters: '${key.slice(0, 20)}...'`);
    if ([...value].length > 256)
      throw invalidParameterValue(`Tag value exceeds the maximum length of 256 characters for key '${key}'`);
    if (key.toLowerCase().startsWith('aws:'))
      throw invalidParameterValue(`Tag keys starting with 'aws:' are reserved for internal use: '${key}'`);
    const existing = tags.findIndex((x) => x.key === key);
    if (existing >= 0) {
      if (!allowDuplicates) throw invalidParameterValue(`Duplicate tag key '${key}' specified.`);
      tags.splice(existing, 1);
    }
    tags.push({ key, value });
  }
  return tags;
}

/** Sets or replaces tags, enforcing EC2's 50-tags-per-resource limit. */
export function mergeTags(current: readonly Tag[], add: readonly Tag[], resourceId: string): Tag[] {
  const out = current.map((t) => ({ ...t }));
  for (const t of add) {
    const i = out.findIndex((x) => x.key === t.key);
    if (i >= 0) out[i] = { ...t };
    else out.push({ ...t });
  }
  if (out.length > MAX_TAGS_PER_RESOURCE) {
    throw new Ec2ApiError(
      400,
      'TagLimitExceeded',
      `The maximum number of Tags for a resource has been reached (${resourceId}).`,
    );
  }
  return out;
}

export function checkDryRun(params: QueryParams): void {
  if (params.bool('DryRun') === true) {
    throw new Ec2ApiError(412, 'DryRunOperation', 'Request would have succeeded, but DryRun flag is set.');
  }
}

/** Base64 that decodes to at most `maxBytes`; EC2 rejects other user data. */
export function checkUserData(b64: string, maxBytes: number): void {
  const compact = b64.replace(/\s+/g, '');
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(compact) || compact.length % 4 !== 0) {
    throw invalidParameterValue('Invalid BASE64 encoding of user data.');
  }
  if (Buffer.from(compact, 'base64').length > maxBytes) {
    throw invalidParameterValue(`User data is limited to ${maxBytes} bytes`);
  }
}
