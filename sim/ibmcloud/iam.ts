// The IAM token service: POST /identity/token exchanges an API key the account has for a JWT carrying
// account.bss, iat and exp (ibm-cloud-sdk-core reuses a token until 80% of exp-iat has passed, and refetches
// on every call without them). Tokens are HMAC-signed with the world's secret so the emulator can tell its own
// from forged or revoked ones; clients never verify the signature, as with real IAM tokens. The account's keys
// can be added and deleted while it runs; as on IAM, deleting a key refuses new token requests with it, and
// tokens already issued stay valid until they expire.
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { adminString, type CredentialsAdmin } from '../kit/index.js';
import { IbmApiError } from './api-error.js';
import type { IbmWorld } from './model.js';

export const APIKEY_GRANT = 'urn:ibm:params:oauth:grant-type:apikey';

export interface IssuedToken {
  access_token: string;
  refresh_token: string;
  token_type: 'Bearer';
  expires_in: number;
  expiration: number;
  scope: string;
}

function b64(obj: unknown): string {
  return Buffer.from(JSON.stringify(obj)).toString('base64url');
}

function sign(secret: string, data: string): string {
  return createHmac('sha256', secret).update(data).digest('base64url');
}

/** What the admin endpoint shows of a key: a digest prefix, never the key. */
const keyId = (apiKey: string): string => `ApiKey-${createHash('sha256').update(apiKey).digest('hex').slice(0, 12)}`;

export class IamTokens implements CredentialsAdmin {
  private readonly apiKeys: Set<string>;

  constructor(
    private readonly world: IbmWorld,
    apiKeys: readonly string[],
    /** Wall-clock seconds: the SDK compares exp/iat with Date.now(), not with an emulator's fake clock. */
    private readonly nowSeconds: () => number,
    public ttlSeconds: number,
    private readonly issuer: () => string,
  ) {
    this.apiKeys = new Set(apiKeys);
  }

  addApiKey(apiKey: string): void {
    if (apiKey === '') throw new RangeError('an API key must not be empty');
    this.apiKeys.add(apiKey);
  }

  deleteApiKey(apiKey: string): boolean {
    return this.apiKeys.delete(apiKey);
  }

  add(body: Record<string, unknown>): Record<string, unknown> {
    const apikey = adminString(body, 'apikey');
    this.addApiKey(apikey);
    return { id: keyId(apikey) };
  }

  revoke(body: Record<string, unknown>): boolean {
    return this.deleteApiKey(adminString(body, 'apikey'));
  }

  list(): Record<string, unknown>[] {
    return [...this.apiKeys].map((k) => ({ id: keyId(k) }));
  }

  /** Handles the form body of POST /identity/token; throws IbmApiError in IAM's terms. */
  issue(form: URLSearchParams): IssuedToken {
    const grant = form.get('grant_type');
    if (!grant) throw new IbmApiError(400, 'BXNIM0109E', 'Property missing or empty. Property: grant_type');
    if (grant !== APIKEY_GRANT) throw new IbmApiError(400, 'BXNIM0103E', `Unsupported grant type: ${grant}`);
    const key = form.get('apikey');
    if (!key) throw new IbmApiError(400, 'BXNIM0109E', 'Property missing or empty. Property: apikey');
    if (![...this.apiKeys].some((k) => safeEqual(key, k)))
      throw new IbmApiError(400, 'BXNIM0415E', 'Provided API key could not be found.');
    const iat = this.nowSeconds();
    const exp = iat + this.ttlSeconds;
    const header = b64({ alg: 'HS256', typ: 'JWT', kid: 'emulator' });
    const payload = b64({
      iam_id: 'iam-ServiceId-emulator',
      id: 'iam-ServiceId-emulator',
      realmid: 'iam',
      sub: 'ServiceId-emulator',
      sub_type: 'ServiceId',
      account: { valid: true, bss: this.world.accountId },
      iat,
      exp,
      iss: `${this.issuer()}/identity`,
      grant_type: APIKEY_GRANT,
      scope: 'ibm openid',
      client_id: 'default',
    });
    const token = `${header}.${payload}.${sign(this.world.tokenSecret, `${header}.${payload}`)}`;
    return {
      access_token: token,
      refresh_token: 'not_supported',
      token_type: 'Bearer',
      expires_in: this.ttlSeconds,
      expiration: exp,
      scope: 'ibm openid',
    };
  }

  /** Undefined when the Authorization header carries a valid, unexpired token of this emulator; else why not. */
  reject(authorization: string | undefined): string | undefined {
    const m = /^Bearer\s+(\S+)$/i.exec(authorization ?? '');
    if (!m?.[1]) return 'The request is missing an Authorization header with a Bearer IAM token.';
    const [header, payload, signature] = m[1].split('.');
    if (!header || !payload || !signature) return 'The IAM token is malformed.';
    if (!safeEqual(signature, sign(this.world.tokenSecret, `${header}.${payload}`)))
      return 'The IAM token is not valid.';
    let claims: { exp?: unknown; account?: { bss?: unknown } };
    try {
      claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as typeof claims;
    } catch {
      return 'The IAM token is malformed.';
    }
    if (typeof claims.exp !== 'number' || claims.exp <= this.nowSeconds()) return 'The IAM token has expired.';
    if (claims.account?.bss !== this.world.accountId) return 'The IAM token belongs to another account.';
    return undefined;
  }

  /** Invalidates every token issued so far (clients get 401 until they fetch a new one). */
  revokeAll(newSecret: string): void {
    this.world.tokenSecret = newSecret;
  }
}

function safeEqual(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}
