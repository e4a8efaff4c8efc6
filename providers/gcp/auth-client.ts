// The google-auth-library client for credentials of a known type, built by its own constructor rather than
// from arbitrary JSON (credentials.ts has already checked the type and, for an external account, that the
// subject token comes from a file or URL). Every request it makes, token exchanges included, uses `transporter`.
import { IdentityPoolClient, JWT, type AuthClient, type gaxios } from 'google-auth-library';
import type { GcpCredentials } from './credentials.js';

const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

export function authClientFor(credentials: GcpCredentials, transporter?: gaxios.Gaxios): AuthClient {
  const j = credentials.json;
  if (credentials.type === 'service_account') {
    return new JWT({
      email: str(j.client_email),
      key: str(j.private_key),
      keyId: str(j.private_key_id),
      projectId: credentials.projectId,
      transporter,
    });
  }
  const client = new IdentityPoolClient({
    ...(j as unknown as ConstructorParameters<typeof IdentityPoolClient>[0]),
    ...(transporter ? { transporter } : {}),
  });
  // The installed library builds its STS client with a transporter of its own, which would skip the proxy and
  // the trusted CAs for the token exchange: it gets ours too.
  const sts = (client as unknown as { stsCredential?: { transporter?: gaxios.Gaxios } }).stsCredential;
  if (sts && transporter) sts.transporter = transporter;
  return client;
}
