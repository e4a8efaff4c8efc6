// The credentials in a credentials Secret (key service_account.json, as the cloud credential operator writes
// it): a service-account key, or in short-lived-credential clusters an external_account file (Workload Identity
// Federation: the bound service-account token is exchanged at Google's STS, then usually impersonates a
// service account). Only the project id, the account and a fingerprint ever leave this file; the rest goes
// straight to the Google auth library and is never logged or put in an error message.
import { createHash } from 'node:crypto';
import { secretText, type Secret } from '../../lib/index.js';

export const SERVICE_ACCOUNT_KEY = 'service_account.json';

/** service_account: a key; external_account: Workload Identity Federation (a token exchanged at STS). */
export type GcpCredentialsType = 'service_account' | 'external_account';

export interface GcpCredentials {
  type: GcpCredentialsType;
  /** project_id of the file, if it names one: the default project for specs that name none. */
  projectId?: string;
  /** The service account the calls act as (a key's client_email, or the one an external account impersonates). */
  clientEmail: string;
  /** The parsed JSON, for google-auth-library. */
  json: Record<string, unknown>;
}

export class CredentialsSecretError extends Error {
  override readonly name = 'CredentialsSecretError';
}

const str = (v: unknown): string => (typeof v === 'string' ? v : '');

/** The service account named by an impersonation URL ".../serviceAccounts/<email>:generateAccessToken". */
function impersonatedAccount(url: string): string {
  const tail = url.slice(url.lastIndexOf('/') + 1);
  const colon = tail.indexOf(':');
  return decodeURIComponent(colon >= 0 ? tail.slice(0, colon) : tail);
}

/**
 * An external_account file must exchange a token read from a file or URL (what the cloud credential operator
 * writes: the bound service-account token file). Sources that run a program or read AWS metadata are refused.
 */
function checkExternalAccount(o: Record<string, unknown>, where: string): void {
  const field = (name: string) => `${where}: ${SERVICE_ACCOUNT_KEY} (external_account) ${name}`;
  if (!str(o.audience)) throw new CredentialsSecretError(field('has no audience'));
  if (!str(o.subject_token_type)) throw new CredentialsSecretError(field('has no subject_token_type'));
  if (!str(o.token_url)) throw new CredentialsSecretError(field('has no token_url'));
  const source = o.credential_source;
  if (typeof source !== 'object' || source === null || Array.isArray(source))
    throw new CredentialsSecretError(field('has no credential_source object'));
  const src = source as Record<string, unknown>;
  if (!str(src.file) && !str(src.url)) {
    throw new CredentialsSecretError(
      field('credential_source must name a file or url (executable and AWS sources are not supported)'),
    );
  }
}

/** Parses the Secret's service_account.json; the error says what is missing, never what is there. */
export function credentialsFromSecret(secret: Secret): GcpCredentials {
  const where = `secret ${secret.metadata.namespace ?? ''}/${secret.metadata.name ?? ''}`;
  const text = secretText(secret, SERVICE_ACCOUNT_KEY);
  if (text === undefined) throw new CredentialsSecretError(`${where} has no ${SERVICE_ACCOUNT_KEY} key`);
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new CredentialsSecretError(`${where}: ${SERVICE_ACCOUNT_KEY} is not valid JSON`);
  }
  if (typeof json !== 'object' || json === null || Array.isArray(json))
    throw new CredentialsSecretError(`${where}: ${SERVICE_ACCOUNT_KEY} must be a JSON object`);
  const o = json as Record<string, unknown>;
  // A file without a type is read as a key, as the reference's Google client does.
  const type = o.type === undefined ? 'service_account' : o.type;
  if (type !== 'service_account' && type !== 'external_account') {
    throw new CredentialsSecretError(
      `${where}: ${SERVICE_ACCOUNT_KEY} type ${JSON.stringify(type)} is not supported; expected "service_account" or "external_account"`,
    );
  }
  if (type === 'external_account') checkExternalAccount(o, where);
  // No project_id (usual for external_account files) is fine: the spec's projectID names the project.
  const projectId = str(o.project_id) || undefined;
  const clientEmail =
    type === 'service_account' ? str(o.client_email) : impersonatedAccount(str(o.service_account_impersonation_url));
  return { type, projectId, clientEmail, json: o };
}

/** Identifies credentials for client caching without keeping the key material around in the key. */
export function credentialsFingerprint(c: GcpCredentials | undefined): string {
  if (!c) return 'default';
  return createHash('sha256').update(JSON.stringify(c.json)).digest('hex').slice(0, 16);
}
