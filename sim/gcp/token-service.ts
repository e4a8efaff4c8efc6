// Google's token endpoints, beside the Compute API, so credentials files run locally when their URLs point at
// the emulator: the OAuth 2.0 token endpoint for service-account keys (JWT bearer grant, a key file's
// token_uri), the Security Token Service exchange of Workload Identity Federation (an external_account file's
// token_url) and IAM Credentials' generateAccessToken (its service_account_impersonation_url). Tokens are
// opaque, expire, and are what Compute calls must carry when the emulator requires authentication. A key's
// JWT (a grant's assertion, or a self-signed JWT sent as the bearer token) must be signed by a service-account
// key the project has, as Google checks it; the subject token of an STS exchange is not verified (the emulator
// does not know the cluster's OIDC issuer).
import { randomBytes } from 'node:crypto';
import type { ServiceAccountKeys } from './service-account-keys.js';

export const OAUTH_TOKEN_PATH = '/token';
export const STS_TOKEN_PATH = '/v1/token';
const IMPERSONATION_PREFIX = '/v1/projects/-/serviceAccounts/';
const IMPERSONATION_SUFFIX = ':generateAccessToken';

export const JWT_BEARER_GRANT = 'urn:ietf:params:oauth:grant-type:jwt-bearer';
export const TOKEN_EXCHANGE_GRANT = 'urn:ietf:params:oauth:grant-type:token-exchange';
const ACCESS_TOKEN_TYPE = 'urn:ietf:params:oauth:token-type:access_token';

/** How a token was obtained: a key's JWT grant, an STS exchange (federated), or impersonation. */
export type TokenKind = 'service-account-key' | 'federated' | 'impersonated';

export interface TokenCalls {
  jwtBearer: number;
  stsExchange: number;
  impersonation: number;
}

export interface TokenReply {
  status: number;
  body: unknown;
}

interface Issued {
  kind: TokenKind;
  expiresAt: number;
  /** The service account an impersonated token acts as. */
  serviceAccount?: string;
}

const oauthError = (status: number, error: string, description: string): TokenReply => ({
  status,
  body: { error, error_description: description },
});
const googleError = (status: number, statusText: string, message: string): TokenReply => ({
  status,
  body: { error: { code: status, message, status: statusText } },
});

export class TokenService {
  private readonly issued = new Map<string, Issued>();
  readonly calls: TokenCalls = { jwtBearer: 0, stsExchange: 0, impersonation: 0 };

  constructor(
    private readonly now: () => number,
    /** The keys whose signed JWTs are accepted. */
    private readonly keys: ServiceAccountKeys,
    /** Lifetime of every token issued, in seconds. */
    public ttlSeconds = 3600,
  ) {}

  handles(method: string, path: string): boolean {
    return (
      method === 'POST' &&
      (path === OAUTH_TOKEN_PATH ||
        path === STS_TOKEN_PATH ||
        (path.startsWith(IMPERSONATION_PREFIX) && path.endsWith(IMPERSONATION_SUFFIX)))
    );
  }

  handle(path: string, authorization: string | undefined, body: string): TokenReply {
    if (path === OAUTH_TOKEN_PATH) return this.jwtBearer(new URLSearchParams(body));
    if (path === STS_TOKEN_PATH) return this.exchange(new URLSearchParams(body));
    return this.impersonate(
      decodeURIComponent(path.slice(IMPERSONATION_PREFIX.length, -IMPERSONATION_SUFFIX.length)),
      authorization,
    );
  }

  /**
   * The token of an Authorization header, if this service issued it and it has not expired, or a self-signed
   * service-account JWT (what google-auth-library sends for a key file when no scopes are asked for) signed by
   * a known key and not expired.
   */
  validToken(authorization: string | undefined): Issued | undefined {
    const token = /^Bearer (\S+)$/.exec(authorization ?? '')?.[1];
    if (!token) return undefined;
    const t = this.issued.get(token) ?? this.selfSignedJwt(token);
    return t && t.expiresAt > this.now() ? t : undefined;
  }

  private selfSignedJwt(token: string): Issued | undefined {
    if (token.split('.').length !== 3) return undefined;
    const c = this.keys.check(token);
    if (!c.ok || typeof c.claims.exp !== 'number') return undefined;
    return { kind: 'service-account-key', expiresAt: c.claims.exp * 1000, serviceAccount: c.clientEmail };
  }

  private issue(kind: TokenKind, serviceAccount?: string): { token: string; expiresIn: number; expiresAt: number } {
    const token = `ya29.emulator-${randomBytes(18).toString('base64url')}`;
    const expiresAt = this.now() + this.ttlSeconds * 1000;
    this.issued.set(token, { kind, expiresAt, serviceAccount });
    return { token, expiresIn: this.ttlSeconds, expiresAt };
  }

  private jwtBearer(form: URLSearchParams): TokenReply {
    this.calls.jwtBearer++;
    if (form.get('grant_type') !== JWT_BEARER_GRANT)
      return oauthError(400, 'unsupported_grant_type', 'Invalid grant_type.');
    const c = this.keys.check(form.get('assertion') ?? '');
    if (!c.ok) {
      const description = {
        malformed: 'Invalid JWT: the assertion is not a signed RS256 JWT.',
        'unknown-key': 'Invalid grant: account not found',
        'bad-signature': 'Invalid JWT Signature.',
      }[c.why];
      return oauthError(400, 'invalid_grant', description);
    }
    const exp = typeof c.claims.exp === 'number' ? c.claims.exp * 1000 : 0;
    if (exp <= this.now())
      return oauthError(
        400,
        'invalid_grant',
        'Invalid JWT: Token must be a short-lived token (60 minutes) and in a reasonable timeframe. Check your iat and exp values in the JWT claim.',
      );
    const t = this.issue('service-account-key', c.clientEmail);
    return { status: 200, body: { access_token: t.token, expires_in: t.expiresIn, token_type: 'Bearer' } };
  }

  private exchange(form: URLSearchParams): TokenReply {
    this.calls.stsExchange++;
    if (form.get('grant_type') !== TOKEN_EXCHANGE_GRANT)
      return oauthError(400, 'invalid_request', 'Invalid value for "grant_type".');
    if (!form.get('audience')) return oauthError(400, 'invalid_request', 'Missing audience.');
    if (!form.get('subject_token')) return oauthError(400, 'invalid_request', 'Missing subject_token.');
    if (!form.get('subject_token_type')) return oauthError(400, 'invalid_request', 'Missing subject_token_type.');
    const t = this.issue('federated');
    return {
      status: 200,
      body: {
        access_token: t.token,
        issued_token_type: ACCESS_TOKEN_TYPE,
        token_type: 'Bearer',
        expires_in: t.expiresIn,
      },
    };
  }

  private impersonate(serviceAccount: string, authorization: string | undefined): TokenReply {
    this.calls.impersonation++;
    if (!this.validToken(authorization))
      return googleError(
        401,
        'UNAUTHENTICATED',
        'Request had invalid authentication credentials. Expected OAuth 2 access token.',
      );
    if (!serviceAccount.includes('@'))
      return googleError(400, 'INVALID_ARGUMENT', `Invalid form of account ID ${serviceAccount}.`);
    const t = this.issue('impersonated', serviceAccount);
    return {
      status: 200,
      body: { accessToken: t.token, expireTime: new Date(t.expiresAt).toISOString().replace(/\.\d{3}Z$/, 'Z') },
    };
  }
}
