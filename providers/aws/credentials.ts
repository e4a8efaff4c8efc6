// AWS credentials from the Machine's credentials Secret: keys aws_access_key_id / aws_secret_access_key, or
// `credentials` holding a shared-credentials INI file (takes precedence, as in the reference) with static keys
// or, in STS mode, role_arn + web_identity_token_file. Parsed in
// memory: nothing is written to disk and no value ever reaches a log, event or error message.
import { createHash } from 'node:crypto';
import { objectKey, secretText, type Secret } from '../../lib/index.js';

export interface AwsCredentials {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
}

/**
 * A role assumed with a web identity token (what the cloud credential operator writes in STS mode: the bound
 * service-account token file and the role to assume). The AWS SDK exchanges the token for temporary
 * credentials at STS and renews them before they expire, re-reading the token file each time.
 */
export interface AwsWebIdentity {
  roleArn: string;
  webIdentityTokenFile: string;
  roleSessionName?: string;
}

/** What a credentials Secret holds: static keys or a web identity role. */
export type AwsCredentialSource = AwsCredentials | AwsWebIdentity;

export const isWebIdentity = (c: AwsCredentialSource): c is AwsWebIdentity => 'roleArn' in c;

export class CredentialsSecretError extends Error {
  override readonly name = 'CredentialsSecretError';
}

/** Minimal INI reader: `[section]` headers, `key = value` lines, `#`/`;` comments. */
export function parseIni(text: string): Map<string, Map<string, string>> {
  const sections = new Map<string, Map<string, string>>();
  let current: Map<string, string> | undefined;
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#') || line.startsWith(';')) continue;
    const header = /^\[\s*(?:profile\s+)?([^\]]+?)\s*\]$/.exec(line);
    if (header) {
      current = new Map();
      sections.set(header[1]!, current);
      continue;
    }
    const eq = line.indexOf('=');
    if (eq > 0 && current) current.set(line.slice(0, eq).trim().toLowerCase(), line.slice(eq + 1).trim());
  }
  return sections;
}

export function credentialsFromSecret(secret: Secret): AwsCredentialSource {
  const ini = secretText(secret, 'credentials');
  if (ini !== undefined) {
    const sections = parseIni(ini);
    const profile = sections.get('default') ?? [...sections.values()][0];
    const accessKeyId = profile?.get('aws_access_key_id');
    const secretAccessKey = profile?.get('aws_secret_access_key');
    if (!accessKeyId || !secretAccessKey) {
      const roleArn = profile?.get('role_arn');
      const webIdentityTokenFile = profile?.get('web_identity_token_file');
      if (roleArn || webIdentityTokenFile) {
        if (!roleArn || !webIdentityTokenFile) {
          const missing = roleArn ? 'web_identity_token_file' : 'role_arn';
          throw new CredentialsSecretError(
            `aws credentials secret ${objectKey(secret)}: a web identity profile needs role_arn and web_identity_token_file; ${missing} is missing`,
          );
        }
        const roleSessionName = profile?.get('role_session_name');
        return roleSessionName ? { roleArn, webIdentityTokenFile, roleSessionName } : { roleArn, webIdentityTokenFile };
      }
      throw new CredentialsSecretError(
        `invalid secret for aws credentials ${objectKey(secret)}: the credentials file has no aws_access_key_id/aws_secret_access_key`,
      );
    }
    const sessionToken = profile?.get('aws_session_token');
    return sessionToken ? { accessKeyId, secretAccessKey, sessionToken } : { accessKeyId, secretAccessKey };
  }
  const accessKeyId = secretText(secret, 'aws_access_key_id');
  const secretAccessKey = secretText(secret, 'aws_secret_access_key');
  if (!accessKeyId || !secretAccessKey) {
    throw new CredentialsSecretError(
      `invalid secret for aws credentials ${objectKey(secret)}: expected keys aws_access_key_id and aws_secret_access_key, or credentials`,
    );
  }
  return { accessKeyId: accessKeyId.trim(), secretAccessKey: secretAccessKey.trim() };
}

/** A digest that changes when the credentials do; used as a cache key, never reversible. */
export function credentialsFingerprint(c: AwsCredentialSource | undefined): string {
  if (!c) return 'default-chain';
  const material = isWebIdentity(c)
    ? `web-identity\0${c.roleArn}\0${c.webIdentityTokenFile}\0${c.roleSessionName ?? ''}`
    : `${c.accessKeyId}\0${c.secretAccessKey}\0${c.sessionToken ?? ''}`;
  return createHash('sha256').update(material).digest('hex').slice(0, 16);
}
