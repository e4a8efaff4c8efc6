// IAM pieces of the client: an authenticator wrapper that reports token failures as IAM errors (not as errors
// of the VPC call that needed the token), and the account id read from the token's claims. The token itself
// never leaves this file's functions: it is neither logged nor put into an error.
import type { AuthenticatorInterface } from 'ibm-cloud-sdk-core';
import { toVpcApiError, VpcApiError } from './vpc-api-error.js';

// The SDK does not export this type by name.
type AuthenticateOptions = Parameters<AuthenticatorInterface['authenticate']>[0];

/** Delegates to `inner`; a failure to obtain a token rejects with VpcApiError{service:'iam'}. */
export class IamErrorAuthenticator implements AuthenticatorInterface {
  constructor(private readonly inner: AuthenticatorInterface) {}

  async authenticate(requestOptions: AuthenticateOptions): Promise<void> {
    try {
      await this.inner.authenticate(requestOptions);
    } catch (err) {
      throw toVpcApiError(err, 'iam', 'getToken');
    }
  }

  authenticationType(): string {
    return this.inner.authenticationType();
  }
}

/** The claims of a JWT, decoded without verifying the signature (IAM's own SDKs do the same). */
export function decodeJwtClaims(token: string): Record<string, unknown> {
  const payload = token.split('.')[1];
  if (!payload) throw new Error('the IAM access token is not a JWT');
  const claims: unknown = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
  if (!claims || typeof claims !== 'object') throw new Error('the IAM access token has no claims object');
  return claims as Record<string, unknown>;
}

/** `account.bss` of the current IAM token: the IBM Cloud account the API key belongs to. */
export async function accountIdFromAuthenticator(auth: AuthenticatorInterface): Promise<string> {
  const options: AuthenticateOptions = { headers: {} };
  await auth.authenticate(options);
  const raw = options.headers?.Authorization;
  const header = typeof raw === 'string' ? raw : '';
  const m = /^Bearer (.+)$/.exec(header);
  const invalid = (message: string) =>
    new VpcApiError({ service: 'iam', operation: 'getAccountId', status: 200, code: 'invalid_token', message });
  if (!m?.[1]) throw invalid('the authenticator produced no bearer token, so the account id is unknown');
  let claims: Record<string, unknown>;
  try {
    claims = decodeJwtClaims(m[1]);
  } catch (err) {
    throw invalid(err instanceof Error ? err.message : 'the IAM access token could not be decoded');
  }
  const account = claims.account as { bss?: unknown } | undefined;
  if (typeof account?.bss !== 'string' || account.bss === '')
    throw invalid('could not parse account id from token: no account.bss claim');
  return account.bss;
}
