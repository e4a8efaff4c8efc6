// One key of a Secret as its reader sees it: `data` holds base64 and wins; `stringData` holds plain text (an API
// server folds it into `data` on write, but an object built in memory, or read from a store that kept it, may
// still carry it). The value is returned, never logged.
import type { Secret } from '../apis/core.js';

/** The bytes under `key`, or undefined when the Secret has no such key. */
export function secretBytes(secret: Secret, key: string): Buffer | undefined {
  const encoded = secret.data?.[key];
  if (encoded !== undefined) return Buffer.from(encoded, 'base64');
  const plain = secret.stringData?.[key];
  return plain === undefined ? undefined : Buffer.from(plain, 'utf8');
}

/** The value under `key` as UTF-8 text, or undefined when the Secret has no such key. */
export function secretText(secret: Secret, key: string): string | undefined {
  const encoded = secret.data?.[key];
  if (encoded !== undefined) return Buffer.from(encoded, 'base64').toString('utf8');
  return secret.stringData?.[key];
}
