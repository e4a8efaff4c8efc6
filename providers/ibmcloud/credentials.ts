// The IAM API key in a credentials Secret (key ibmcloud_api_key, as the cloud credential operator writes it,
// used raw as the reference does). Only a fingerprint ever leaves this file besides the key itself, which goes
// straight to the IAM authenticator and is never logged or put in an error message.
import { createHash } from 'node:crypto';
import { secretText, type Secret } from '../../lib/index.js';
import { API_KEY_SECRET_KEY } from './provider-spec.js';

export class CredentialsSecretError extends Error {
  override readonly name = 'CredentialsSecretError';
}

/** The API key in the Secret; the error says what is missing, never what is there. */
export function apiKeyFromSecret(secret: Secret): string {
  const where = `secret ${secret.metadata.namespace ?? ''}/${secret.metadata.name ?? ''}`;
  const raw = secretText(secret, API_KEY_SECRET_KEY);
  if (raw === undefined) throw new CredentialsSecretError(`${where} does not have "${API_KEY_SECRET_KEY}" field set`);
  // A trailing newline from `kubectl create secret --from-file` is not part of the key.
  const key = raw.trim();
  if (key === '') throw new CredentialsSecretError(`${where}: "${API_KEY_SECRET_KEY}" is empty`);
  return key;
}

/** Identifies an API key for client caching without keeping the key material in the cache key. */
export const apiKeyFingerprint = (apiKey: string): string =>
  createHash('sha256').update(apiKey).digest('hex').slice(0, 16);
