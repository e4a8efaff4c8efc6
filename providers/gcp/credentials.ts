// The service-account key in a credentials Secret (key service_account.json, as the cloud credential
// operator writes it). Only the project id and a fingerprint ever leave this file; the key itself goes
// straight to the Google auth library and is never logged or put in an error message.
import { createHash } from 'node:crypto';
import type { Secret } from '../../lib/index.js';

export const SERVICE_ACCOUNT_KEY = 'service_account.json';

export interface GcpCredentials {
  /** project_id of the key: the default project for specs that name none. */
  projectId: string;
  clientEmail: string;
  /** The parsed JSON key, for google-auth-library. */
  json: Record<string, unknown>;
}

export class CredentialsSecretError extends Error {
  override readonly name = 'CredentialsSecretError';
}

/** Parses the Secret's service_account.json; the error says what is missing, never what is there. */
export function credentialsFromSecret(secret: Secret): GcpCredentials {
  const where = `secret ${secret.metadata.namespace ?? ''}/${secret.metadata.name ?? ''}`;
  const encoded = secret.data?.[SERVICE_ACCOUNT_KEY];
  const text = encoded !== undefined ? Buffer.from(encoded, 'base64').toString('utf8') : secret.stringData?.[SERVICE_ACCOUNT_KEY];
  if (text === undefined) throw new CredentialsSecretError(`${where} has no ${SERVICE_ACCOUNT_KEY} key`);
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new CredentialsSecretError(`${where}: ${SERVICE_ACCOUNT_KEY} is not valid JSON`);
  }
  if (typeof json !== 'object' || json === null || Array.isArray(json)) throw new CredentialsSecretError(`${where}: ${SERVICE_ACCOUNT_KEY} must be a JSON object`);
  const o = json as Record<string, unknown>;
  const projectId = typeof o.project_id === 'string' ? o.project_id : '';
  const clientEmail = typeof o.client_email === 'string' ? o.client_email : '';
  if (!projectId) throw new CredentialsSecretError(`${where}: ${SERVICE_ACCOUNT_KEY} has no project_id`);
  return { projectId, clientEmail, json: o };
}

/** Identifies credentials for client caching without keeping the key material around in the key. */
export function credentialsFingerprint(c: GcpCredentials | undefined): string {
  if (!c) return 'default';
  return createHash('sha256').update(JSON.stringify(c.json)).digest('hex').slice(0, 16);
}
