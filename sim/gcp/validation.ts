// Field rules GCE enforces on names, labels, network tags and metadata, answered with GCE's 400s.
import { createHash } from 'node:crypto';
import { GceApiError, invalidField } from './api-error.js';

const NAME_RE = /^[a-z](?:[-a-z0-9]{0,61}[a-z0-9])?$/;
const LABEL_KEY_RE = /^[\p{Ll}\p{Lo}][\p{Ll}\p{Lo}\p{N}_-]{0,62}$/u;
const LABEL_VALUE_RE = /^[\p{Ll}\p{Lo}\p{N}_-]{0,63}$/u;
const TAG_RE = /^[a-z](?:[-a-z0-9]{0,61}[a-z0-9])?$/;
const METADATA_KEY_RE = /^[a-zA-Z0-9_-]{1,128}$/;
// GCE caps each metadata value at 256 KB and all keys and values of an instance together at 512 KB.
const MAX_METADATA_VALUE_BYTES = 256 * 1024;
const MAX_METADATA_BYTES = 512 * 1024;

export function checkName(field: string, name: unknown): string {
  if (typeof name !== 'string' || !NAME_RE.test(name)) {
    throw invalidField(field, name, "Must be a match of regex '(?:[a-z](?:[-a-z0-9]{0,61}[a-z0-9])?)'");
  }
  return name;
}

export function checkLabels(field: string, labels: unknown): Record<string, string> {
  if (labels === undefined || labels === null) return {};
  if (typeof labels !== 'object' || Array.isArray(labels))
    throw invalidField(field, labels, 'Labels must be a map of strings.');
  const out: Record<string, string> = {};
  const entries = Object.entries(labels as Record<string, unknown>);
  if (entries.length > 64) throw invalidField(field, '', `Label count ${entries.length} exceeds the maximum of 64.`);
  for (const [k, v] of entries) {
    if (!LABEL_KEY_RE.test(k))
      throw invalidField(
        `${field}.key`,
        k,
        'Label keys must start with a lowercase letter and contain only lowercase letters, digits, underscores and dashes (max 63).',
      );
    if (typeof v !== 'string' || !LABEL_VALUE_RE.test(v))
      throw invalidField(
        `${field}.value`,
        v,
        'Label values may contain only lowercase letters, digits, underscores and dashes (max 63).',
      );
    out[k] = v;
  }
  return out;
}

export function checkTags(field: string, items: unknown): string[] {
  if (items === undefined || items === null) return [];
  if (!Array.isArray(items)) throw invalidField(field, items, 'Tags must be a list of strings.');
  if (items.length > 64) throw invalidField(field, '', `Tag count ${items.length} exceeds the maximum of 64.`);
  items.forEach((t, i) => {
    if (typeof t !== 'string' || !TAG_RE.test(t))
      throw invalidField(`${field}[${i}]`, t, "Must be a match of regex '(?:[a-z](?:[-a-z0-9]{0,61}[a-z0-9])?)'");
  });
  return [...new Set(items as string[])];
}

export function checkMetadataItems(field: string, items: unknown): { key: string; value: string }[] {
  if (items === undefined || items === null) return [];
  if (!Array.isArray(items)) throw invalidField(field, items, 'Metadata items must be a list.');
  const seen = new Set<string>();
  let size = 0;
  return items.map((raw, i) => {
    const it = (raw ?? {}) as { key?: unknown; value?: unknown };
    if (typeof it.key !== 'string' || !METADATA_KEY_RE.test(it.key)) {
      throw invalidField(
        `${field}[${i}].key`,
        it.key,
        'Metadata keys must be 1-128 letters, digits, underscores or dashes.',
      );
    }
    if (seen.has(it.key)) throw invalidField(field, '', `Duplicate metadata key '${it.key}'.`);
    seen.add(it.key);
    const value = typeof it.value === 'string' ? it.value : '';
    const valueBytes = Buffer.byteLength(value);
    // The value is never echoed into an error: metadata carries user-data secrets.
    if (valueBytes > MAX_METADATA_VALUE_BYTES)
      throw new GceApiError(
        400,
        'invalid',
        `Value for field '${field}[${i}].value' is too large: maximum size ${MAX_METADATA_VALUE_BYTES} character(s); ` +
          `actual size ${valueBytes}.`,
      );
    size += Buffer.byteLength(it.key) + valueBytes;
    if (size > MAX_METADATA_BYTES)
      throw invalidField(field, '', `Metadata exceeds the maximum total size of ${MAX_METADATA_BYTES} bytes.`);
    return { key: it.key, value };
  });
}

/** A GCE-style fingerprint: 8 bytes of a hash of the content, base64. */
export function fingerprint(content: unknown): string {
  return createHash('sha256')
    .update(JSON.stringify(content ?? null))
    .digest()
    .subarray(0, 8)
    .toString('base64');
}

/** An int64 sent either as a JSON string (proto3 JSON) or a number. */
export function readInt64(field: string, v: unknown): number | undefined {
  if (v === undefined || v === null || v === '') return undefined;
  const n = typeof v === 'string' ? Number(v) : v;
  if (typeof n !== 'number' || !Number.isSafeInteger(n) || n < 0)
    throw invalidField(field, v, 'Must be a non-negative integer.');
  return n;
}
